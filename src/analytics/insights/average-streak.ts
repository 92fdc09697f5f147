/**
 * average_streak (priority 2, day): the days up to yesterday make a run of at least 7 days in a row
 * at or above the person's average (the median of the 60 days before yesterday). The median must be
 * above that window's minimum, or "meeting the average" would be trivial (a count that is 0 on
 * most days). One insight per streak: it is keyed by the streak's first day.
 */
import { dateAt } from '../series';
import { formatValue, isMeasure, labelOf, sentence } from './format';
import type { InsightType } from './types';
import { valuesIn } from './windows';
import { median } from '../stats/median';

export const MIN_STREAK = 7;
const WINDOW = 60;

export const averageStreak: InsightType = {
  name: 'average_streak',
  period: WINDOW,
  priority: 2,
  find(attribute, { data, todayIndex }) {
    if (!isMeasure(attribute)) return undefined;
    const day = todayIndex - 1;
    const window = valuesIn(data, attribute.values, day - WINDOW, day);
    if (window.length < 30) return undefined;
    const usual = median(window);
    if (!(usual > Math.min(...window))) return undefined;
    let start = day;
    while (start >= 0 && attribute.values[start] >= usual) start--;
    const length = day - start;
    if (length < MIN_STREAK) return undefined;
    return {
      targetDate: dateAt(data, day),
      key: dateAt(data, start + 1),
      value: String(length),
      value2: formatValue(attribute, usual),
      ...sentence(`${labelOf(attribute)}: `, { strong: `${length} days in a row` }, ` at or above your average (${formatValue(attribute, usual)}).`),
    };
  },
};

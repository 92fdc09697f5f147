/**
 * today_above_weekday (priority 1, today): today's value so far is well above the median of the
 * same weekday over the 60 days before today: at least 25% above (or 45 minutes later for a time of
 * day), with at least 4 earlier values on that weekday and a positive median.
 */
import { weekdayAt } from '../series';
import { formatMinutesApart, formatValue, isMeasure, isTimeOfDay, labelOf, sentence, weekdayName } from './format';
import type { InsightType } from './types';
import { valuesIn } from './windows';
import { median } from '../stats/median';

export const WINDOW = 60;
export const MIN_SAME_WEEKDAY = 4;

export const todayAboveWeekday: InsightType = {
  name: 'today_above_weekday',
  period: WINDOW,
  priority: 1,
  find(attribute, { data, today, todayIndex }) {
    if (!isMeasure(attribute)) return undefined;
    const value = attribute.values[todayIndex];
    if (value !== value) return undefined;
    const weekday = weekdayAt(data, todayIndex);
    const earlier = valuesIn(data, attribute.values, todayIndex - WINDOW, todayIndex, weekday);
    if (earlier.length < MIN_SAME_WEEKDAY) return undefined;
    const usual = median(earlier);
    const day = weekdayName(weekday);
    if (isTimeOfDay(attribute)) {
      if (value - usual < 45) return undefined;
      return {
        targetDate: today,
        key: today,
        value: formatValue(attribute, value),
        value2: formatValue(attribute, usual),
        ...sentence(
          `${labelOf(attribute)} today: `,
          { strong: formatValue(attribute, value) },
          `, ${formatMinutesApart(value - usual)} than on a usual ${day} (${formatValue(attribute, usual)}).`,
        ),
      };
    }
    if (!(usual > 0) || value < usual * 1.25) return undefined;
    return {
      targetDate: today,
      key: today,
      value: formatValue(attribute, value),
      value2: formatValue(attribute, usual),
      ...sentence(`${labelOf(attribute)} today: `, { strong: formatValue(attribute, value) }, `, above a usual ${day} (${formatValue(attribute, usual)}).`),
    };
  },
};

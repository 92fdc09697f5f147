/**
 * tag_more_than_usual (priority 3, week): a custom tag was used on more days last week than usual:
 * on at least 3 days and at least 2 more than the median of the 8 weeks before (weeks with at
 * least 4 tracked days; at least 4 such weeks).
 */
import { dateAt, isTagAttribute } from '../series';
import { median } from '../stats/median';
import { labelOf, sentence } from './format';
import type { InsightType } from './types';
import { lastWeekStart, valuesIn } from './windows';

const WEEKS_BEFORE = 8;

function daysUsed(values: number[]): number {
  return values.filter((v) => v >= 0.5).length;
}

export const tagMoreThanUsual: InsightType = {
  name: 'tag_more_than_usual',
  period: (WEEKS_BEFORE + 1) * 7,
  priority: 3,
  find(attribute, { data, today }) {
    if (!isTagAttribute(attribute)) return undefined;
    const start = lastWeekStart(data, today);
    const used = daysUsed(valuesIn(data, attribute.values, start, start + 7));
    const earlier: number[] = [];
    for (let w = 1; w <= WEEKS_BEFORE; w++) {
      const days = valuesIn(data, attribute.values, start - 7 * w, start - 7 * (w - 1));
      if (days.length >= 4) earlier.push(daysUsed(days));
    }
    if (earlier.length < 4) return undefined;
    const usual = median(earlier);
    if (used < 3 || used < usual + 2) return undefined;
    const monday = dateAt(data, start);
    const usualText = Number.isInteger(usual) ? String(usual) : usual.toFixed(1);
    return {
      targetDate: null,
      key: monday,
      value: String(used),
      value2: usualText,
      ...sentence(`You tagged "${labelOf(attribute)}" on `, { strong: `${used} days` }, ` in the week of ${monday}, more than usual (${usualText} a week).`),
    };
  },
};

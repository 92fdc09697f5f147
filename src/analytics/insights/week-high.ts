/**
 * week_high (priority 3, week): last week's (Monday to Sunday) daily mean is the highest of the last
 * 12 weeks. Last week needs at least 4 days of data, and at least 8 of the 11 weeks before it too.
 * Times of day are left out ("highest bedtime" says nothing).
 */
import { addDays } from '../../domain/time';
import { dateAt } from '../series';
import { formatValue, isMeasure, isTimeOfDay, labelOf, sentence } from './format';
import type { InsightType } from './types';
import { lastWeekStart, mean, valuesIn } from './windows';

const WEEKS = 12;
const MIN_DAYS = 4;
const MIN_EARLIER_WEEKS = 8;

export const weekHigh: InsightType = {
  name: 'week_high',
  period: WEEKS * 7,
  priority: 3,
  find(attribute, { data, today }) {
    if (!isMeasure(attribute) || isTimeOfDay(attribute)) return undefined;
    const start = lastWeekStart(data, today);
    const week = valuesIn(data, attribute.values, start, start + 7);
    if (week.length < MIN_DAYS) return undefined;
    const value = mean(week);
    const earlier: number[] = [];
    for (let w = 1; w < WEEKS; w++) {
      const days = valuesIn(data, attribute.values, start - 7 * w, start - 7 * (w - 1));
      if (days.length >= MIN_DAYS) earlier.push(mean(days));
    }
    if (earlier.length < MIN_EARLIER_WEEKS || earlier.some((m) => m >= value)) return undefined;
    const monday = dateAt(data, start);
    return {
      targetDate: null,
      key: monday,
      value: formatValue(attribute, value),
      value2: formatValue(attribute, Math.max(...earlier)),
      ...sentence(
        `${labelOf(attribute)}: the week of ${monday} to ${addDays(monday, 6)} was your highest in ${WEEKS} weeks, `,
        { strong: `${formatValue(attribute, value)} a day` },
        ` on average (the next best: ${formatValue(attribute, Math.max(...earlier))}).`,
      ),
    };
  },
};

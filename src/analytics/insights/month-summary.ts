/**
 * month_summary (priority 4, month): last calendar month against the month before it, when the daily
 * mean changed by at least 10% (at least 15 minutes for a time of day) and both months have at
 * least 15 days of data.
 */
import { indexOf } from '../series';
import { formatMinutesApart, formatValue, isMeasure, isTimeOfDay, labelOf, monthName, sentence } from './format';
import type { InsightType } from './types';
import { mean, monthBefore, valuesIn } from './windows';

const MIN_DAYS = 15;

export const monthSummary: InsightType = {
  name: 'month_summary',
  period: 30,
  priority: 4,
  find(attribute, { data, today }) {
    if (!isMeasure(attribute)) return undefined;
    const last = monthBefore(today, 1);
    const before = monthBefore(today, 2);
    const lastValues = valuesIn(data, attribute.values, indexOf(data, last.first), indexOf(data, last.last) + 1);
    const beforeValues = valuesIn(data, attribute.values, indexOf(data, before.first), indexOf(data, before.last) + 1);
    if (lastValues.length < MIN_DAYS || beforeValues.length < MIN_DAYS) return undefined;
    const now = mean(lastValues);
    const then = mean(beforeValues);
    const label = labelOf(attribute);
    let change: string;
    if (isTimeOfDay(attribute)) {
      if (Math.abs(now - then) < 15) return undefined;
      change = formatMinutesApart(now - then);
    } else {
      if (!(then > 0) || !(now >= 0)) return undefined;
      const ratio = now / then - 1;
      if (Math.abs(ratio) < 0.1) return undefined;
      change = `${Math.round(Math.abs(ratio) * 100)}% ${ratio > 0 ? 'more' : 'less'}`;
    }
    return {
      targetDate: null,
      key: last.month,
      value: formatValue(attribute, now),
      value2: formatValue(attribute, then),
      ...sentence(
        `${monthName(last.month)}: ${label} averaged `,
        { strong: formatValue(attribute, now) },
        ` a day, ${change} than in ${monthName(before.month)} (${formatValue(attribute, then)}).`,
      ),
    };
  },
};

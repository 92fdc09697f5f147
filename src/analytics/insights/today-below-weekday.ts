/**
 * today_below_weekday (priority 1, today): today's value is well below the median of the same
 * weekday over the 60 days before today: at most 80% of it (or 45 minutes earlier for a time of
 * day), with at least 4 earlier values on that weekday. Only for values that do not grow during
 * the day (weight, sleep, resting heart rate, bedtime…): a step count is always low in the morning.
 */
import { weekdayAt } from '../series';
import { growsDuringTheDay } from '../phrasing';
import { median } from '../stats/median';
import { formatMinutesApart, formatValue, isMeasure, isTimeOfDay, labelOf, sentence, weekdayName } from './format';
import type { InsightType } from './types';
import { MIN_SAME_WEEKDAY, WINDOW } from './today-above-weekday';
import { valuesIn } from './windows';

export const todayBelowWeekday: InsightType = {
  name: 'today_below_weekday',
  period: WINDOW,
  priority: 1,
  find(attribute, { data, today, todayIndex }) {
    if (!isMeasure(attribute) || growsDuringTheDay(attribute)) return undefined;
    const value = attribute.values[todayIndex];
    if (value !== value) return undefined;
    const weekday = weekdayAt(data, todayIndex);
    const earlier = valuesIn(data, attribute.values, todayIndex - WINDOW, todayIndex, weekday);
    if (earlier.length < MIN_SAME_WEEKDAY) return undefined;
    const usual = median(earlier);
    const day = weekdayName(weekday);
    if (isTimeOfDay(attribute)) {
      if (usual - value < 45) return undefined;
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
    if (!(usual > 0) || value > usual * 0.8) return undefined;
    return {
      targetDate: today,
      key: today,
      value: formatValue(attribute, value),
      value2: formatValue(attribute, usual),
      ...sentence(`${labelOf(attribute)} today: `, { strong: formatValue(attribute, value) }, `, below a usual ${day} (${formatValue(attribute, usual)}).`),
    };
  },
};

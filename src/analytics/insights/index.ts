/**
 * Every insight type, and the run that applies them to a person's data as of their today. Types
 * cover the four priorities: 1 today (today_above_weekday, today_below_weekday), 2 day
 * (record_high, record_low, average_streak), 3 week (week_high, tag_more_than_usual), 4 month
 * (month_summary).
 */
import { indexOf, type UserData } from '../series';
import { averageStreak } from './average-streak';
import { monthSummary } from './month-summary';
import { recordHigh } from './record-high';
import { recordLow } from './record-low';
import { tagMoreThanUsual } from './tag-more-than-usual';
import { todayAboveWeekday } from './today-above-weekday';
import { todayBelowWeekday } from './today-below-weekday';
import type { Insight, InsightType } from './types';
import { weekHigh } from './week-high';

export type { Insight, InsightType } from './types';

export const INSIGHT_TYPES: readonly InsightType[] = [
  todayAboveWeekday,
  todayBelowWeekday,
  recordHigh,
  recordLow,
  averageStreak,
  weekHigh,
  tagMoreThanUsual,
  monthSummary,
];

/** Days of data before today the types need at most (records: 365 days before yesterday). */
export const INSIGHT_LOOKBACK_DAYS = 367;

/** The findings of every type for every attribute, as of `today` (which `data` must cover). */
export function findInsights(data: UserData, today: string, types: readonly InsightType[] = INSIGHT_TYPES): Insight[] {
  const todayIndex = indexOf(data, today);
  if (todayIndex < 0 || todayIndex >= data.days) return [];
  const ctx = { data, today, todayIndex };
  const found: Insight[] = [];
  for (const attribute of data.attributes) {
    for (const type of types) {
      const finding = type.find(attribute, ctx);
      if (finding) found.push({ ...finding, type, attribute });
    }
  }
  return found;
}

/** The key an insight is stored under, so a rerun never stores it twice. */
export function dedupeKey(insight: Insight): string {
  return `${insight.type.name}:${insight.attribute.id}:${insight.key}`;
}

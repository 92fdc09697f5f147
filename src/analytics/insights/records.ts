/**
 * What record_high and record_low share: yesterday's value against every value of the 365 days
 * before it, which must hold at least 60 values.
 */
import { dateAt, type SeriesAttribute, type UserData } from '../series';
import { dayName, formatValue, isMeasure, labelOf, sentence } from './format';
import type { Finding } from './types';

export const RECORD_LOOKBACK = 365;
export const MIN_EARLIER_VALUES = 60;

export function recordFinding(attribute: SeriesAttribute, data: UserData, todayIndex: number, direction: 'high' | 'low'): Finding | undefined {
  if (!isMeasure(attribute)) return undefined;
  const day = todayIndex - 1;
  const value = attribute.values[day];
  if (value !== value) return undefined;
  let count = 0;
  let first = -1;
  for (let i = Math.max(0, day - RECORD_LOOKBACK); i < day; i++) {
    const v = attribute.values[i];
    if (v !== v) continue;
    if (direction === 'high' ? v >= value : v <= value) return undefined;
    if (first < 0) first = i;
    count++;
  }
  if (count < MIN_EARLIER_VALUES) return undefined;
  const date = dateAt(data, day);
  const since = day - first >= RECORD_LOOKBACK - 7 ? 'in a year' : `since ${dayName(dateAt(data, first))}`;
  const word = direction === 'high' ? 'highest' : 'lowest';
  return {
    targetDate: date,
    key: date,
    value: formatValue(attribute, value),
    ...sentence(`${labelOf(attribute)} yesterday: `, { strong: formatValue(attribute, value) }, `, your ${word} ${since}.`),
  };
}

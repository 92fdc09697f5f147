/** Small window calculations the insight types share (day indexes as in UserData; NaN = no data). */
import { addDays } from '../../domain/time';
import { indexOf, weekdayAt, type UserData } from '../series';
import { weekDate } from '../week';

/** Finite values of day indexes [start, end), optionally only on one weekday. */
export function valuesIn(data: UserData, values: Float64Array, start: number, end: number, weekday?: number): number[] {
  const out: number[] = [];
  for (let i = Math.max(0, start); i < Math.min(end, data.days); i++) {
    const v = values[i];
    if (v !== v) continue;
    if (weekday !== undefined && weekdayAt(data, i) !== weekday) continue;
    out.push(v);
  }
  return out;
}

export function mean(values: readonly number[]): number {
  if (values.length === 0) return NaN;
  let sum = 0;
  for (const v of values) sum += v;
  return sum / values.length;
}

/** Day index of the Monday of the last complete week before today's. */
export function lastWeekStart(data: UserData, today: string): number {
  return indexOf(data, addDays(weekDate(today), -7));
}

/** First and last date (inclusive) of the calendar month `months` before today's (1 = last month). */
export function monthBefore(today: string, months: number): { month: string; first: string; last: string } {
  const [year, month] = today.split('-').map(Number);
  const index = year * 12 + (month - 1) - months;
  const y = Math.floor(index / 12);
  const m = (index % 12) + 1;
  const first = `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-01`;
  const nextIndex = index + 1;
  const nextFirst = `${String(Math.floor(nextIndex / 12)).padStart(4, '0')}-${String((nextIndex % 12) + 1).padStart(2, '0')}-01`;
  return { month: first.slice(0, 7), first, last: addDays(nextFirst, -1) };
}

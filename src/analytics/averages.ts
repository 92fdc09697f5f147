/**
 * The weekly set of averages of each numeric attribute: medians over the 60 days before the set's
 * date, overall and for each weekday (docs/decisions.md, "Derived data"). An attribute without data in the
 * window gets no set that week. A weekday without data in the window gets the overall median: the
 * v2 document types every weekday as a number (openapi/v2/schemas/Average.yaml), and the window's median is the best estimate of a day about
 * which the window says nothing (0 would read as "none", which a missing weekday does not mean).
 */
import { median } from './stats/median';
import { indexOf, weekdayAt, type UserData } from './series';
import { AVERAGES_WINDOW_DAYS } from './week';

export const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/** One attribute's set, as stored in `averages`. */
export interface AverageSet {
  attributeId: number;
  date: string;
  overall: number;
  weekdays: Record<Weekday, number>;
}

/** Medians of the window [start, end) of day indexes: overall and per weekday. */
export function windowMedians(data: UserData, values: Float64Array, start: number, end: number): { overall: number; weekdays: Array<number | null> } {
  const all: number[] = [];
  const byWeekday: number[][] = [[], [], [], [], [], [], []];
  for (let i = Math.max(0, start); i < Math.min(end, data.days); i++) {
    const v = values[i];
    if (v !== v) continue;
    all.push(v);
    byWeekday[weekdayAt(data, i)].push(v);
  }
  return {
    overall: median(all),
    weekdays: byWeekday.map((list) => (list.length > 0 ? median(list) : null)),
  };
}

/** The sets dated `date` for every attribute with data in the window before it. */
export function computeAverages(data: UserData, date: string): AverageSet[] {
  const end = indexOf(data, date);
  const start = end - AVERAGES_WINDOW_DAYS;
  const sets: AverageSet[] = [];
  for (const attribute of data.attributes) {
    const { overall, weekdays } = windowMedians(data, attribute.values, start, end);
    if (Number.isNaN(overall)) continue;
    sets.push({
      attributeId: attribute.id,
      date,
      overall,
      weekdays: Object.fromEntries(WEEKDAYS.map((day, i) => [day, weekdays[i] ?? overall])) as Record<Weekday, number>,
    });
  }
  return sets;
}

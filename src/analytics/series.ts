/**
 * A person's numeric data as the statistics see it: one dense series per attribute over a range of
 * days, NaN on a day without data, loaded with ONE query (attributes, their catalogue details and
 * every value in the range come back together, one row per attribute).
 *
 * Custom tags (custom-group integer attributes with priority >= 2, value 1 on a day the tag was
 * used) are often stored only on the days they were used. A tag's day without a value counts as 0
 * on every day the person tracked anything else, so "used" and "not used" can be compared.
 */
import { isTextValueType } from '../db/catalogue-value-types';
import { addDays, daysBetween, weekdayOf } from '../domain/time';
import { isCustomTag } from '../domain/tracking/custom-tag';

/** One numeric attribute with what phrasing, insights and the API objects need. */
export interface SeriesAttribute {
  id: number;
  name: string;
  label: string;
  template: string | null;
  group: string;
  groupLabel: string;
  groupPriority: number;
  priority: number;
  valueType: number;
  manual: boolean;
  /** The template's unit (minutes, km, kg…), null when it has none or the attribute is custom. */
  unit: string | null;
  /** A custom tag (see the module comment). */
  isTag: boolean;
  /** Values by day index (0 = `UserData.firstDay`), NaN without data. */
  values: Float64Array;
  /** Days with a value. */
  count: number;
}

/** The loaded range of one person. */
export interface UserData {
  userId: number;
  firstDay: string;
  /** Number of days loaded: firstDay .. firstDay + days - 1. */
  days: number;
  /** Weekday of firstDay, 0 Monday .. 6 Sunday. */
  firstWeekday: number;
  /** In the order attribute lists use: group priority, attribute priority, name. */
  attributes: SeriesAttribute[];
}

/** True for a custom tag attribute, by the one definition the writes use too (src/domain/tracking/custom-tag.ts). */
export const isTagAttribute = isCustomTag;

/** An attribute's details and its values as [day index from `from`, value] pairs. */
export type AttributeInput = Omit<SeriesAttribute, 'values' | 'count' | 'isTag'> & { points: ReadonlyArray<readonly [number, number]> };

/**
 * Builds the dense series of `from` .. `to` (inclusive) from attributes and their points; string
 * attributes are left out, non-finite values and points outside the range are missing. Used by the
 * loader and by tests that make data in memory.
 */
export function buildUserData(userId: number, from: string, to: string, inputs: readonly AttributeInput[]): UserData {
  const days = daysBetween(from, to) + 1;
  const attributes = inputs
    .filter((input) => !isTextValueType(input.valueType))
    .map((input): SeriesAttribute => {
      const values = new Float64Array(days).fill(NaN);
      let count = 0;
      for (const [index, value] of input.points) {
        if (index >= 0 && index < days && Number.isFinite(value)) {
          if (values[index] !== values[index]) count++;
          values[index] = value;
        }
      }
      const { points: _points, ...details } = input;
      return { ...details, values, count, isTag: isTagAttribute(details) };
    });
  fillTagGaps(attributes, days);
  return { userId, firstDay: from, days, firstWeekday: weekdayOf(from), attributes };
}

/**
 * A tag's day without a value is 0 (not ticked) on days the person tracked any other attribute,
 * from the tag's first stored value on: before it the tag was not in use, and counting those days
 * as 0 made "usual" weeks of 0 (issue 32: "more than usual (0 a week)" after weeks of 4-5).
 */
function fillTagGaps(attributes: SeriesAttribute[], days: number): void {
  const tags = attributes.filter((a) => a.isTag);
  if (tags.length === 0) return;
  const tracked = new Uint8Array(days);
  for (const a of attributes) {
    if (a.isTag) continue;
    for (let i = 0; i < days; i++) if (a.values[i] === a.values[i]) tracked[i] = 1;
  }
  for (const tag of tags) {
    let firstUse = 0;
    while (firstUse < days && tag.values[firstUse] !== tag.values[firstUse]) firstUse++;
    for (let i = firstUse; i < days; i++) {
      if (tracked[i] && tag.values[i] !== tag.values[i]) {
        tag.values[i] = 0;
        tag.count++;
      }
    }
  }
}

/** The date of day index `index`. */
export function dateAt(data: UserData, index: number): string {
  return addDays(data.firstDay, index);
}

/** The day index of `date` (may fall outside 0 .. days - 1). */
export function indexOf(data: UserData, date: string): number {
  return daysBetween(data.firstDay, date);
}

/** Weekday (0 Monday) of day index `index`. */
export function weekdayAt(data: UserData, index: number): number {
  return (((data.firstWeekday + index) % 7) + 7) % 7;
}

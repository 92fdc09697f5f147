/**
 * How an attribute's values are pictured, by value type (docs/pages.md, "Charts"): bars for
 * counts (integers), a line for quantities (numbers, durations, percentages), dots for scales and
 * yes/no, and dots on a clock axis fitted to the person's own times for times of day; yes/no
 * (tags) as ticks on days, or days per week over a year. Text values (notes) are not charted.
 */
import { VALUE_TYPES } from '../db/catalogue-value-types';
import type { JsonValue, ValueObject } from '../domain/tracking/values';
import type { Html } from './html';
import { dayChart, type ChartKind, type ChartOptions, type DayPoint } from './charts';
import { formatValue } from './values';
import { clockAxis, hourAxis } from './chart-axes';
import { DAILY_UP_TO, daysPerWeek, weeklyMeans } from './weekly';

const DAY = 24 * 60;

/**
 * The value type an attribute is pictured and entered as: mood is stored as an integer but is a
 * 1-9 rating (the v2 document, "Dates, units and values": `mood` is an integer 1-9), so it is drawn
 * and entered as one.
 */
export function shownType(row: { value_type: number; template_name: string | null }): number {
  return row.template_name === 'mood' ? VALUE_TYPES.scale : row.value_type;
}

export function isCharted(valueType: number): boolean {
  return valueType !== VALUE_TYPES.string;
}

export function chartKind(valueType: number): ChartKind {
  switch (valueType) {
    case VALUE_TYPES.integer:
      return 'bars';
    case VALUE_TYPES.float:
    case VALUE_TYPES.period:
    case VALUE_TYPES.percentage:
      return 'line';
    default:
      return 'dots';
  }
}

/** A stored value as a number to draw, or null (no value, or text). */
export function numericValue(value: JsonValue): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/** Values (newest first, as the domain lists them) as points oldest first. */
export function pointsOf(values: readonly ValueObject[]): DayPoint[] {
  return [...values].reverse().map((v) => ({ date: v.date, value: numericValue(v.value) }));
}

function clockLabel(minutes: number): string {
  if (minutes >= DAY) return '24:00';
  return formatValue(VALUE_TYPES.timeOfDay, minutes);
}

/** An axis label: shorter than `formatValue` for durations (h:mm). */
export function axisFormat(valueType: number): (value: number) => string {
  switch (valueType) {
    case VALUE_TYPES.period:
      return (v) => `${Math.floor(v / 60)}:${String(Math.round(v % 60)).padStart(2, '0')}`;
    case VALUE_TYPES.timeOfDay:
      return clockLabel;
    case VALUE_TYPES.timeFromMidday:
      return (v) => (v >= DAY ? '12:00' : formatValue(VALUE_TYPES.timeFromMidday, v));
    case VALUE_TYPES.percentage:
      return (v) => `${Math.round(v * 100)} %`;
    case VALUE_TYPES.boolean:
      return (v) => (v >= 1 ? 'Yes' : v <= 0 ? 'No' : '');
    default:
      return (v) => String(Math.round(v * 100) / 100);
  }
}

/** The value axis of a type whose range is known (1-9, yes/no) or fitted (a clock over the person's own times). */
function fixedAxis(valueType: number, values: readonly number[]): Pick<ChartOptions, 'domain' | 'ticks'> {
  switch (valueType) {
    case VALUE_TYPES.timeOfDay:
    case VALUE_TYPES.timeFromMidday:
      return clockAxis(values);
    case VALUE_TYPES.period:
      return hourAxis(values);
    case VALUE_TYPES.scale:
      return { domain: [1, 9], ticks: [1, 3, 5, 7, 9] };
    case VALUE_TYPES.boolean:
      return { domain: [0, 1], ticks: [0, 1] };
    default:
      return {};
  }
}

/** Yes/no days: a day not ticked is a "no" (0), never a missing value (docs/pages.md, "Tags"). */
export function tagDays(points: readonly DayPoint[]): DayPoint[] {
  return points.map((p) => ({ date: p.date, value: p.value !== null && p.value >= 1 ? 1 : 0 }));
}

/** How often a tag was ticked: days, of how many, and as days per week. */
export function tagSummary(points: readonly DayPoint[]): { ticked: number; days: number; perWeek: number } {
  const ticked = points.filter((p) => p.value !== null && p.value >= 1).length;
  return { ticked, days: points.length, perWeek: points.length === 0 ? 0 : (ticked / points.length) * 7 };
}

/** What a chart is given and how it reads: days as they are up to four months, weeks past that (web/weekly.ts). */
function chartShape(valueType: number, points: DayPoint[]): Pick<ChartOptions, 'points' | 'kind' | 'format' | 'domain' | 'ticks'> & { words: string } {
  const long = points.length > DAILY_UP_TO;
  if (valueType === VALUE_TYPES.boolean) {
    return long
      ? { points: daysPerWeek(points), kind: 'bars', format: (v) => String(v), domain: [0, 7], ticks: [0, 2, 4, 6], words: 'Bars of the days per week' }
      : { points: tagDays(points), kind: 'ticks', format: axisFormat(valueType), words: 'A tick on each day' };
  }
  const values = points.flatMap((p) => (p.value === null ? [] : [p.value]));
  const axis = fixedAxis(valueType, values);
  const clock = valueType === VALUE_TYPES.timeOfDay || valueType === VALUE_TYPES.timeFromMidday;
  const format = axisFormat(valueType);
  const how = clock && axis.domain ? `Dots on a clock from ${format(axis.domain[0])} to ${format(axis.domain[1])}` : kindWords(valueType);
  if (!long) return { points, kind: chartKind(valueType), format, ...axis, words: how };
  const range = chartKind(valueType) === 'line' ? 'a band from its lowest to its highest day' : 'a whisker from its lowest to its highest day';
  return { points: weeklyMeans(points), kind: chartKind(valueType), format, ...axis, words: `${how} of each week's mean, with ${range},` };
}

/** The chart of an attribute's days (a year's by week), with the median (and anything else) marked. */
export function attributeChart(input: {
  label: string;
  valueType: number;
  points: DayPoint[];
  marks?: ChartOptions['marks'];
  width?: number;
  height?: number;
  minLeft?: number;
  titleSuffix?: string;
}): Html {
  const withValue = input.points.filter((p) => p.value !== null).length;
  const first = input.points[0]?.date;
  const last = input.points.at(-1)?.date;
  const { words, ...shape } = chartShape(input.valueType, input.points);
  const byWeek = input.points.length > DAILY_UP_TO ? ', by week' : '';
  const tag = input.valueType === VALUE_TYPES.boolean;
  const counted = tag
    ? `${tagSummary(input.points).ticked} of ${input.points.length} days ticked; a day not ticked counts as no.`
    : `${withValue} of ${input.points.length} days have a value; days without one are left empty.`;
  return dayChart({
    title: `${input.label}${input.titleSuffix ?? `, the last ${input.points.length} days`}${byWeek}`,
    desc: `${words} of ${input.label} from ${first} to ${last}: ${counted}${(input.marks ?? []).map((m) => ` ${m.label}.`).join('')}`,
    marks: input.marks,
    width: input.width,
    height: input.height,
    minLeft: input.minLeft,
    ...shape,
  });
}

function kindWords(valueType: number): string {
  const kind = chartKind(valueType);
  return kind === 'bars' ? 'Bars' : kind === 'line' ? 'A line' : 'Dots';
}

/** A median or mean as precise as a person reads it: whole minutes for times and durations. */
export function roundFor(type: number, value: number): number {
  if (type === VALUE_TYPES.period || type === VALUE_TYPES.timeOfDay || type === VALUE_TYPES.timeFromMidday || type === VALUE_TYPES.boolean)
    return Math.round(value);
  if (type === VALUE_TYPES.percentage) return Math.round(value * 1000) / 1000;
  return Math.round(value * 10) / 10;
}

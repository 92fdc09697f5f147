/**
 * How an attribute's values are pictured, by value type (docs/pages.md, "Charts"): bars for
 * counts (integers), a line for quantities (numbers, durations, percentages), dots for scales and
 * yes/no, and dots on a 24-hour clock axis for times of day. Text values (notes) are not charted.
 */
import { VALUE_TYPES } from '../db/catalogue-value-types';
import type { JsonValue, ValueObject } from '../domain/tracking/values';
import type { Html } from './html';
import { dayChart, type ChartKind, type ChartOptions, type DayPoint } from './charts';
import { formatValue } from './values';

const DAY = 24 * 60;
const CLOCK_TICKS = [0, 6 * 60, 12 * 60, 18 * 60, DAY];

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

/** The fixed value axis of a type whose range is known (a clock, 1-9, yes/no). */
function fixedAxis(valueType: number): Pick<ChartOptions, 'domain' | 'ticks'> {
  switch (valueType) {
    case VALUE_TYPES.timeOfDay:
    case VALUE_TYPES.timeFromMidday:
      return { domain: [0, DAY], ticks: CLOCK_TICKS };
    case VALUE_TYPES.scale:
      return { domain: [1, 9], ticks: [1, 3, 5, 7, 9] };
    case VALUE_TYPES.boolean:
      return { domain: [0, 1], ticks: [0, 1] };
    default:
      return {};
  }
}

/** The chart of an attribute's days, with the median (and anything else) marked. */
export function attributeChart(input: {
  label: string;
  valueType: number;
  points: DayPoint[];
  marks?: ChartOptions['marks'];
  width?: number;
  height?: number;
  titleSuffix?: string;
}): Html {
  const withValue = input.points.filter((p) => p.value !== null).length;
  const first = input.points[0]?.date;
  const last = input.points.at(-1)?.date;
  return dayChart({
    title: `${input.label}${input.titleSuffix ?? `, the last ${input.points.length} days`}`,
    desc: `${kindWords(input.valueType)} of ${input.label} from ${first} to ${last}: ${withValue} of ${input.points.length} days have a value; days without one are left empty.${(input.marks ?? []).map((m) => ` ${m.label}.`).join('')}`,
    points: input.points,
    kind: chartKind(input.valueType),
    format: axisFormat(input.valueType),
    marks: input.marks,
    width: input.width,
    height: input.height,
    ...fixedAxis(input.valueType),
  });
}

function kindWords(valueType: number): string {
  const kind = chartKind(valueType);
  if (valueType === VALUE_TYPES.timeOfDay || valueType === VALUE_TYPES.timeFromMidday) return 'Dots on a 24-hour clock';
  return kind === 'bars' ? 'Bars' : kind === 'line' ? 'A line' : 'Dots';
}

/** A median or mean as precise as a person reads it: whole minutes for times and durations. */
export function roundFor(type: number, value: number): number {
  if (type === VALUE_TYPES.period || type === VALUE_TYPES.timeOfDay || type === VALUE_TYPES.timeFromMidday || type === VALUE_TYPES.boolean)
    return Math.round(value);
  if (type === VALUE_TYPES.percentage) return Math.round(value * 1000) / 1000;
  return Math.round(value * 10) / 10;
}

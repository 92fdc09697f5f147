/**
 * Values as people read and type them in the pages, for each value type (openapi/common/schemas/ValueType.yaml): a period as
 * hours and minutes, a time of day as HH:MM (types 4 and 6 differ only in where they count from),
 * a percentage in per cent, a boolean as yes or no. Only presentation: what a value may be is
 * decided by domain/tracking/writes/value-rules.ts when it is written.
 */
import { VALUE_TYPES } from '../db/catalogue-value-types';
import type { JsonValue } from '../domain/tracking/values';

const MINUTES_PER_DAY = 24 * 60;
const MIDDAY = 12 * 60;

function clock(minutesFromMidnight: number): string {
  const m = ((Math.round(minutesFromMidnight) % MINUTES_PER_DAY) + MINUTES_PER_DAY) % MINUTES_PER_DAY;
  return `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;
}

/**
 * The unit to show next to an attribute's label: the template's, for plain numbers only (periods,
 * times, percentages and booleans are shown in their own words, whatever the unit column says).
 */
export function displayUnit(valueType: number, unit: string | null): string | null {
  return valueType === VALUE_TYPES.integer || valueType === VALUE_TYPES.float ? unit : null;
}

/** A stored value as a person reads it (its unit is shown with the label: `displayUnit`). */
export function formatValue(valueType: number, value: JsonValue): string {
  if (value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value !== 'number') return String(value);
  switch (valueType) {
    case VALUE_TYPES.period: {
      const hours = Math.floor(value / 60);
      return hours > 0 ? `${hours} h ${value % 60} min` : `${value} min`;
    }
    case VALUE_TYPES.timeOfDay:
      return clock(value);
    case VALUE_TYPES.timeFromMidday:
      return clock(value + MIDDAY);
    case VALUE_TYPES.percentage:
      return `${Math.round(value * 1000) / 10} %`;
    case VALUE_TYPES.boolean:
      return value === 1 ? 'Yes' : 'No';
    default:
      return String(value);
  }
}

/** The value as the page's input shows it for editing (the inverse of `parseTypedValue`). */
export function inputValue(valueType: number, value: JsonValue): string {
  if (value === null) return '';
  if (typeof value === 'number') {
    // A duration is offered back as h:mm, the way it is typed (docs/pages.md, "The day's form").
    if (valueType === VALUE_TYPES.period) return `${Math.floor(value / 60)}:${String(Math.round(value % 60)).padStart(2, '0')}`;
    if (valueType === VALUE_TYPES.timeOfDay) return clock(value);
    if (valueType === VALUE_TYPES.timeFromMidday) return clock(value + MIDDAY);
    if (valueType === VALUE_TYPES.percentage) return String(Math.round(value * 1000) / 10);
  }
  return String(value);
}

/** What the input for a value type asks for, shown next to it. */
export function inputHint(valueType: number): string {
  switch (valueType) {
    case VALUE_TYPES.period:
      return 'h:mm';
    case VALUE_TYPES.timeOfDay:
    case VALUE_TYPES.timeFromMidday:
      return 'HH:MM';
    case VALUE_TYPES.percentage:
      return 'per cent, 0 to 100';
    case VALUE_TYPES.scale:
      return '1 to 9';
    case VALUE_TYPES.integer:
      return 'a whole number';
    case VALUE_TYPES.float:
      return 'a number';
    default:
      return '';
  }
}

/** The JSON value a typed text stands for, or a sentence saying what was expected. */
export function parseTypedValue(valueType: number, text: string): { value: number | string } | { problem: string } {
  if (valueType === VALUE_TYPES.string) return { value: text };
  const typed = text.trim().replace(',', '.');
  if (typed === '') return { problem: 'Type a value first.' };
  const hhmm = /^(\d{1,2}):(\d{2})$/.exec(typed);
  switch (valueType) {
    case VALUE_TYPES.timeOfDay:
    case VALUE_TYPES.timeFromMidday: {
      if (!hhmm || Number(hhmm[1]) > 23 || Number(hhmm[2]) > 59) return { problem: `"${text}" is not a time of day: use HH:MM, e.g. 07:30.` };
      const minutes = Number(hhmm[1]) * 60 + Number(hhmm[2]);
      return { value: valueType === VALUE_TYPES.timeOfDay ? minutes : (minutes - MIDDAY + MINUTES_PER_DAY) % MINUTES_PER_DAY };
    }
    case VALUE_TYPES.period:
      return parseDuration(text, typed);
    case VALUE_TYPES.boolean:
      if (/^(yes|true|1)$/i.test(typed)) return { value: 1 };
      if (/^(no|false|0)$/i.test(typed)) return { value: 0 };
      return { problem: `"${text}" is not yes or no.` };
    default:
      break;
  }
  const number = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(typed) ? Number(typed) : Number.NaN;
  if (!Number.isFinite(number)) return { problem: `"${text}" is not a number.` };
  // Counts and measures typed by hand are never below zero (docs/pages.md, "Values typed by hand").
  if (number < 0) return { problem: `${text} is below zero: type 0 or more.` };
  if (valueType === VALUE_TYPES.percentage) return { value: number / 100 };
  return { value: number };
}

/**
 * A duration typed by hand: h:mm (7:45), hours and minutes in words (7h 45m, 7 h 45 min, 45 min)
 * or plain minutes (45); at most 24 hours, as a day holds no more (docs/pages.md, "Values typed by hand").
 */
function parseDuration(text: string, typed: string): { value: number } | { problem: string } {
  const hint = 'type hours and minutes as h:mm, e.g. 7:30 (or minutes, e.g. 45)';
  const clockForm = /^(\d{1,2}):([0-5]\d)$/.exec(typed);
  const words = /^(?:(\d{1,2})\s*h(?:ours?|rs?)?)?\s*(?:(\d{1,4})\s*m(?:in(?:utes?|s)?)?)?$/i.exec(typed);
  let minutes: number;
  if (clockForm) minutes = Number(clockForm[1]) * 60 + Number(clockForm[2]);
  else if (/^\d{1,4}$/.test(typed)) minutes = Number(typed);
  else if (words && (words[1] !== undefined || words[2] !== undefined)) minutes = Number(words[1] ?? 0) * 60 + Number(words[2] ?? 0);
  else if (typed.startsWith('-')) return { problem: `${text} is below zero: a duration is 0:00 or more.` };
  else return { problem: `"${text}" is not a duration: ${hint}.` };
  if (minutes > MINUTES_PER_DAY) return { problem: `${text} is more than a day: a duration is at most 24:00.` };
  return { value: minutes };
}

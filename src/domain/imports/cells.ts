/**
 * Reading a file's value by the target attribute's value type (docs/imports.md, "Cells"). CSV
 * gives text; JSON and Apple Health give numbers, strings and booleans. The result then goes
 * through the write rules (value-rules.ts `checkValue`) like any API write, so a value the API
 * would refuse is refused here too, with the same sentence.
 *
 * Text is read as: a number (`12`, `-3.5`, `1e3`; a decimal comma is not read: `1,5` is refused);
 * for booleans and tags also `true`/`false`, `yes`/`no`; for percentages also `45%` (0.45); for
 * periods `h:mm` (minutes); for times of day `HH:MM` (minutes from midnight, or from midday for
 * value type 6). An empty cell is no value (the day is left alone), not an error.
 */
import { ItemError } from '../tracking/writes/batch';

const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const CLOCK = /^(\d{1,3}):([0-5]\d)$/;
const TRUE_WORDS = new Set(['true', 'yes', 'y']);
const FALSE_WORDS = new Set(['false', 'no', 'n']);

/** An empty cell: the file has no value for that day. */
export const NO_VALUE = Symbol('no value');

function clockMinutes(text: string): number | undefined {
  const match = CLOCK.exec(text);
  return match ? Number(match[1]) * 60 + Number(match[2]) : undefined;
}

/** A cell's text as the value type reads it; `NO_VALUE` for an empty cell. Throws `validation` when it cannot be read. */
function readText(valueType: number, raw: string): number | string | typeof NO_VALUE {
  if (valueType === 2) return raw;
  const text = raw.trim();
  if (text === '') return NO_VALUE;
  if (NUMBER.test(text)) return Number(text);
  const lower = text.toLowerCase();
  if (valueType === 7 || valueType === 0) {
    if (TRUE_WORDS.has(lower)) return 1;
    if (FALSE_WORDS.has(lower)) return 0;
  }
  if (valueType === 5 && text.endsWith('%') && NUMBER.test(text.slice(0, -1).trim())) return Number(text.slice(0, -1).trim()) / 100;
  const minutes = clockMinutes(text);
  if (minutes !== undefined) {
    if (valueType === 3) return minutes;
    if (valueType === 4 && minutes < 24 * 60) return minutes;
    // Minutes from midday: 22:30 is 630, 01:30 (after midnight) is 810.
    if (valueType === 6 && minutes < 24 * 60) return (minutes - 12 * 60 + 24 * 60) % (24 * 60);
  }
  throw new ItemError('validation', `${JSON.stringify(raw)} is not a value of this attribute's type (${TYPE_WORDS[valueType] ?? 'number'}).`);
}

const TYPE_WORDS: Record<number, string> = {
  0: 'an integer',
  1: 'a number',
  3: 'minutes, or h:mm',
  4: 'minutes from midnight, or HH:MM',
  5: 'a fraction from 0.0 to 1.0, or a percentage like 45%',
  6: 'minutes from midday, or HH:MM',
  7: '0 or 1, true or false',
  8: 'an integer from 1 to 9',
};

/**
 * The value a file gives, read for an attribute of `valueType`: text is read as above, a boolean
 * is 0 or 1, a number stays a number (for a string attribute, it becomes its text).
 */
export function readFileValue(valueType: number, value: number | string | boolean): number | string | typeof NO_VALUE {
  if (typeof value === 'string') return readText(valueType, value);
  if (typeof value === 'boolean') return value ? 1 : 0;
  return valueType === 2 ? String(value) : value;
}

/**
 * What a day's value may be (docs/decisions.md, "Values and writes"): its JSON type follows the attribute's
 * value type, plus the ranges the v2 document states, and nothing further (its "Dates, units and
 * values": values are validated only broadly). A value is never null: a day, once set, can be overwritten but not cleared.
 */
import { ItemError, hasNul } from './batch';
import { isSupportedDate } from '../../time';
import { isCustomTag } from '../custom-tag';
import { CUSTOM_STRING_TEMPLATE, fitCustomText } from './custom-text';

/** The attribute facts the rules depend on. */
export interface ValueTarget {
  name: string;
  template_name: string | null;
  group_name: string;
  value_type: number;
  priority: number;
}

/** A custom tag (src/domain/tracking/custom-tag.ts): 1 on the days it was used, 0 otherwise. */
function isTagTarget(target: ValueTarget): boolean {
  return isCustomTag({ group: target.group_name, valueType: target.value_type, priority: target.priority });
}

const INTEGER_TYPES = new Set([0, 3, 4, 6, 7, 8]);
/**
 * String (2), scale (8) and the two time-of-day types (4, 6) cannot be incremented (the v2 document's `incrementAttributeValues`). A
 * boolean (7) can: its total is checked like any written value, so it stays 0 or 1.
 */
const NOT_INCREMENTABLE: Record<number, string> = { 2: 'a string', 4: 'a time of day', 6: 'a time of day', 8: 'a scale' };

export const MOOD_NOTE_MAX_LENGTH = 1000;

/** The template an attribute follows for the limits the v2 document names (mood, mood_note). */
function templateOf(target: ValueTarget): string {
  return target.template_name ?? target.name;
}

/** Checks a value against the attribute's rules; throws `validation` with a sentence naming the problem. */
export function checkValue(target: ValueTarget, value: unknown): number | string {
  const subject = `Attribute ${target.name}`;
  if (value === null || value === undefined) {
    throw new ItemError('validation', `${subject}: a value cannot be null; a day's value can be overwritten but never cleared.`);
  }
  const type = target.value_type;
  if (type === 2) {
    if (typeof value !== 'string') throw new ItemError('validation', `${subject} takes a string value.`);
    if (hasNul(value)) throw new ItemError('validation', `${subject}: a value must not contain the NUL character (U+0000).`);
    if (templateOf(target) === 'mood_note' && [...value].length > MOOD_NOTE_MAX_LENGTH) {
      throw new ItemError('validation', `${subject}: a mood note is at most ${MOOD_NOTE_MAX_LENGTH} characters.`);
    }
    // The day's custom text is kept to 250 characters, whole tags first (custom-text.ts).
    return templateOf(target) === CUSTOM_STRING_TEMPLATE ? fitCustomText(value) : value;
  }
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    const kind = INTEGER_TYPES.has(type) ? 'an integer' : 'a number';
    throw new ItemError('validation', `${subject} takes ${kind} value, not ${JSON.stringify(value)}.`);
  }
  if (INTEGER_TYPES.has(type) && !Number.isInteger(value)) {
    throw new ItemError('validation', `${subject} takes an integer value; ${value} is not one.`);
  }
  checkRange(target, value);
  return value;
}

/** Does checkRange limit this attribute's totals? (Then an increment's success depends on what is stored.) */
export function hasRange(target: ValueTarget): boolean {
  return isTagTarget(target) || target.value_type === 7 || target.value_type === 8 || target.value_type === 5 || templateOf(target) === 'mood';
}

/** The ranges the v2 document states, for a whole day's value (also checked on an increment's total). */
function checkRange(target: ValueTarget, value: number): void {
  const subject = `Attribute ${target.name}`;
  if (isTagTarget(target) && value !== 0 && value !== 1) {
    throw new ItemError('validation', `${subject} is a custom tag: 1 on a day it was used, 0 otherwise (not ${value}).`);
  }
  if (target.value_type === 7 && value !== 0 && value !== 1) throw new ItemError('validation', `${subject} is a boolean: 0 or 1.`);
  if (target.value_type === 8 && (value < 1 || value > 9)) throw new ItemError('validation', `${subject} is a scale from 1 to 9.`);
  if (target.value_type === 5 && (value < 0 || value > 1)) throw new ItemError('validation', `${subject} is a percentage from 0.0 to 1.0.`);
  if (templateOf(target) === 'mood' && (value < 1 || value > 9)) throw new ItemError('validation', `${subject} is an integer from 1 to 9.`);
}

/** Checks an increment's delta; throws `validation` for attributes that cannot be incremented. */
export function checkDelta(target: ValueTarget, delta: unknown): number {
  const refused = NOT_INCREMENTABLE[target.value_type];
  if (refused) throw new ItemError('validation', `Attribute ${target.name} is ${refused} and cannot be incremented.`);
  if (typeof delta !== 'number' || !Number.isFinite(delta)) {
    throw new ItemError('validation', `Attribute ${target.name}: an increment is a number, not ${JSON.stringify(delta)}.`);
  }
  if (INTEGER_TYPES.has(target.value_type) && !Number.isInteger(delta)) {
    throw new ItemError('validation', 'Cannot apply a float to an integer type.');
  }
  return delta;
}

/** Checks the total an increment leads to against the same ranges as a written value. */
export function checkTotal(target: ValueTarget, total: number): void {
  checkRange(target, total);
}

/** A date field: a real calendar day `YYYY-mm-dd`. */
export function checkDate(index: number, value: unknown): string {
  if (typeof value !== 'string') throw new ItemError('invalid_type', `Item ${index}: date must be a string YYYY-mm-dd.`);
  if (!isSupportedDate(value)) throw new ItemError('validation', `Item ${index}: ${value} is not a calendar date YYYY-mm-dd.`);
  return value;
}

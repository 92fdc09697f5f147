/**
 * One field of an exported CSV file (RFC 4180), safe to open in a spreadsheet whatever separator it
 * splits on (docs/security.md, "Pages, exports and headers"). A spreadsheet runs a cell that
 * starts with `=`, `+`, `-` or `@` as a formula, and a tab or carriage return there can carry one
 * (OWASP, "CSV Injection"). Our separator is the comma, but a spreadsheet set to split on `;`, tab
 * or `|` (common where the comma is the decimal mark) starts a cell after any of those characters
 * inside a note, and one that ignores quotes also after a comma or a line break. So, in text:
 *
 * - wherever a cell could start (the field's start, or just after any of `, ; tab | CR LF`), and
 *   the next character past any spaces and double quotes is one of `= + - @ tab CR`, an apostrophe
 *   is put there: spreadsheets show it as "the rest is text" and never run it;
 * - the field is always quoted, its double quotes doubled.
 *
 * Numbers are written as they are, negative ones included: a number literal such as `-5` or
 * `-1.5e-7` is read as a number, never run, and guarding it would turn it into text.
 */
import type { JsonValue } from '../tracking/values';

/** A place a cell may start (lookbehind) followed by what would start a formula there. */
const FORMULA_START = /(?<=^|[,;\t|\r\n])(?=[ "]*[=+\-@\t\r])/g;

/** The text with an apostrophe wherever a cell of it could start a formula. */
export function neutraliseFormulas(text: string): string {
  return text.replace(FORMULA_START, "'");
}

export function csvField(value: JsonValue | string): string {
  if (value === null) return '';
  if (typeof value === 'number') return String(value);
  return `"${neutraliseFormulas(value).replace(/"/g, '""')}"`;
}

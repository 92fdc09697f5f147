/**
 * The dates a CSV file may use (docs/imports-csv.md, "Dates"). A date is the person's local day as
 * written; a time after it is ignored (no zone conversion: a spreadsheet's day is the day).
 *
 * - `YYYY-MM-DD` (ISO 8601, what Daybook writes) or `YYYY/MM/DD`, month and day of one or two
 *   digits, optionally followed by `T` or a space and anything (a time);
 * - `DD.MM.YYYY`: day first, as everywhere dots are used;
 * - `DD/MM/YYYY` or `MM/DD/YYYY`: the file decides. A date whose first number is over 12 makes the
 *   file day-first; one whose second is, month-first. A file with slashed dates and neither kind of
 *   evidence is refused at its first slashed date (03/04/2024 is 3 April or March 4th, and guessing
 *   would shift every value silently).
 * Two-digit years and month names are not read.
 */
import { isSupportedDate } from '../../time';

export type SlashOrder = 'day-first' | 'month-first';

const YEAR_FIRST = /^(\d{4})[-/](\d{1,2})[-/](\d{1,2})(?:[T ].*)?$/;
const DOTTED = /^(\d{1,2})\.(\d{1,2})\.(\d{4})(?:[T ].*)?$/;
const SLASHED = /^(\d{1,2})\/(\d{1,2})\/(\d{4})(?:[T ].*)?$/;

function iso(year: string, month: string, day: string): string | undefined {
  const date = `${year}-${month.padStart(2, '0')}-${day.padStart(2, '0')}`;
  return isSupportedDate(date) ? date : undefined;
}

/** What a slashed date says about the file's order (undefined when it is not slashed or says nothing). */
export function slashEvidence(text: string): SlashOrder | undefined {
  const m = SLASHED.exec(text);
  if (!m) return undefined;
  if (Number(m[1]) > 12) return 'day-first';
  if (Number(m[2]) > 12) return 'month-first';
  return undefined;
}

export function isSlashed(text: string): boolean {
  return SLASHED.test(text);
}

/** The date as YYYY-MM-DD, or undefined when the text is no date of the forms above (slashed ones read in `order`). */
export function readDate(text: string, order: SlashOrder | undefined): string | undefined {
  let m = YEAR_FIRST.exec(text);
  if (m) return iso(m[1], m[2], m[3]);
  m = DOTTED.exec(text);
  if (m) return iso(m[3], m[2], m[1]);
  m = SLASHED.exec(text);
  if (m && order) return order === 'day-first' ? iso(m[3], m[2], m[1]) : iso(m[3], m[1], m[2]);
  return undefined;
}

/** Days since 1970-01-01 of a YYYY-MM-DD date (proleptic Gregorian, any year), for sets of days. */
export function dayNumber(date: string): number {
  const year = Number(date.slice(0, 4));
  const month = Number(date.slice(5, 7));
  const day = Number(date.slice(8, 10));
  // Howard Hinnant's days_from_civil: years counted from March so the leap day is the era's last.
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146097 + dayOfEra - 719468;
}

/** A set of days in little bitmaps (64 bytes per 512 days): one per column, to find a day given twice. */
export class DaySet {
  private readonly blocks = new Map<number, Uint8Array>();

  /** Adds the day; false when it was there already. */
  add(day: number): boolean {
    const key = Math.floor(day / 512);
    let block = this.blocks.get(key);
    if (!block) {
      block = new Uint8Array(64);
      this.blocks.set(key, block);
    }
    const bit = day - key * 512;
    const mask = 1 << (bit & 7);
    if (block[bit >> 3] & mask) return false;
    block[bit >> 3] |= mask;
    return true;
  }
}

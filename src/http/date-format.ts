/**
 * ajv's `date` format (RFC 3339 full-date) as a function of character codes. ajv-formats' full
 * mode checks it with a regular expression with three captures, three number conversions and a
 * table (about 0.3 us per date-valued field: every item of a write batch has one). This is the same
 * rule, checked over every day of the years 0000-9999 and malformed strings in
 * test/http/date-format.test.ts, without the captures.
 */

const DASH = 0x2d;
const ZERO = 0x30;

/** The number the ASCII digits `text[from, to)` spell, or -1 if any of them is not one. */
function digitsAt(text: string, from: number, to: number): number {
  let value = 0;
  for (let i = from; i < to; i++) {
    const digit = text.charCodeAt(i) - ZERO;
    if (digit < 0 || digit > 9) return -1;
    value = value * 10 + digit;
  }
  return value;
}

/** Days in a month (1-12) of a year: February has 29 in years divisible by 4 but centuries not divisible by 400 (so year 0 has one). */
function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/**
 * ajv-formats' full-mode `date`: exactly `YYYY-MM-DD` in ASCII digits, month 01-12, day from 01 to
 * the month's last (any year 0000-9999).
 */
export function isFullDate(text: string): boolean {
  if (text.length !== 10 || text.charCodeAt(4) !== DASH || text.charCodeAt(7) !== DASH) return false;
  const year = digitsAt(text, 0, 4);
  const month = digitsAt(text, 5, 7);
  const day = digitsAt(text, 8, 10);
  return year >= 0 && month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month);
}

/** Dates and times in a person's timezone: every "today" in Daybook is the user's local date. */
import type { Database } from '../db/database';
import { sql, type Sql } from '../db/sql';

/** True when `zone` is an IANA zone name this runtime knows. */
export function isValidTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return zone.length > 0;
  } catch {
    return false;
  }
}

/**
 * One formatter per zone, made once: building an Intl.DateTimeFormat costs far more than using it
 * (it was the largest item of a request's own CPU time in the bench's profile). Only zones that
 * construct are kept (stored profile zones are validated), and the cache is emptied if it ever
 * grows past any real set of zones.
 */
const FORMATS = new Map<string, Intl.DateTimeFormat>();
const MAX_CACHED_ZONES = 1000;

function formatFor(zone: string): Intl.DateTimeFormat {
  let format = FORMATS.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      timeZoneName: 'longOffset',
    });
    if (FORMATS.size >= MAX_CACHED_ZONES) FORMATS.clear();
    FORMATS.set(zone, format);
  }
  return format;
}

/** The zone's UTC offset at `instant`, in seconds east of UTC, from Intl (the authority on zones). */
function offsetFromIntl(instant: Date, zone: string): number {
  // timeZoneName 'longOffset' is "GMT+13:00", "GMT-03:30", "GMT+00:19:32" (old local mean times), or plain "GMT".
  const name =
    formatFor(zone)
      .formatToParts(instant)
      .find((part) => part.type === 'timeZoneName')?.value ?? 'GMT';
  const match = /^GMT([+-])(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(name);
  if (!match) return 0;
  return (match[1] === '-' ? -1 : 1) * (Number(match[2]) * 3600 + Number(match[3]) * 60 + Number(match[4] ?? 0));
}

/**
 * Offsets are asked of Intl once per zone and quarter of an hour: formatting a date with Intl was
 * the largest item of a cheap request's own CPU (the profile's local time, every "today"). Every
 * zone changes its offset on a quarter-hour boundary (in practice on the hour or half-hour), so
 * the offset found for any instant of a quarter holds for all of it.
 */
const QUARTER_HOUR_MS = 15 * 60_000;
const OFFSETS = new Map<string, { quarter: number; seconds: number }>();

function offsetSeconds(instant: Date, zone: string): number {
  const quarter = Math.floor(instant.getTime() / QUARTER_HOUR_MS);
  const known = OFFSETS.get(zone);
  if (known?.quarter === quarter) return known.seconds;
  const seconds = offsetFromIntl(instant, zone);
  if (OFFSETS.size >= MAX_CACHED_ZONES) OFFSETS.clear();
  OFFSETS.set(zone, { quarter, seconds });
  return seconds;
}

/** The local wall clock in `zone` at `instant`, as the UTC fields of a shifted Date. */
function wallClock(instant: Date, zone: string): { wall: Date; seconds: number } {
  const seconds = offsetSeconds(instant, zone);
  return { wall: new Date(instant.getTime() + seconds * 1000), seconds };
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** The local date `YYYY-mm-dd` in `zone` at `instant`: a person's "today" is this at the service's clock. */
export function localDate(instant: Date, zone: string): string {
  return formatDate(wallClock(instant, zone).wall);
}

/**
 * The same rule in SQL, where the instant is a column: the local date in the zone `zone` (a
 * person's `timezone` column) of `instant`. Used where a statement compares stored instants with
 * the person's days; a person's today itself is always `localDate` at the service's clock.
 */
export function localDateIn(instant: Sql, zone: Sql): Sql {
  return sql`(${instant} at time zone ${zone})::date`;
}

/** ISO 8601 local date-time with its UTC offset, e.g. `2026-11-22T16:03:11+13:00`. */
export function localDateTime(instant: Date, zone: string): string {
  const { wall, seconds } = wallClock(instant, zone);
  // ISO 8601 offsets are whole minutes; an old local mean time's seconds are dropped from the label only.
  const minutes = Math.trunc(Math.abs(seconds) / 60);
  const offset = `${seconds < 0 ? '-' : '+'}${pad(Math.floor(minutes / 60))}:${pad(minutes % 60)}`;
  return `${formatDate(wall)}T${pad(wall.getUTCHours())}:${pad(wall.getUTCMinutes())}:${pad(wall.getUTCSeconds())}${offset}`;
}

/** The earliest and latest dates the API accepts: Postgres has no year 0, and dates are written with four digits. */
export const FIRST_DATE = '0001-01-01';
export const LAST_DATE = '9999-12-31';

/**
 * The year of a real calendar date `YYYY-mm-dd` (RFC 3339's full-date: 2026-02-30 is not one), or
 * -1: four, two and two ASCII digits, a month 1-12 and a day within it, by the Gregorian calendar
 * extended to every year 0000-9999. Checked by arithmetic on the characters: the regular
 * expressions and Date round trip it replaces cost ~1 µs per item of a 35-item write
 * (docs/request-path.md, "Issue 35, third stop" and "fourth stop").
 */
function fullDateYear(text: string): number {
  if (text.length !== 10 || text.charCodeAt(4) !== DASH || text.charCodeAt(7) !== DASH) return -1;
  const year = digitsAt(text, 0, 4);
  const month = digitsAt(text, 5, 7);
  const day = digitsAt(text, 8, 10);
  return year >= 0 && month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month) ? year : -1;
}

/**
 * True for a date the API accepts, from 0001-01-01 to 9999-12-31 (`fullDateYear`; Date and
 * PostgreSQL both extend the Gregorian calendar back to year 1, and PostgreSQL has no year 0).
 * test/domain/values.test.ts holds it to the former regular expression and Date round trip.
 */
export function isSupportedDate(date: string): boolean {
  return fullDateYear(date) >= 1;
}

/**
 * The documents' `date` format (RFC 3339 full-date, any year 0000-9999), which request validation
 * checks with this instead of ajv-formats' regular expression with three captures (about 0.3 µs
 * per date-valued field: http/backends.ts). test/http/date-format.test.ts holds it equal to
 * ajv-formats' full-mode `date` on every day of every year and on malformed texts.
 */
export function isFullDate(text: string): boolean {
  return fullDateYear(text) >= 0;
}

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

/** Days in a month (1-12) of a Gregorian year: February has 29 in years divisible by 4, except centuries not divisible by 400 (so year 0 has one). */
function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** Midnight UTC of a calendar date. setUTCFullYear, because Date.UTC maps years 0-99 to 1900-1999. */
function dateFromParts(year: number, month: number, day: number): Date {
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day);
  return d;
}

function formatDate(d: Date): string {
  const year = String(d.getUTCFullYear()).padStart(4, '0');
  return `${year}-${String(d.getUTCMonth() + 1).padStart(2, '0')}-${String(d.getUTCDate()).padStart(2, '0')}`;
}

/** `date` moved by `days` calendar days (negative goes back). Pure date arithmetic: no time zone is involved. */
export function addDays(date: string, days: number): string {
  const [year, month, day] = date.split('-').map(Number);
  return formatDate(dateFromParts(year, month, day + days));
}

/** Calendar days from `from` to `to` (negative when `to` is earlier); both supported dates. */
export function daysBetween(from: string, to: string): number {
  const parts = (date: string) => date.split('-').map(Number) as [number, number, number];
  return Math.round((dateFromParts(...parts(to)).getTime() - dateFromParts(...parts(from)).getTime()) / 86_400_000);
}

/** Weekday of a supported date, 0 Monday .. 6 Sunday. */
export function weekdayOf(date: string): number {
  const [year, month, day] = date.split('-').map(Number);
  return (dateFromParts(year, month, day).getUTCDay() + 6) % 7;
}

/**
 * The `days` dates ending at `last`, newest first, never before FIRST_DATE (the calendar the
 * database knows starts there, so a window reaching past it is cut short).
 */
export function daysEndingAt(last: string, days: number): string[] {
  const dates: string[] = [];
  // One date stepped back a day at a time (what `addDays(last, -i)` gives for each i, without
  // parsing `last` again for every day: 1 % of a with-values request's own CPU).
  const [year, month, day] = last.split('-').map(Number);
  const at = dateFromParts(year, month, day);
  for (let i = 0; i < days; i++) {
    const date = formatDate(at);
    if (date < FIRST_DATE) break;
    dates.push(date);
    at.setUTCDate(at.getUTCDate() - 1);
  }
  return dates;
}

/** The person's today: their local date in their profile's time zone at `now` (UTC if the account is gone). */
export async function userToday(db: Database, userId: number, now: Date): Promise<string> {
  const [row] = await db.read<{ timezone: string }>(sql`select timezone from users where id = ${userId}`);
  return localDate(now, row?.timezone ?? 'UTC');
}

/**
 * The caller's today: from the time zone the credentials' lookup already read when it did
 * (OAuth and simple tokens), else from the database as `userToday`.
 */
export async function principalToday(db: Database, principal: { userId: number; timezone?: string }, now: Date): Promise<string> {
  return principal.timezone !== undefined ? localDate(now, principal.timezone) : userToday(db, principal.userId, now);
}

/**
 * Apple Health's timestamps: "2024-03-10 01:59:00 -0800", the local wall time where the record was
 * made followed by that moment's UTC offset. The local day is the text's own first ten characters,
 * so a value belongs to the day the person lived it wherever they were (docs/apple-health.md,
 * "Days"); the instant (for lengths and overlaps) takes the offset away.
 *
 * Three timestamps a record and two million records a file: they are read by hand, character by
 * character (no regular expression, no Date per record), and the day's text and start are kept from
 * one timestamp to the next, so the many records of one day share one date string (docs/apple-health.md,
 * "Speed and size").
 */

/** One timestamp read. */
export interface AppleTime {
  /** The record's local day, YYYY-MM-DD. */
  date: string;
  /** Milliseconds since the epoch (UTC). */
  epochMs: number;
  /** The record's UTC offset, minutes east of UTC. */
  offsetMin: number;
}

/** "YYYY-MM-DD HH:MM:SS ±HHMM" */
const LENGTH = 25;
const DASH = 0x2d;
const SPACE = 0x20;
const COLON = 0x3a;
const PLUS = 0x2b;
const MINUS = DASH;

/** Reads timestamps, keeping the last day seen (its text and its start) for the next one. */
export class AppleTimeReader {
  private day = '';
  private dayMs = 0;

  /** Reads an Apple timestamp; undefined when the text is not one. */
  read(text: string | undefined): AppleTime | undefined {
    if (text?.length !== LENGTH || !hasShape(text)) return undefined;
    const sign = text.charCodeAt(20);
    if (sign !== PLUS && sign !== MINUS) return undefined;
    if (!text.startsWith(this.day) || this.day === '') {
      this.day = text.slice(0, 10);
      // Out-of-range fields roll over (month 13 is next January), as Date.UTC does.
      this.dayMs = Date.UTC(digits(text, 0, 4), digits(text, 5, 2) - 1, digits(text, 8, 2));
    }
    const offsetMin = (sign === MINUS ? -1 : 1) * (digits(text, 21, 2) * 60 + digits(text, 23, 2));
    const localMs = this.dayMs + ((digits(text, 11, 2) * 60 + digits(text, 14, 2)) * 60 + digits(text, 17, 2)) * 1000;
    return { date: this.day, epochMs: localMs - offsetMin * 60_000, offsetMin };
  }
}

function hasShape(text: string): boolean {
  return (
    text.charCodeAt(4) === DASH &&
    text.charCodeAt(7) === DASH &&
    text.charCodeAt(10) === SPACE &&
    text.charCodeAt(13) === COLON &&
    text.charCodeAt(16) === COLON &&
    text.charCodeAt(19) === SPACE &&
    areDigits(text, 0, 4) &&
    areDigits(text, 5, 7) &&
    areDigits(text, 8, 10) &&
    areDigits(text, 11, 13) &&
    areDigits(text, 14, 16) &&
    areDigits(text, 17, 19) &&
    areDigits(text, 21, 25)
  );
}

function areDigits(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return false;
  }
  return true;
}

/** The number the `n` digits at `from` write (already checked to be digits). */
function digits(text: string, from: number, n: number): number {
  let value = 0;
  for (let i = from; i < from + n; i++) value = value * 10 + text.charCodeAt(i) - 0x30;
  return value;
}

/** Minutes since local midnight (0-1439) of an instant seen at an offset. */
export function localMinuteOfDay(epochMs: number, offsetMin: number): number {
  const minutes = Math.floor((epochMs + offsetMin * 60_000) / 60_000);
  return ((minutes % 1440) + 1440) % 1440;
}

/** The local day (YYYY-MM-DD) of an instant seen at an offset, shifted by `shiftMin` minutes. */
export function localDate(epochMs: number, offsetMin: number, shiftMin = 0): string {
  return new Date(epochMs + (offsetMin + shiftMin) * 60_000).toISOString().slice(0, 10);
}

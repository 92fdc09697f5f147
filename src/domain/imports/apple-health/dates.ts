/**
 * Apple Health's timestamps: "2024-03-10 01:59:00 -0800", the local wall time where the record was
 * made followed by that moment's UTC offset. The local day is the text's own first ten characters,
 * so a value belongs to the day the person lived it wherever they were (docs/apple-health.md,
 * "Days"); the instant (for lengths and overlaps) takes the offset away.
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

const SHAPE = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2}) ([+-])(\d{2})(\d{2})$/;

/** Reads an Apple timestamp; undefined when the text is not one. */
export function parseAppleTime(text: string | undefined): AppleTime | undefined {
  if (text === undefined) return undefined;
  const m = SHAPE.exec(text);
  if (m === null) return undefined;
  const [, y, mo, d, h, mi, s, sign, oh, om] = m;
  const offsetMin = (sign === '-' ? -1 : 1) * (Number(oh) * 60 + Number(om));
  const localMs = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  return { date: text.slice(0, 10), epochMs: localMs - offsetMin * 60_000, offsetMin };
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

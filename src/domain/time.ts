/** Dates and times in a person's timezone: every "today" in Daybook is the user's local date. */

/** True when `zone` is an IANA zone name this runtime knows. */
export function isValidTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return zone.length > 0;
  } catch {
    return false;
  }
}

function parts(instant: Date, zone: string): Record<string, string> {
  const format = new Intl.DateTimeFormat('en-US', {
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
  return Object.fromEntries(format.formatToParts(instant).map((part) => [part.type, part.value]));
}

/** The local date `YYYY-mm-dd` in `zone` at `instant`. */
export function localDate(instant: Date, zone: string): string {
  const p = parts(instant, zone);
  return `${p.year}-${p.month}-${p.day}`;
}

/** ISO 8601 local date-time with its UTC offset, e.g. `2026-11-22T16:03:11+13:00`. */
export function localDateTime(instant: Date, zone: string): string {
  const p = parts(instant, zone);
  // timeZoneName 'longOffset' is "GMT+13:00", or plain "GMT" for UTC itself.
  const offset = p.timeZoneName === 'GMT' ? '+00:00' : p.timeZoneName.replace('GMT', '');
  return `${p.year}-${p.month}-${p.day}T${p.hour}:${p.minute}:${p.second}${offset}`;
}

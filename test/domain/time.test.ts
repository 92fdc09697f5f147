/**
 * Local dates and times come from each zone's offset, asked of Intl once per quarter of an hour
 * (domain/time.ts); they must agree with Intl's own formatting at every instant, across daylight
 * saving changes and for zones with odd offsets.
 */
import { localDate, localDateTime } from '../../src/domain/time';

const formats = new Map<string, Intl.DateTimeFormat>();

/** Intl's own local date-time, the reference. */
function reference(instant: Date, zone: string): string {
  if (!formats.has(zone)) {
    formats.set(
      zone,
      new Intl.DateTimeFormat('en-US', {
        timeZone: zone,
        hourCycle: 'h23',
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
        hour: '2-digit',
        minute: '2-digit',
        second: '2-digit',
        timeZoneName: 'longOffset',
      }),
    );
  }
  const parts = Object.fromEntries(
    formats
      .get(zone)!
      .formatToParts(instant)
      .map((p) => [p.type, p.value]),
  );
  const offset = parts.timeZoneName === 'GMT' ? '+00:00' : parts.timeZoneName.replace('GMT', '');
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}${offset}`;
}

const ZONES = [
  'UTC',
  'Europe/Berlin',
  'America/New_York',
  'Australia/Lord_Howe',
  'Asia/Kathmandu',
  'Pacific/Chatham',
  'Pacific/Kiritimati',
  'America/St_Johns',
  'Australia/Eucla',
];

test.each(ZONES)('%s: instants all through 2026, across its offset changes, agree with Intl', (zone) => {
  const instants: Date[] = [];
  // Every 193 minutes and 17.345 s through the year: every hour and quarter of the day is met on some day.
  for (let t = Date.UTC(2026, 0, 1); t < Date.UTC(2027, 0, 1); t += 193 * 60_000) instants.push(new Date(t + 17_345));
  // Walked in order, then backwards, so the per-zone cache is hit and missed at every change.
  // Disagreements are gathered and compared once (an expect per instant made this file slow).
  const disagreements: string[] = [];
  for (const instant of [...instants, ...instants.reverse()]) {
    const expected = reference(instant, zone);
    const [dateTime, date] = [localDateTime(instant, zone), localDate(instant, zone)];
    if (dateTime !== expected || date !== expected.slice(0, 10)) disagreements.push(`${instant.toISOString()}: ${dateTime} / ${date}, Intl ${expected}`);
  }
  expect(instants.length).toBeGreaterThan(2700);
  expect(disagreements).toEqual([]);
});

test('the minute after a daylight saving change already has the new offset', () => {
  // Berlin: 2026-03-29 01:00 UTC, +01:00 -> +02:00.
  expect(localDateTime(new Date('2026-03-29T00:59:59Z'), 'Europe/Berlin')).toBe('2026-03-29T01:59:59+01:00');
  expect(localDateTime(new Date('2026-03-29T01:00:00Z'), 'Europe/Berlin')).toBe('2026-03-29T03:00:00+02:00');
  // Lord Howe moves by half an hour: 2026-04-04 15:00 UTC (02:00 local on 5 April), +11:00 -> +10:30.
  expect(localDateTime(new Date('2026-04-04T14:59:00Z'), 'Australia/Lord_Howe')).toBe('2026-04-05T01:59:00+11:00');
  expect(localDateTime(new Date('2026-04-04T15:00:00Z'), 'Australia/Lord_Howe')).toBe('2026-04-05T01:30:00+10:30');
});

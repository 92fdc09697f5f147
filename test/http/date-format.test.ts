/**
 * ajv's `date` format as the service registers it (`isFullDate` in domain/time.ts) answers as ajv-formats'
 * full-mode `date` does, which it replaces for speed: for every day number 00-32 of every month
 * 00-13 of every year 0000-9999, and for malformed strings.
 */
import { fullFormats } from 'ajv-formats/dist/formats';
import { isFullDate } from '../../src/domain/time';

const ajvFormatsDate = (fullFormats.date as { validate: (text: string) => boolean }).validate;
const pad = (n: number, width: number) => String(n).padStart(width, '0');

/** The texts on which the two disagree (none expected). */
function disagreements(texts: readonly string[]): string[] {
  const differ: string[] = [];
  for (const text of texts) if (isFullDate(text) !== ajvFormatsDate(text)) differ.push(text);
  return differ;
}

/** The texts of every day number 00-32 of every month 00-13 of a year. */
function everyDayNumber(year: number): string[] {
  const texts: string[] = [];
  for (let month = 0; month <= 13; month++) for (let day = 0; day <= 32; day++) texts.push(`${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}`);
  return texts;
}

// 4.62 million texts: a few seconds, more on a busy machine.
test('every day number of every month of the years 0000-9999 is a date exactly when ajv-formats says so', () => {
  const differ: string[] = [];
  for (let year = 0; year <= 9999; year++) differ.push(...disagreements(everyDayNumber(year)));
  expect(differ).toEqual([]);
  expect([isFullDate('0000-02-29'), isFullDate('1900-02-29'), isFullDate('2000-02-29'), isFullDate('2026-02-29')]).toEqual([true, false, true, false]);
}, 120_000);

test('malformed strings are no dates for either', () => {
  const malformed = [
    '',
    'today',
    '2026-11-2',
    '2026-11-2a',
    '2026/11/22',
    '2026-11-22 ',
    ' 2026-11-22',
    '2026-11-22\n',
    '\n2026-11-22',
    '2026-11-22T00:00:00Z',
    '２０２６-11-22',
    '٢٠٢٦-11-22',
    '-001-01-01',
    '+2026-11-2',
    '2026-1a-01',
    '2026-+1-01',
    '2026--1-01',
    '2026-11--1',
    '2026-1-011',
    '20261-1-01',
    '2026 11 22',
    '2026-11-22'.replace('-', '\u2010'),
    '10000-01-01',
    '2026-11-22\u0000',
  ];
  expect(disagreements(malformed)).toEqual([]);
  expect(malformed.filter(isFullDate)).toEqual([]);
});

import { storedValue, typedValue } from '../../src/domain/tracking/values';
import { addDays, daysEndingAt, isSupportedDate } from '../../src/domain/time';
import { isVisible, ownedVisibility, readVisibility } from '../../src/domain/apps-and-grants/visibility';

describe('typedValue', () => {
  test('integer types (0, 3, 4, 6, 7, 8) answer JSON integers', () => {
    for (const type of [0, 3, 4, 6, 7, 8]) {
      expect(typedValue(type, 452, null)).toBe(452);
      expect(Number.isInteger(typedValue(type, 451.6, null))).toBe(true);
    }
    expect(typedValue(7, 1, null)).toBe(1);
    expect(Object.is(typedValue(0, -0.2, null), 0)).toBe(true);
  });

  test('float types (1, 5) keep their fraction and are numbers, never strings', () => {
    expect(typedValue(1, 72.35, null)).toBe(72.35);
    expect(typedValue(5, 0.215, null)).toBe(0.215);
    expect(typedValue(1, '72.35', null)).toBe(72.35); // as Postgres JSON might carry it
  });

  test('strings stay strings; a number stored before a type change reads as its text', () => {
    expect(typedValue(2, null, '12')).toBe('12');
    expect(typedValue(2, 12.5, null)).toBe('12.5');
  });

  test('no data, and non-finite numbers, are null', () => {
    expect(typedValue(0, null, null)).toBeNull();
    expect(typedValue(1, 'NaN', null)).toBeNull();
    expect(typedValue(1, 'Infinity', null)).toBeNull();
    expect(typedValue(2, null, null)).toBeNull();
  });

  test('storedValue is the inverse', () => {
    expect(storedValue(2, 'hello')).toEqual({ value_num: null, value_text: 'hello' });
    expect(storedValue(1, 0.5)).toEqual({ value_num: 0.5, value_text: null });
    const stored = storedValue(0, 8412);
    expect(typedValue(0, stored.value_num, stored.value_text)).toBe(8412);
  });
});

describe('dates', () => {
  test('isSupportedDate accepts real calendar dates from 0001-01-01 to 9999-12-31 only', () => {
    for (const ok of ['2024-02-29', '0001-01-01', '9999-12-31', '2026-11-22']) expect(isSupportedDate(ok)).toBe(true);
    for (const bad of ['2026-02-29', '2026-02-30', '2026-13-01', '0000-01-01', '2026-1-1', '', 'today']) expect(isSupportedDate(bad)).toBe(false);
  });

  test('isSupportedDate answers as a Date round trip does, for every day number of every month of leap, century and edge years', () => {
    // The rule isSupportedDate had by Date before it was arithmetic (domain/time.ts): a date is supported when Date gives it back unchanged.
    const byDate = (text: string) => {
      const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
      if (!match || Number(match[1]) < 1) return false;
      const d = new Date(0);
      d.setUTCFullYear(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
      const back = `${String(d.getUTCFullYear()).padStart(4, '0')}-${String(d.getUTCMonth() + 1).padStart(2, '0')}-${String(d.getUTCDate()).padStart(2, '0')}`;
      return back === text;
    };
    const pad = (n: number, width: number) => String(n).padStart(width, '0');
    const texts: string[] = [
      '2026-11-2a',
      '2026/11/22',
      '2026-11-22 ',
      ' 2026-11-22',
      '2026-11-22\n',
      '２０２６-11-22',
      '-001-01-01',
      '+2026-11-2',
      '2026-1a-01',
    ];
    for (const year of [0, 1, 4, 99, 100, 400, 1582, 1900, 2000, 2023, 2024, 2100, 9996, 9999]) {
      for (let month = 0; month <= 13; month++) for (let day = 0; day <= 32; day++) texts.push(`${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}`);
    }
    for (const text of texts) expect([text, isSupportedDate(text)]).toEqual([text, byDate(text)]);
  });

  test('addDays crosses months, years and leap days, also for years below 100', () => {
    expect(addDays('2024-03-01', -1)).toBe('2024-02-29');
    expect(addDays('2026-12-31', 1)).toBe('2027-01-01');
    expect(addDays('0050-01-01', -1)).toBe('0049-12-31');
  });

  test('daysEndingAt lists the window newest first and stops at 0001-01-01', () => {
    expect(daysEndingAt('2026-11-22', 3)).toEqual(['2026-11-22', '2026-11-21', '2026-11-20']);
    expect(daysEndingAt('0001-01-02', 5)).toEqual(['0001-01-02', '0001-01-01']);
  });
});

describe('visibility', () => {
  test('read visibility is the readable groups plus manual with manual_read', () => {
    const v = readVisibility(['mood_read', 'activity_write', 'manual_read']);
    expect(v.groups).toEqual(['mood']);
    expect(isVisible(v, { group_name: 'mood', manual: false })).toBe(true);
    expect(isVisible(v, { group_name: 'activity', manual: false })).toBe(false);
    expect(isVisible(v, { group_name: 'activity', manual: true })).toBe(true);
  });

  test('owned visibility adds writable groups and manual_write', () => {
    const v = ownedVisibility(['mood_read', 'activity_write', 'manual_write']);
    expect([...v.groups].sort()).toEqual(['activity', 'mood']);
    expect(v.manual).toBe(true);
  });
});

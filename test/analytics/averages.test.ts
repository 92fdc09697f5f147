import { computeAverages } from '../../src/analytics/averages';
import { buildUserData } from '../../src/analytics/series';
import { weekdayOf } from '../../src/domain/time';
import { weekDate } from '../../src/analytics/week';
import { templateAttribute } from './demo-series';

describe('week dating', () => {
  test('a set is dated by the Monday of the local week', () => {
    expect(weekDate('2026-11-16')).toBe('2026-11-16'); // a Monday
    expect(weekDate('2026-11-22')).toBe('2026-11-16'); // Sunday
    expect(weekDate('2026-11-18')).toBe('2026-11-16');
    expect(weekDate('2027-01-01')).toBe('2026-12-28'); // across the year
    expect(weekdayOf('2026-11-16')).toBe(0);
  });
});

describe('averages: medians over the 60 days before the set date, overall and per weekday', () => {
  // 2026-09-17 .. 2026-11-15 are the 60 days before Monday 2026-11-16.
  const from = '2026-09-01';
  const to = '2026-11-20';
  const date = '2026-11-16';
  const windowStart = 16; // index of 2026-09-17

  test('overall and weekday medians, even counts averaging the two middle values; days outside the window ignored', () => {
    const points: Array<[number, number]> = [];
    for (let i = 0; i <= 80; i++) points.push([i, i < windowStart || i >= windowStart + 60 ? 100000 : i - windowStart + 1]);
    const data = buildUserData(1, from, to, [templateAttribute('steps', 1, points)]);
    const [set] = computeAverages(data, date);
    // Window values 1..60: median of 60 values is (30 + 31) / 2.
    expect(set.overall).toBe(30.5);
    expect(set.date).toBe(date);
    // 2026-09-17 (value 1) is a Thursday: Thursdays are 1, 8, ..., 57 (9 values, median 29).
    expect(set.weekdays.thursday).toBe(29);
    // Fridays 2, 9, ..., 58 (9 values): median 30. Wednesdays 7, 14, ..., 56 (8 values): (28 + 35) / 2.
    expect(set.weekdays.friday).toBe(30);
    expect(set.weekdays.wednesday).toBe(31.5);
    // Mondays 5, 12, ..., 54 (8 values): (26 + 33) / 2.
    expect(set.weekdays.monday).toBe(29.5);
  });

  test('a weekday without data gets the overall median; an attribute without data in the window gets no set', () => {
    const data = buildUserData(1, from, to, [
      templateAttribute('mood', 1, [
        [windowStart + 4, 6],
        [windowStart + 11, 8],
      ]), // two Mondays
      templateAttribute('weight', 2, [
        [0, 80],
        [79, 81],
      ]), // outside the window only
    ]);
    const sets = computeAverages(data, date);
    expect(sets).toHaveLength(1);
    expect(sets[0]).toEqual({
      attributeId: 1,
      date,
      overall: 7,
      weekdays: { monday: 7, tuesday: 7, wednesday: 7, thursday: 7, friday: 7, saturday: 7, sunday: 7 },
    });
  });
});

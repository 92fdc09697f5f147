import { dayLockKeys } from '../../src/domain/tracking/writes/day-locks';

describe('dayLockKeys', () => {
  test('one key per day, whatever the order and repeats of the dates, in ascending order (the order the locks are taken in)', () => {
    const dates = ['2026-11-20', '2026-11-18', '2026-11-20', '2026-11-19', '2026-11-18'];
    const keys = dayLockKeys(51, dates);
    expect(keys).toHaveLength(3);
    expect([...keys].sort((a, b) => a - b)).toEqual(keys);
    expect(new Set(keys).size).toBe(3);
    expect(dayLockKeys(51, ['2026-11-19', '2026-11-18', '2026-11-20'])).toEqual(keys);
    for (const key of keys) expect(Number.isInteger(key) && key >= -(2 ** 31) && key < 2 ** 31).toBe(true);
  });

  test("another person's same days lock other keys", () => {
    expect(dayLockKeys(52, ['2026-11-18'])).not.toEqual(dayLockKeys(51, ['2026-11-18']));
  });

  test('two days whose keys collide are locked once (a second lock of the same key is asked for nothing)', () => {
    // These two days of person 51 share a 32-bit key (found by searching: the hash is FNV-1a).
    const both = dayLockKeys(51, ['2646-08-19', '2724-03-02']);
    expect(both).toEqual(dayLockKeys(51, ['2646-08-19']));
    expect(both).toEqual(dayLockKeys(51, ['2724-03-02']));
    expect(dayLockKeys(51, ['2646-08-19', '2026-11-18', '2724-03-02'])).toHaveLength(2);
  });
});

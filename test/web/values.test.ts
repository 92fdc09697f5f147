/**
 * How the pages read and show values (src/web/values.ts): what a person types comes back as they
 * typed it, for every value of the types that have their own notation.
 */
import fc from 'fast-check';
import { VALUE_TYPES } from '../../src/db/catalogue-value-types';
import { formatValue, inputValue, parseTypedValue } from '../../src/web/values';

const parsed = (type: number, text: string) => {
  const result = parseTypedValue(type, text);
  if ('problem' in result) throw new Error(result.problem);
  return result.value;
};

test.each([VALUE_TYPES.timeOfDay, VALUE_TYPES.timeFromMidday])('every minute of the day round-trips through HH:MM for type %i', (type) => {
  for (let minutes = 0; minutes < 24 * 60; minutes++) {
    const shown = formatValue(type, minutes);
    expect(shown).toMatch(/^([01]\d|2[0-3]):[0-5]\d$/);
    expect(parsed(type, shown)).toBe(minutes);
    expect(inputValue(type, minutes)).toBe(shown);
  }
  // Type 6 counts from midday: noon is 0, midnight 720.
  if (type === VALUE_TYPES.timeFromMidday) expect([formatValue(type, 0), formatValue(type, 720)]).toEqual(['12:00', '00:00']);
});

test('periods are typed as minutes or hours:minutes and shown in hours and minutes', () => {
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 24 * 60 }), (minutes) => {
      expect(parsed(VALUE_TYPES.period, String(minutes))).toBe(minutes);
      expect(parsed(VALUE_TYPES.period, `${Math.floor(minutes / 60)}:${String(minutes % 60).padStart(2, '0')}`)).toBe(minutes);
    }),
  );
  expect([formatValue(VALUE_TYPES.period, 45), formatValue(VALUE_TYPES.period, 450), formatValue(VALUE_TYPES.period, 60)]).toEqual([
    '45 min',
    '7 h 30 min',
    '1 h 0 min',
  ]);
});

test('percentages are typed and edited in per cent, stored as 0.0 to 1.0', () => {
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 1000 }), (tenths) => {
      const percent = tenths / 10;
      const stored = parsed(VALUE_TYPES.percentage, String(percent)) as number;
      expect(stored).toBeCloseTo(percent / 100, 12);
      expect(inputValue(VALUE_TYPES.percentage, stored)).toBe(String(percent));
    }),
  );
});

test('what is not a value of the type is a sentence, not a guess', () => {
  const problems: Array<[number, string]> = [
    [VALUE_TYPES.integer, ''],
    [VALUE_TYPES.integer, '12 steps'],
    [VALUE_TYPES.float, '1e400'],
    [VALUE_TYPES.float, '0x10'],
    [VALUE_TYPES.timeOfDay, '24:00'],
    [VALUE_TYPES.timeOfDay, '7.30'],
    [VALUE_TYPES.timeFromMidday, '12:60'],
    [VALUE_TYPES.boolean, 'maybe'],
  ];
  for (const [type, text] of problems) expect([type, text, 'problem' in parseTypedValue(type, text)]).toEqual([type, text, true]);
  // Strings are kept exactly as typed, spaces included.
  expect(parsed(VALUE_TYPES.string, '  as typed  ')).toBe('  as typed  ');
  expect([parsed(VALUE_TYPES.boolean, 'Yes'), parsed(VALUE_TYPES.boolean, 'no')]).toEqual([1, 0]);
});

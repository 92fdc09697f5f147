/**
 * Arrays of plain elements reach pg as the array literal Daybook writes itself (src/db/sql.ts,
 * `arrayText`): it must be, character for character, the text pg's own conversion writes, so the
 * same value reaches PostgreSQL. (test/api/v2/writes/array-values.test.ts sends such texts through
 * the API and reads them back.)
 */
import { arrayText } from '../../src/db/sql';

// pg's own conversion of a parameter (what it sends for an array given as it is).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { prepareValue } = require('pg/lib/utils') as { prepareValue: (value: unknown) => unknown };

const AWKWARD_TEXTS = [
  '',
  ' ',
  'plain',
  'say "hi"',
  'back\\slash',
  '\\"',
  '"',
  '\\',
  'a,b',
  '{braces}',
  '}',
  '{',
  'NULL',
  'null',
  '  spaced  ',
  'tab\there',
  'line\nbreak',
  "it's",
  'ünïcødé 日本 🎉',
  '2026-11-22',
  '$1',
];

test('arrays of strings, numbers, booleans and nulls give exactly the literal pg writes', () => {
  const arrays: unknown[][] = [
    [],
    AWKWARD_TEXTS,
    [1, 2, 3],
    [0, -0, -12, 1.5, 1e21, 1e-7, Number.MAX_SAFE_INTEGER, 8412],
    [true, false],
    [null, undefined, 'x', 3],
    ['2026-11-20', '2026-11-21'],
    AWKWARD_TEXTS.map((text) => `${text}${text}`),
    // Nothing to escape and no nulls: the joined form.
    AWKWARD_TEXTS.filter((text) => !text.includes('"') && !text.includes('\\')),
    ['a', 1, true, '', 2.5, 'NULL'],
    [''],
    // eslint-disable-next-line no-sparse-arrays
    [1, , 2],
  ];
  for (const array of arrays) expect(arrayText(array)).toBe(prepareValue(array));
});

test('arrays holding anything else are left to pg', () => {
  for (const array of [[new Date(0)], [[1, 2]], [{ a: 1 }], [Buffer.from('x')], [1n]]) expect(arrayText(array)).toBeUndefined();
});

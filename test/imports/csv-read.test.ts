/**
 * The CSV reader reads the long and the wide form as spreadsheets write them (docs/imports-csv.md):
 * a byte order mark, CRLF, quoted cells with commas, quotes and line breaks, header names in any
 * case, empty cells as no value, dates in the forms it documents, values in file order with where
 * each was, and a value type for each column inferred from its cells.
 */
import { VALUE_TYPES } from '../../src/db/catalogue-value-types';
import { csvFile, readCsv, removeCsvFiles, triples } from './csv-files';

afterAll(removeCsvFiles);

const { integer, float, string, period, timeOfDay, boolean } = VALUE_TYPES;

test('a wide file with a byte order mark, CRLF and quoted cells gives each non-empty cell as a value, row by row, left to right', async () => {
  const file = csvFile(
    '\uFEFFDate,Steps,Mood,Note\r\n' +
      '2024-03-01,5012,7,"tired, but ""fine""\r\nslept late"\r\n' +
      '2024-03-02,6000,,\r\n' +
      '\r\n' + // a blank row is skipped (and counted: row numbers are the spreadsheet's)
      '2024-03-03, 7100 ,8,ok\r\n',
  );
  const read = await readCsv(file);
  expect(read.format).toBe('csv-wide');
  expect(read.fault).toBeUndefined();
  expect(read.columns.map((c) => [c.key, c.label])).toEqual([
    ['Steps', 'Steps'],
    ['Mood', 'Mood'],
    ['Note', 'Note'],
  ]);
  expect(triples(read.values)).toEqual([
    ['Steps', '2024-03-01', '5012'],
    ['Mood', '2024-03-01', '7'],
    ['Note', '2024-03-01', 'tired, but "fine"\r\nslept late'],
    ['Steps', '2024-03-02', '6000'],
    ['Steps', '2024-03-03', '7100'],
    ['Mood', '2024-03-03', '8'],
    ['Note', '2024-03-03', 'ok'],
  ]);
  expect(read.values.map((v) => v.where)).toEqual([
    'row 2, column Steps',
    'row 2, column Mood',
    'row 2, column Note',
    'row 3, column Steps',
    'row 5, column Steps',
    'row 5, column Mood',
    'row 5, column Note',
  ]);
});

test('the date column may be anywhere, named Date or day, and a file without a final line break loses no row', async () => {
  const read = await readCsv(csvFile('water,DAY\n1500,2024-03-01\n2000,2024-03-02'));
  expect(read.columns.map((c) => c.key)).toEqual(['water']);
  expect(triples(read.values)).toEqual([
    ['water', '2024-03-01', '1500'],
    ['water', '2024-03-02', '2000'],
  ]);
});

test('a long file: header names in any case, the attribute a name or a label, an empty value is no value, the order is the file order', async () => {
  const read = await readCsv(
    csvFile('Date,ATTRIBUTE,Value\n2024-03-01,steps,5000\n2024-03-01,Mood,7\n2024-03-02,Steps,6100\n2024-03-02,mood,\n2024-03-02,Body fat,0.21\n'),
  );
  expect(read.format).toBe('csv-long');
  // One column per attribute, whatever the case it is written in; its first spelling is its key.
  expect(read.columns).toEqual([
    { key: 'steps', label: 'steps', valueType: integer },
    { key: 'Mood', label: 'Mood', valueType: integer },
    { key: 'Body fat', label: 'Body fat', valueType: float },
  ]);
  expect(triples(read.values)).toEqual([
    ['steps', '2024-03-01', '5000'],
    ['Mood', '2024-03-01', '7'],
    ['steps', '2024-03-02', '6100'],
    ['Body fat', '2024-03-02', '0.21'],
  ]);
  expect(read.values.map((v) => v.where)).toEqual(['row 2', 'row 3', 'row 4', 'row 6']);
});

test('dates: ISO with or without a time, year first with slashes, dotted day first, and slashed ones in the order the file shows', async () => {
  const iso = await readCsv(csvFile('date,x\n2024-3-1,1\n2024-03-02T07:30:00+02:00,2\n2024/03/03,3\n04.03.2024,4\n'));
  expect(iso.values.map((v) => v.date)).toEqual(['2024-03-01', '2024-03-02', '2024-03-03', '2024-03-04']);
  // 25/03/2024 can only be day first, so 01/04/2024 is 1 April ...
  const dayFirst = await readCsv(csvFile('date,x\n01/04/2024,1\n25/03/2024,2\n'));
  expect(dayFirst.values.map((v) => v.date)).toEqual(['2024-04-01', '2024-03-25']);
  // ... and 03/25/2024 only month first, so 01/04/2024 is January 4th.
  const monthFirst = await readCsv(csvFile('date,x\n01/04/2024,1\n03/25/2024,2\n'));
  expect(monthFirst.values.map((v) => v.date)).toEqual(['2024-01-04', '2024-03-25']);
});

test.each([
  ['whole numbers', ['5', '-12', '0', '1', '10000'], integer],
  ['numbers with a fraction', ['5', '0.5', '-1.25', '3e2'], float],
  ['yes and no in words', ['yes', 'No', 'TRUE', 'false', 'y'], boolean],
  ['only 0 and 1', ['0', '1', '1'], boolean],
  ['clock times under 24:00', ['23:15', '7:05', '00:30'], timeOfDay],
  ['h:mm past 24 hours', ['7:30', '25:10'], period],
  ['words', ['ran 5k', '12', 'yes'], string],
  ['numbers mixed with words', ['12', 'n/a'], string],
])('a column of %s is inferred as value type %#', async (_, cells, valueType) => {
  const read = await readCsv(csvFile(`date,thing\n${cells.map((cell, i) => `2024-01-${String(i + 1).padStart(2, '0')},${cell}`).join('\n')}\n`));
  expect(read.columns[0].valueType).toBe(valueType);
});

test('h:mm cells under 24:00 are durations when the header says so, times of day otherwise; a column without a value has no type', async () => {
  const read = await readCsv(
    csvFile('date,Sleep duration,time_asleep,Bedtime,Woke up,Empty\n2024-01-01,7:30,7:30,23:10,6:45,\n2024-01-02,8:05,8:05,22:55,7:02,\n'),
  );
  expect(read.columns.map((c) => [c.key, c.valueType])).toEqual([
    ['Sleep duration', period],
    ['time_asleep', period],
    ['Bedtime', timeOfDay],
    ['Woke up', timeOfDay],
    ['Empty', undefined],
  ]);
});

test('a large file is read in constant memory, its values in order, with progress up to its size', async () => {
  const rows = ['date,steps,weight'];
  const start = Date.UTC(1990, 0, 1);
  for (let day = 0; day < 20_000; day++) rows.push(`${new Date(start + day * 86_400_000).toISOString().slice(0, 10)},${day},${(70 + day / 1000).toFixed(2)}`);
  const file = csvFile(rows.join('\r\n'));
  const { openCsv } = await import('../../src/domain/imports/csv');
  const progress: Array<{ bytes: number; totalBytes: number; records: number }> = [];
  const reader = await openCsv(file, (p) => progress.push(p));
  let n = 0;
  let last = '';
  for await (const value of reader.values()) {
    if (value.date < last) throw new Error(`out of order at ${value.where}`);
    last = value.date;
    n += 1;
  }
  expect(n).toBe(40_000);
  expect(reader.columns.map((c) => c.valueType)).toEqual([integer, float]);
  expect(progress.length).toBeGreaterThan(1);
  expect(progress.at(-1)).toEqual({ bytes: progress[0].totalBytes, totalBytes: progress[0].totalBytes, records: 20_000 });
});

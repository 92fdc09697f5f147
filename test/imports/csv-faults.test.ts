/**
 * Bad CSV input gets a clear answer with where it is (docs/imports-csv.md, "Faults"): a file that
 * is not text or has no usable header fails to open; a fault in a row stops the values there, after
 * the values before it (so a real run keeps the batches before it and says where it stopped).
 */
import zlib from 'node:zlib';
import { csvFile, openFault, readCsv, removeCsvFiles } from './csv-files';

afterAll(removeCsvFiles);

/** A CSV of `rows` data rows (row 2 onwards) of steps, one day each from 2020-01-01. */
function stepsRows(rows: number): string[] {
  const start = Date.UTC(2020, 0, 1);
  return Array.from({ length: rows }, (_, i) => `${new Date(start + i * 86_400_000).toISOString().slice(0, 10)},${1000 + i}`);
}

test('a bad date in row 1,000 stops the values there, saying row and column; the 998 rows before it were read', async () => {
  const rows = stepsRows(1200);
  rows[998] = '2020-02-30,5'; // the 999th data row: row 1,000 as a spreadsheet numbers it (the header is row 1)
  const read = await readCsv(csvFile(['date,steps', ...rows].join('\n')));
  expect(read.fault).toEqual({ where: 'row 1,000, column date', message: '"2020-02-30" is not a date: write dates as YYYY-MM-DD.' });
  expect(read.values).toHaveLength(998);
  expect(read.values.at(-1)).toMatchObject({ date: '2022-09-24', where: 'row 999, column steps' });
});

test('a ragged row is a fault naming the row and both counts', async () => {
  const read = await readCsv(csvFile('date,steps,mood\n2024-01-01,5,7\n2024-01-02,6\n2024-01-03,7,8\n'));
  expect(read.fault).toEqual({
    where: 'row 3',
    message: 'The row has 2 cells and the header 3: every row has a cell per column (empty when there is no value).',
  });
  expect(read.values).toHaveLength(2);
});

test.each([
  ['a header without a date column', 'when,steps\n2024-01-01,5\n', 'row 1', /^The first row must be a header with a date column/],
  ['a file whose first row is data', '2024-01-01,5\n2024-01-02,6\n', 'row 1', /^The first row must be a header with a date column/],
  ['a duplicated column (in any case)', 'date,Steps,mood,steps\n', 'row 1, column steps', /^The header has the column "steps" twice \(columns 2 and 4\)/],
  [
    'an unknown column in long form',
    'date,attribute,value,note\n',
    'row 1, column note',
    /^Unknown column "note": a long-form file has the columns date, attribute and value/,
  ],
  ['long form without its value column', 'date,attribute,amount\n', 'row 1', /its "value" column is missing/],
  ['a wide column without a header', 'date,steps,,mood\n', 'row 1, column 3', /^Column 3 has no header/],
  ['a header with only a date column', 'date\n2024-01-01\n', 'row 1', /a date column and nothing else/],
  ['an empty file', '', 'the file', /^The file is empty/],
  ['a file of blank lines', '\n\n \n', 'the file', /^The file is empty/],
])('%s does not open: where %p', async (_, content, where, message) => {
  const fault = await openFault(csvFile(content));
  expect(fault.where).toBe(where);
  expect(fault.message).toMatch(message);
});

test.each([
  [
    'a zip archive (an Apple Health export)',
    Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.alloc(60, 7)]),
    'the file',
    /zip archive, not a CSV file/,
  ],
  ['a gzip archive', zlib.gzipSync('date,steps\n'), 'the file', /gzip archive/],
  ['UTF-16 text', Buffer.from('\uFEFFdate,steps\n', 'utf16le'), 'the file', /UTF-16 text; save it as "CSV UTF-8"/],
  ['bytes with a NUL', Buffer.from('date,steps\n2024-01-01,\u00005\n', 'latin1'), 'byte 23', /not text \(it holds a NUL byte\)/],
  ['Windows-1252 text', Buffer.from('date,Kaffee \xe0 la carte\n', 'latin1'), 'bytes 1 to 23', /not UTF-8 text/],
])('%s is not a CSV file', async (_, bytes, where, message) => {
  const fault = await openFault(csvFile(bytes));
  expect(fault.where).toBe(where);
  expect(fault.message).toMatch(message);
});

test('a quoted cell never closed stops the values where it starts', async () => {
  const read = await readCsv(csvFile('date,note\n2024-01-01,fine\n2024-01-02,"open, never closed\n2024-01-03,x\n'));
  expect(read.fault).toEqual({ where: 'row 3, column 2', message: 'A quoted cell is never closed: the file ends inside it.' });
  expect(read.values.map((v) => v.value)).toEqual(['fine']);
});

test('text after a closing quote is a fault', async () => {
  const read = await readCsv(csvFile('date,note\n2024-01-01,"a"b\n'));
  expect(read.fault?.where).toBe('row 2, column 2');
  expect(read.fault?.message).toMatch(/^After a closing quote comes "b"/);
});

test('slashed dates no date of the file tells the order of are refused, not guessed', async () => {
  const read = await readCsv(csvFile('date,steps\n2024-01-01,5\n03/04/2024,6\n'));
  expect(read.fault).toEqual({
    where: 'row 3, column date',
    message: '03/04/2024 could be day/month/year or month/day/year, and no date in the file tells which: write dates as YYYY-MM-DD.',
  });
  expect(read.values).toHaveLength(1);
});

test('slashed dates in both orders: the first that shows an order decides, and the other is a fault that says so', async () => {
  const read = await readCsv(csvFile('date,steps\n25/01/2024,5\n01/31/2024,6\n'));
  expect(read.fault).toEqual({
    where: 'row 3, column date',
    message: '"01/31/2024" is not a date (this file\'s slashed dates are day/month/year, as 25/01/2024 in row 2 shows): write dates as YYYY-MM-DD.',
  });
});

test('one attribute given twice for a day is a fault, in wide and long form', async () => {
  const wide = await readCsv(csvFile('date,steps\n2024-01-01,5\n2024-01-02,6\n2024-01-01,7\n'));
  expect(wide.fault).toEqual({
    where: 'row 4, column steps',
    message: 'A second value for steps on 2024-01-01: a file gives one value per attribute per day.',
  });
  const long = await readCsv(csvFile('date,attribute,value\n2024-01-01,steps,5\n2024-01-01,mood,5\n01.01.2024,Steps,7\n'));
  expect(long.fault).toEqual({ where: 'row 4', message: 'A second value for steps on 2024-01-01: a file gives one value per attribute per day.' });
});

test('a row with values but no date, or a long row with a value but no attribute, is a fault', async () => {
  expect((await readCsv(csvFile('date,steps\n,5\n'))).fault).toEqual({ where: 'row 2, column date', message: 'The row has values but no date.' });
  expect((await readCsv(csvFile('date,attribute,value\n2024-01-01,,5\n'))).fault).toEqual({
    where: 'row 2, column attribute',
    message: 'The row has a value but no attribute.',
  });
});

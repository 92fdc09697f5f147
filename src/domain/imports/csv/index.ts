/**
 * The CSV reader (docs/imports-csv.md): Daybook's own values export (`daybook-csv`), the long form
 * (`csv-long`: date, attribute, value) and the wide form (`csv-wide`: a date column and a column per
 * attribute). Opening reads the file once for its header and columns (scan.ts); `values()` reads
 * it again, streamed, and gives each non-empty cell as a day value in file order (row by row, left
 * to right), the cell's text as written: the engine reads it by the target attribute's value type.
 * A fault in a row (a ragged row, a bad date, a day given twice for one column, a broken quote)
 * is thrown from `values()` where it is, after the values before it.
 */
import { stat } from 'node:fs/promises';
import { ImportFault, type FileValue, type OpenReader, type ProgressListener } from '../types';
import { unguard } from './columns';
import { DaySet, dayNumber, isSlashed, readDate } from './dates';
import type { Layout } from './header';
import type { CsvRecord } from './records';
import { fileRecords, isBlank, scanFile, type Scan } from './scan';
import { count, rowWhere } from './where';

export const openCsv: OpenReader = async (path, onProgress) => {
  const { size } = await stat(path);
  const scan = await scanFile(path);
  return { format: scan.layout.format, columns: scan.columns, values: () => readValues(path, size, scan, onProgress) };
};

/** The header's text of cell `index`, for messages. */
function columnName(layout: Layout, index: number, fallback: string): string {
  if (layout.format === 'csv-wide') return layout.columns.find((c) => c.index === index)?.key ?? fallback;
  return fallback;
}

/** A date as YYYY-MM-DD and as a day number (dates.ts). */
interface Day {
  date: string;
  number: number;
}

/** Turns rows into day values, checking each (see the module's comment). */
class RowReader {
  /** Column by case-folded key, with the days it has had. */
  private readonly columns = new Map<string, { key: string; days: DaySet }>();

  constructor(private readonly scan: Scan) {
    for (const column of scan.columns) this.columns.set(column.key.toLowerCase(), { key: column.key, days: new DaySet() });
  }

  /** The last date cell read and its day: long files give a day's date row after row. */
  private last: Day & { text: string } = { text: '', date: '', number: 0 };

  /** The row's day; ImportFault when it has none or it is not a date. */
  private day(record: CsvRecord): Day {
    const { layout, order, orderShownBy } = this.scan;
    const text = record.cells[layout.date].trim();
    if (text === this.last.text && text !== '') return this.last;
    const where = rowWhere(record.row, columnName(layout, layout.date, 'date'));
    if (text === '') throw new ImportFault(where, 'The row has values but no date.');
    const date = readDate(text, order);
    if (date) {
      this.last = { text, date, number: dayNumber(date) };
      return this.last;
    }
    if (isSlashed(text) && !order)
      throw new ImportFault(where, `${text} could be day/month/year or month/day/year, and no date in the file tells which: write dates as YYYY-MM-DD.`);
    const shown = orderShownBy
      ? ` (this file's slashed dates are ${order === 'day-first' ? 'day/month/year' : 'month/day/year'}, as ${orderShownBy.text} in ${rowWhere(orderShownBy.row)} shows)`
      : '';
    throw new ImportFault(where, `"${text}" is not a date${isSlashed(text) ? shown : ''}: write dates as YYYY-MM-DD.`);
  }

  /** A value for the column on the date; ImportFault when the column already had that day. */
  private value(key: string, { date, number }: Day, value: string, where: string): FileValue {
    const column = this.columns.get(key.toLowerCase());
    if (!column) throw new ImportFault(where, `The attribute "${key}" was not in the file when it was opened: was the file changed since?`);
    if (!column.days.add(dayNumber(date)))
      throw new ImportFault(where, `A second value for ${column.key} on ${date}: a file gives one value per attribute per day.`);
    return { key: column.key, date, value, where };
  }

  /** The row's values (none for a blank row). */
  read(record: CsvRecord): FileValue[] {
    if (isBlank(record)) return [];
    const { layout } = this.scan;
    const { cells, row } = record;
    if (cells.length !== layout.cellCount)
      throw new ImportFault(
        rowWhere(row),
        `The row has ${count(cells.length)} cells and the header ${count(layout.cellCount)}: every row has a cell per column (empty when there is no value).`,
      );
    const day = this.day(record);
    if (layout.format === 'csv-wide') {
      const values: FileValue[] = [];
      for (const { index, key } of layout.columns) {
        const cell = cells[index].trim();
        if (cell !== '') values.push(this.value(key, day, cell, rowWhere(row, key)));
      }
      return values;
    }
    const key = cells[layout.attribute].trim();
    const raw = cells[layout.value];
    if (raw.trim() === '') return [];
    if (key === '') throw new ImportFault(rowWhere(row, 'attribute'), 'The row has a value but no attribute.');
    // Daybook's export quotes text, guarded against formulas, and never numbers; other files' cells are trimmed.
    const value = layout.format === 'daybook-csv' && record.quoted[layout.value] ? unguard(raw) : raw.trim();
    return [this.value(key, day, value, rowWhere(row))];
  }
}

/**
 * The second reading: every value, in file order, with progress after each chunk of the file. The
 * values of a chunk's rows are handed out from an array (one resolved promise each), not yielded
 * by an async generator, whose per-value bookkeeping was most of the reading's cost.
 */
function readValues(path: string, totalBytes: number, scan: Scan, onProgress?: ProgressListener): AsyncIterable<FileValue> {
  const reader = new RowReader(scan);
  let bytes = 0;
  let records = 0;
  const batches = fileRecords(path, (read) => (bytes = read));
  let buffer: FileValue[] = [];
  let next = 0;
  /** A fault in a row, thrown once the values of the rows before it are handed out. */
  let fault: unknown;
  /** Fills the buffer from the next chunk's rows; false at the end of the file. */
  const fill = async (): Promise<boolean> => {
    while (next >= buffer.length) {
      if (fault) throw fault;
      const batch = await batches.next();
      if (batch.done) return false;
      buffer = [];
      next = 0;
      try {
        for (const record of batch.value) {
          if (record.row <= scan.headerRow) continue;
          records += 1;
          for (const value of reader.read(record)) buffer.push(value);
        }
      } catch (error) {
        fault = error;
        await batches.return(undefined);
      }
      onProgress?.({ bytes, totalBytes, records });
    }
    return true;
  };
  return {
    [Symbol.asyncIterator]: () => ({
      next: async (): Promise<IteratorResult<FileValue>> => {
        if (next < buffer.length || (await fill())) return { value: buffer[next++], done: false };
        return { value: undefined, done: true };
      },
      return: async (): Promise<IteratorResult<FileValue>> => {
        await batches.return(undefined);
        return { value: undefined, done: true };
      },
    }),
  };
}

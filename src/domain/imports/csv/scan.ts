/**
 * The CSV reader's first reading of a file (docs/imports-csv.md, "Two readings"): the header, the
 * order of slashed dates, and the columns with their inferred value types, so that the columns are
 * complete when the file is open. Faults of the file as a whole (not text, no header, a header
 * without a date column, a duplicated or unknown column) throw here; a fault in a row stops this
 * reading quietly, and the second reading (the values) reports it where it is, after the values
 * before it.
 */
import { ImportFault, type FileColumn } from '../types';
import { ColumnDraft, groupName, unguard } from './columns';
import { slashEvidence, type SlashOrder } from './dates';
import { readHeader, type Layout } from './header';
import { csvRecords, type CsvRecord } from './records';
import { textChunks } from './text';
import { count, rowWhere } from './where';

/** Most attribute columns one file may name (long form: distinct attributes). */
export const MAX_COLUMNS = 2_000;

/** A fault of the file as a whole found while reading rows: it stops the first reading too. */
class FileFault extends ImportFault {}

/** A row whose cells are all empty (a blank line, or a spreadsheet's empty row): skipped. */
export function isBlank(record: CsvRecord): boolean {
  return record.cells.every((cell) => cell.trim() === '');
}

/** The file's records, a batch at a time, after its leading blank rows. */
export async function* fileRecords(path: string, onBytes?: (bytes: number) => void): AsyncGenerator<CsvRecord[]> {
  yield* csvRecords(textChunks(path, onBytes));
}

/** What the first reading found. */
export interface Scan {
  layout: Layout;
  /** The header's row (1 unless blank rows come first). */
  headerRow: number;
  /** How slashed dates read (undefined: none tells; a slashed date is then refused). */
  order?: SlashOrder;
  /** The first date that showed the order, for messages. */
  orderShownBy?: { row: number; text: string };
  columns: FileColumn[];
}

/** Collects the columns of the rows it is given. */
class ColumnFinder {
  private readonly drafts = new Map<string, ColumnDraft>();
  private evidence?: { order: SlashOrder; row: number; text: string };

  constructor(private readonly layout: Layout) {
    if (layout.format === 'csv-wide') for (const { key } of layout.columns) this.drafts.set(key.toLowerCase(), new ColumnDraft(key, false));
  }

  add(record: CsvRecord): void {
    const { cells } = record;
    const date = cells[this.layout.date].trim();
    if (!this.evidence) {
      const order = slashEvidence(date);
      if (order) this.evidence = { order, row: record.row, text: date };
    }
    if (this.layout.format === 'csv-wide') {
      for (const { index, key } of this.layout.columns) {
        const cell = cells[index].trim();
        if (cell !== '') this.drafts.get(key.toLowerCase())!.kinds.add(cell);
      }
      return;
    }
    const layout = this.layout;
    const key = cells[layout.attribute].trim();
    if (key === '') return;
    let draft = this.drafts.get(key.toLowerCase());
    if (!draft) {
      if (this.drafts.size >= MAX_COLUMNS)
        throw new FileFault(
          rowWhere(record.row, 'attribute'),
          `The file names more than ${count(MAX_COLUMNS)} attributes: is its attribute column really attribute names?`,
        );
      draft = new ColumnDraft(key, layout.format === 'daybook-csv');
      const label = layout.label === undefined ? '' : cells[layout.label].trim();
      if (label !== '') draft.label = draft.daybook ? unguard(label) : label;
      if (layout.group !== undefined) draft.group = groupName(cells[layout.group]);
      this.drafts.set(key.toLowerCase(), draft);
    }
    const value = cells[layout.value];
    if (value.trim() !== '') draft.kinds.add(value.trim(), draft.daybook && record.quoted[layout.value]);
  }

  scan(layout: Layout, headerRow: number): Scan {
    const evidence = this.evidence;
    return {
      layout,
      headerRow,
      ...(evidence ? { order: evidence.order, orderShownBy: { row: evidence.row, text: evidence.text } } : {}),
      columns: [...this.drafts.values()].map((draft) => draft.column()),
    };
  }
}

/** Reads the whole file once (see the module's comment). */
export async function scanFile(path: string): Promise<Scan> {
  const records = fileRecords(path);
  let layout: Layout | undefined;
  let headerRow = 0;
  let finder: ColumnFinder | undefined;
  try {
    for await (const batch of records) {
      for (const record of batch) {
        if (isBlank(record)) continue;
        if (!layout || !finder) {
          layout = readHeader(record.cells);
          headerRow = record.row;
          finder = new ColumnFinder(layout);
          continue;
        }
        // A ragged row stops this reading; the values' reading reports it.
        if (record.cells.length !== layout.cellCount) return finder.scan(layout, headerRow);
        finder.add(record);
      }
    }
  } catch (error) {
    // Before the header every fault is the file's; after it, the values' reading reports a row's.
    if (!(error instanceof ImportFault) || error instanceof FileFault || !layout || !finder) throw error;
    await records.return(undefined);
    return finder.scan(layout, headerRow);
  }
  if (!layout || !finder) throw new ImportFault('the file', 'The file is empty: a CSV file starts with a header row.');
  return finder.scan(layout, headerRow);
}

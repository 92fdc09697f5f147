/**
 * The shapes every import shares (docs/imports.md): a reader turns a file into columns (how the
 * file names an attribute) and day values; the person (the preview page) or the CLI's defaults map
 * each column to an attribute; the engine checks every value with the write rules and applies
 * them in set-based batches. Readers know files, never the database; the engine knows attributes,
 * never file formats.
 */

/** The file formats Daybook reads. */
export type ImportFormat = 'apple-health' | 'daybook-csv' | 'daybook-json' | 'csv-long' | 'csv-wide';

/** Where something is in the file, for messages a person reads: "line 1,042", "row 1,000, column steps". */
export type Where = string;

/**
 * A problem with the file itself that stops reading it: not an export, a truncated zip, an XML tag
 * broken half-way, a CSV header with no date column, a date that is not a date. Values before it
 * were read; the engine keeps the batches it applied before it (a real run) and reports it.
 */
export class ImportFault extends Error {
  constructor(
    readonly where: Where,
    message: string,
  ) {
    super(message);
    this.name = 'ImportFault';
  }
}

/** One attribute as the file names it, before it is matched to one of the person's. */
export interface FileColumn {
  /** Unique within the file; how values refer to the column. */
  key: string;
  /** What the person sees in the preview: the header text, the attribute's label, the Apple mapping's label. */
  label: string;
  /** An attribute name the file gives (Daybook exports: the attribute's name; Apple: the template's name). */
  name?: string;
  /** The template the column is, when the file says (Apple mappings, Daybook exports). */
  template?: string;
  /** The group name, when the file says. */
  group?: string;
  /** The value type code (0-8), when the file says or the reader inferred it from the values it saw. */
  valueType?: number;
  /** Daybook JSON exports carry these too. */
  priority?: number;
  manual?: boolean;
}

/**
 * One day's value of one column, as read. JSON and Apple Health give typed values (metric units,
 * minutes, 0/1 for yes/no); CSV gives the cell's text, which the engine reads by the target
 * attribute's value type (docs/imports.md, "Cells").
 */
export interface FileValue {
  key: string;
  /** The person's local day, YYYY-MM-DD. */
  date: string;
  value: number | string | boolean;
  where: Where;
}

/** How far a reader has got, for progress bars. */
export interface ReadProgress {
  /** Bytes of the file read so far, and its size. */
  bytes: number;
  totalBytes: number;
  /** Records (rows, XML records) read so far. */
  records: number;
}

export type ProgressListener = (progress: ReadProgress) => void;

/** An opened file. */
export interface ImportReader {
  format: ImportFormat;
  /** Every column, complete once the reader is open (header-first formats read the header; others read the file). */
  columns: FileColumn[];
  /** The values in a stable order (the same file gives the same order: the engine resumes by batch number). Iterated once. */
  values(): AsyncIterable<FileValue>;
}

/** Opens a file of one family of formats (throws ImportFault when it is not one). */
export type OpenReader = (path: string, onProgress?: ProgressListener) => Promise<ImportReader>;

/** What a column becomes. */
export type ColumnTarget =
  /** An attribute the person has, by name. */
  | { kind: 'attribute'; name: string }
  /** The template's attribute, created (owned by Daybook) when the person lacks it. */
  | { kind: 'template'; template: string }
  /**
   * A new custom attribute, created owned by Daybook with the value type the person confirmed.
   * `name` and `priority` (optional, added by the engine helper): kept from a Daybook export, so a
   * round trip gives the same names (and tags stay tags); without them the name comes from the
   * label as the API's create does, and the priority is the created default.
   */
  | { kind: 'new'; label: string; group: string; valueType: number; name?: string; priority?: number }
  /** Left out. */
  | { kind: 'skip' };

/** Column key -> target. */
export type Mapping = Record<string, ColumnTarget>;

/** A day that already has a different value: keep it (the default) or replace it. */
export type ExistingDays = 'keep' | 'replace';

export interface ImportOptions {
  mapping: Mapping;
  existing: ExistingDays;
  /** Report what would happen; write nothing. */
  dryRun: boolean;
}

/** Day values by what happened (or would) to them. */
export interface ImportCounts {
  /** Days that had no value. */
  added: number;
  /** Days whose different value was replaced (`replace`). */
  changed: number;
  /** Days that already had this very value. */
  unchanged: number;
  /** Days whose different value was kept (`keep`). */
  kept: number;
  /** Values the write rules refused (wrong type, out of range...), each with a problem. */
  refused: number;
}

export interface ImportProblem {
  where: Where;
  column?: string;
  message: string;
}

export interface ImportReport {
  format: ImportFormat;
  dryRun: boolean;
  counts: ImportCounts;
  /** Counts per column key. */
  columns: Record<string, ImportCounts>;
  /** Refused values, the first 100 (counts.refused has them all). */
  problems: ImportProblem[];
  /** What stopped the import, when something did; every value before it was applied (a real run). */
  fault?: ImportProblem;
  /** Batches applied (a real run) or checked (a dry run); the last before a fault or the end may be shorter. */
  batches: number;
  /** Values of the file those batches took (read in the file's order): a run started again skips them. */
  values?: number;
  /** Attributes the import created (names). */
  created: string[];
  /** The first and last day it had a value for. */
  firstDate?: string;
  lastDate?: string;
}

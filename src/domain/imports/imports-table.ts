/**
 * The `imports` table (docs/imports.md, "Runs, batches and resuming"): one row per import, with
 * its state, options, the batch it reached and the report so far. The page and the CLI create a
 * row, set its options, and run it through the engine (engine.ts), which checkpoints each batch
 * here in the batch's own transaction.
 */
import type { Knex } from 'knex';
import type { ImportFormat, ImportOptions, ImportReport, ReadProgress } from './types';

/**
 * `new`: created (a file uploaded), no options yet; `queued`: options set, waiting for a run;
 * `running`: a run is (or was, when its process died) applying batches; `stopped`: a fault in the
 * file stopped it (every value before it applied; running it again continues after them); `done`: the
 * whole file went through; `failed`: it cannot go on (the file is gone, an attribute it needs is).
 */
export type ImportState = 'new' | 'queued' | 'running' | 'stopped' | 'done' | 'failed';

export interface ImportRecord {
  id: number;
  userId: number;
  state: ImportState;
  /** Where the uploaded file is, while it is kept (the page removes it when the import ends). */
  filePath: string | null;
  /** The name the person's file had, for the page. */
  fileName: string | null;
  fileBytes: number | null;
  format: ImportFormat | null;
  options: ImportOptions | null;
  /** Values per batch: fixed once a real run has applied a batch (resuming counts batches of it). */
  batchSize: number;
  /** Batches applied (a real run) or checked (a dry run). */
  batches: number;
  report: ImportReport | null;
  /** How far the last run read the file, updated with each batch. */
  progress: ReadProgress | null;
  /** Why the import failed (state `failed`). */
  error: string | null;
  createdAt: Date;
  updatedAt: Date;
  finishedAt: Date | null;
}

interface ImportRow {
  id: string | number;
  user_id: string | number;
  state: ImportState;
  file_path: string | null;
  file_name: string | null;
  file_bytes: string | number | null;
  format: ImportFormat | null;
  options: ImportOptions | null;
  batch_size: number;
  batches: number;
  report: ImportReport | null;
  progress: ReadProgress | null;
  error: string | null;
  created_at: Date;
  updated_at: Date;
  finished_at: Date | null;
}

function recordOf(row: ImportRow): ImportRecord {
  return {
    id: Number(row.id),
    userId: Number(row.user_id),
    state: row.state,
    filePath: row.file_path,
    fileName: row.file_name,
    fileBytes: row.file_bytes === null ? null : Number(row.file_bytes),
    format: row.format,
    options: row.options,
    batchSize: row.batch_size,
    batches: row.batches,
    report: row.report,
    progress: row.progress,
    error: row.error,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    finishedAt: row.finished_at,
  };
}

/** Values per batch unless the caller says otherwise (docs/imports.md, "Batches"). */
const DEFAULT_BATCH_SIZE = 1000;

export interface NewImport {
  userId: number;
  filePath?: string;
  fileName?: string;
  fileBytes?: number;
  format?: ImportFormat;
  options?: ImportOptions;
  batchSize?: number;
  now: Date;
}

/** Records a new import (`new`, or `queued` when options are given). */
export async function createImport(db: Knex, input: NewImport): Promise<ImportRecord> {
  const [row] = await db('imports')
    .insert({
      user_id: input.userId,
      state: input.options ? 'queued' : 'new',
      file_path: input.filePath ?? null,
      file_name: input.fileName ?? null,
      file_bytes: input.fileBytes ?? null,
      format: input.format ?? null,
      options: input.options ? JSON.stringify(input.options) : null,
      batch_size: input.batchSize ?? DEFAULT_BATCH_SIZE,
      created_at: input.now,
      updated_at: input.now,
    })
    .returning<ImportRow[]>('*');
  return recordOf(row);
}

/** The person's import, or undefined (another person's is never found). */
export async function findImport(db: Knex, userId: number, importId: number): Promise<ImportRecord | undefined> {
  const row = await db('imports').where({ user_id: userId, id: importId }).first<ImportRow | undefined>('*');
  return row ? recordOf(row) : undefined;
}

/** An import by id alone (the job queue's `{importId}`). */
export async function findImportById(db: Knex, importId: number): Promise<ImportRecord | undefined> {
  const row = await db('imports').where({ id: importId }).first<ImportRow | undefined>('*');
  return row ? recordOf(row) : undefined;
}

/** A real run has applied batches: its options are fixed, and running it again continues it. */
export function hasAppliedBatches(record: Pick<ImportRecord, 'options' | 'batches'>): boolean {
  return record.options !== null && !record.options.dryRun && record.batches > 0;
}

/** The options of an import cannot change now (a real run applied batches with the old ones). */
export class ImportOptionsFixed extends Error {}

/**
 * Sets what the next run does (a dry run first, then the real one with the same mapping) and
 * queues it: batches and report start afresh. Refused once a real run has applied batches: that
 * run is continued, never restarted with other options (docs/imports.md).
 * @public used by the import job (src/jobs/)
 */
export async function setImportOptions(
  db: Knex,
  userId: number,
  importId: number,
  change: { options: ImportOptions; format?: ImportFormat },
  now: Date,
): Promise<ImportRecord> {
  return db.transaction(async (trx) => {
    const row = await trx('imports').where({ user_id: userId, id: importId }).forUpdate().first<ImportRow | undefined>('*');
    if (!row) throw new ImportOptionsFixed(`There is no import ${importId}.`);
    if (hasAppliedBatches(recordOf(row))) {
      throw new ImportOptionsFixed('This import has already applied some of its values: run it again to continue it, or start a new one.');
    }
    const [updated] = await trx('imports')
      .where({ user_id: userId, id: importId })
      .update({
        options: JSON.stringify(change.options),
        format: change.format ?? row.format,
        state: 'queued',
        batches: 0,
        report: null,
        progress: null,
        error: null,
        updated_at: now,
        finished_at: null,
      })
      .returning<ImportRow[]>('*');
    return recordOf(updated);
  });
}

/**
 * The person's unfinished real run of this file with these options, to continue (the CLI run
 * again after a fault or a stop); undefined when there is none.
 */
export async function findUnfinishedImport(db: Knex, userId: number, filePath: string, options: ImportOptions): Promise<ImportRecord | undefined> {
  // jsonb equality compares structure, not key order (jsonb keeps keys in its own order).
  const row = await db('imports')
    .where({ user_id: userId, file_path: filePath })
    .whereIn('state', ['queued', 'running', 'stopped'])
    .whereRaw('options = ?::jsonb', [JSON.stringify(options)])
    .orderBy('id', 'desc')
    .first<ImportRow | undefined>('*');
  return row && !options.dryRun ? recordOf(row) : undefined;
}

/** Forgets where the uploaded file was (the page removed it). @public used by the import page */
export async function forgetImportFile(db: Knex, importId: number, now: Date): Promise<void> {
  await db('imports').where({ id: importId }).update({ file_path: null, updated_at: now });
}

/** A run starts (or continues). */
export async function markRunning(db: Knex, importId: number, now: Date): Promise<void> {
  await db('imports').where({ id: importId }).update({ state: 'running', error: null, updated_at: now, finished_at: null });
}

/** Another run of the same import got to this batch first: this one stops (its batch rolls back). */
export class ConcurrentRun extends Error {}

/**
 * The checkpoint of batch `batch`, in the batch's own transaction: the batch it reached and the
 * report so far. Only from the batch before it, so two runs of one import (a job retried while the
 * first still runs) never both apply a batch: the second waits for the first's row lock, then finds
 * the count moved on and rolls back.
 */
export async function checkpoint(
  trx: Knex.Transaction,
  importId: number,
  state: { batch: number; report: ImportReport; progress: ReadProgress | undefined; now: Date },
): Promise<void> {
  const updated = await trx('imports')
    .where({ id: importId, batches: state.batch - 1 })
    .update({ batches: state.batch, report: JSON.stringify(state.report), progress: JSON.stringify(state.progress ?? null), updated_at: state.now });
  if (updated !== 1) throw new ConcurrentRun(`Import ${importId} is being run by another process.`);
}

/** A run ends: done (the whole file), stopped (a fault in the file) or failed (it cannot go on). */
export async function endRun(
  db: Knex,
  importId: number,
  end: { state: 'done' | 'stopped' | 'failed'; report: ImportReport; progress: ReadProgress | undefined; error?: string; now: Date },
): Promise<void> {
  await db('imports')
    .where({ id: importId })
    .update({
      state: end.state,
      report: JSON.stringify(end.report),
      progress: JSON.stringify(end.progress ?? null),
      error: end.error ?? null,
      updated_at: end.now,
      finished_at: end.state === 'stopped' ? null : end.now,
    });
}

/** A dry run's progress (nothing else of it is stored before its end). */
export async function noteDryRunBatch(
  db: Knex,
  importId: number,
  state: { batch: number; report: ImportReport; progress: ReadProgress | undefined; now: Date },
): Promise<void> {
  await db('imports')
    .where({ id: importId })
    .update({ batches: state.batch, report: JSON.stringify(state.report), progress: JSON.stringify(state.progress ?? null), updated_at: state.now });
}

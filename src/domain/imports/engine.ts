/**
 * The import engine (docs/imports.md): runs one import of the `imports` table over an opened file.
 * Each column's target is resolved to an attribute (resolve.ts: created owned by Daybook when
 * missing), each value read by its attribute's value type (cells.ts) and checked by the same write
 * rules as the API's (value-rules.ts), then applied in set-based batches (apply-batch.ts), each in
 * one transaction with the import's checkpoint. A dry run reads the same days and writes nothing.
 * A second identical import finds every day unchanged and writes nothing; a run stopped anywhere
 * (a fault in the file, a crash) continues after its last applied batch when run again.
 *
 * The engine never imports the job queue: whoever runs it passes `enqueueDerive`, called once a
 * real run that changed something has finished.
 */
import type { Knex } from 'knex';
import { accessFor, WRITE_SCOPES } from '../apps-and-grants/scopes';
import { manualServicePk } from '../tracking/manual-tracking';
import { inBatchTransaction } from '../tracking/writes/batch';
import type { WriteContext } from '../tracking/writes/context';
import { localDate } from '../time';
import { applyDays, AttributeChanged, checkBatch, type DayValue, type Outcome } from './apply-batch';
import { checkpoint, endRun, findImportById, markRunning, noteDryRunBatch, type ImportRecord } from './imports-table';
import { MappingProblem, resolveMapping, type ResolvedColumn } from './resolve';
import { ImportFault, type FileValue, type ImportCounts, type ImportReader, type ImportReport, type ProgressListener, type ReadProgress } from './types';

/** The import's row (imports-table.ts), for the page's job and the CLI. */
export {
  createImport,
  findImport,
  /** @public used by the import job (src/jobs/) */
  findImportById,
  findUnfinishedImport,
  /** @public used by the import page (src/web/) */
  forgetImportFile,
  /** @public used by the import job (src/jobs/) */
  hasAppliedBatches,
  /** @public thrown by setImportOptions */
  ImportOptionsFixed,
  /** @public used by the import job (src/jobs/) */
  setImportOptions,
  /** @public */
  type ImportRecord,
} from './imports-table';

/** What the caller lends a run. */
export interface RunHooks {
  /** Queues the person's derive (src/jobs); called once when a real run that changed days finishes. */
  enqueueDerive?: (userId: number) => Promise<unknown>;
  /** How far the reader is (trackProgress), stored with each checkpoint for the page's progress. */
  progress?: () => ReadProgress | undefined;
  /** After each batch applied (or checked), with the report so far. */
  onBatch?: (report: ImportReport) => void;
  now?: () => Date;
}

/** The import cannot run: unknown, no options yet, or given up. */
export class ImportNotRunnable extends Error {}

/** Problems kept in a report (counts.refused has them all). */
const MAX_PROBLEMS = 100;

const zeroCounts = (): ImportCounts => ({ added: 0, changed: 0, unchanged: 0, kept: 0, refused: 0 });

function emptyReport(reader: ImportReader, dryRun: boolean): ImportReport {
  return { format: reader.format, dryRun, counts: zeroCounts(), columns: {}, problems: [], batches: 0, values: 0, created: [] };
}

/** A progress listener to open the file with, and its latest report for `RunHooks.progress`. */
export function trackProgress(next?: ProgressListener): { listener: ProgressListener; latest: () => ReadProgress | undefined } {
  let latest: ReadProgress | undefined;
  return {
    listener: (progress) => {
      latest = progress;
      next?.(progress);
    },
    latest: () => latest,
  };
}

function tally(report: ImportReport, column: string, outcome: Outcome): void {
  report.counts[outcome]++;
  (report.columns[column] ??= zeroCounts())[outcome]++;
}

function noteDates(report: ImportReport, days: DayValue[]): void {
  for (const day of days) {
    if (report.firstDate === undefined || day.date < report.firstDate) report.firstDate = day.date;
    if (report.lastDate === undefined || day.date > report.lastDate) report.lastDate = day.date;
  }
}

/** The report a run starts from: afresh, or the stored one when it continues after applied batches. */
function startingReport(record: ImportRecord, reader: ImportReader, resumeAfter: number): ImportReport {
  if (resumeAfter === 0 || !record.report) return emptyReport(reader, record.options!.dryRun);
  const { fault: _fault, ...report } = record.report;
  return report;
}

/** One batch: checked in memory, then decided (a dry run) or applied with its checkpoint (a real run). */
async function runBatch(
  db: Knex,
  run: { record: ImportRecord; columns: Map<string, ResolvedColumn>; context: WriteContext; hooks: RunHooks },
  values: FileValue[],
  position: { batch: number; valuesRead: number },
  report: ImportReport,
): Promise<ImportReport> {
  const { batch, valuesRead } = position;
  const { record, columns, context, hooks } = run;
  const options = record.options!;
  const work = async (handle: Knex): Promise<ImportReport> => {
    const next: ImportReport = structuredClone(report);
    const days = checkBatch(values, columns, (column, problem) => {
      tally(next, column, 'refused');
      if (next.problems.length < MAX_PROBLEMS) next.problems.push(problem);
    });
    const outcomes = await applyDays(handle, context, days, { existing: options.existing, write: !options.dryRun });
    days.forEach((day, index) => tally(next, day.column.key, outcomes[index]));
    noteDates(next, days);
    next.batches = batch;
    next.values = valuesRead;
    return next;
  };
  const state = (next: ImportReport) => ({ batch, report: next, progress: hooks.progress?.(), now: context.now });
  if (options.dryRun) {
    const next = await work(db);
    await noteDryRunBatch(db, record.id, state(next));
    return next;
  }
  return inBatchTransaction(db, async (trx) => {
    const next = await work(trx);
    await checkpoint(trx, record.id, state(next));
    return next;
  });
}

/**
 * Runs import `importId` over its opened file (the same file, opened afresh, when it continues).
 * Answers the report; the import's row holds it too. A fault in the file stops the run (`stopped`,
 * the report's `fault`); a mapping that cannot be applied fails it before anything is written.
 * Other errors (the database gone) propagate with the row left `running` at its last checkpoint.
 */
export async function runImport(db: Knex, importId: number, reader: ImportReader, hooks: RunHooks = {}): Promise<ImportReport> {
  const now = hooks.now ?? (() => new Date());
  const record = await findImportById(db, importId);
  if (!record) throw new ImportNotRunnable(`There is no import ${importId}.`);
  if (!record.options) throw new ImportNotRunnable('The import has no mapping yet.');
  if (record.state === 'failed') throw new ImportNotRunnable(`The import failed: ${record.error ?? 'it cannot go on'}.`);
  if (record.state === 'done' && record.report) return record.report;
  const options = record.options;
  const resumeAfter = options.dryRun ? 0 : record.batches;
  let report = startingReport(record, reader, resumeAfter);
  await markRunning(db, importId, now());
  const manualPk = await manualServicePk(db);
  const end = async (state: 'done' | 'stopped' | 'failed', error?: string) =>
    endRun(db, importId, { state, report, progress: hooks.progress?.(), error, now: now() });

  let columns: Map<string, ResolvedColumn>;
  try {
    const resolved = await resolveMapping(db, {
      userId: record.userId,
      manualPk,
      columns: reader.columns,
      mapping: options.mapping,
      create: !options.dryRun,
      now: now(),
    });
    columns = resolved.columns;
    if (resumeAfter === 0) report.created = resolved.created;
  } catch (error) {
    if (!(error instanceof MappingProblem)) throw error;
    report.fault = { where: 'the mapping', column: error.column || undefined, message: error.message };
    await end('failed', error.message);
    return report;
  }

  const person: { timezone: string } = await db('users').where({ id: record.userId }).first('timezone');
  const context: WriteContext = {
    userId: record.userId,
    clientPk: manualPk,
    access: accessFor(WRITE_SCOPES),
    now: now(),
    today: localDate(now(), person.timezone),
  };
  // The values the batches a stopped run applied took are read again (the file gives its values in
  // the same order) and skipped. Reports stored before `values` was kept had whole batches only.
  const skip = resumeAfter === 0 ? 0 : (record.report?.values ?? resumeAfter * record.batchSize);
  let batch = resumeAfter;
  let valuesRead = 0;
  let pending: FileValue[] = [];
  const flush = async () => {
    batch++;
    const values = pending;
    pending = [];
    context.now = now();
    report = await runBatch(db, { record, columns, context, hooks }, values, { batch, valuesRead }, report);
    hooks.onBatch?.(report);
  };
  let fault: ImportFault | undefined;
  try {
    try {
      for await (const value of reader.values()) {
        valuesRead++;
        if (valuesRead <= skip) continue;
        pending.push(value);
        if (pending.length >= record.batchSize) await flush();
      }
    } catch (error) {
      if (!(error instanceof ImportFault)) throw error;
      fault = error;
    }
    // What was read after the last full batch, up to the end or to a fault: a last, shorter batch.
    // So a fault keeps every value before it, and running it again continues right after them.
    if (pending.length > 0) await flush();
  } catch (error) {
    if (error instanceof AttributeChanged) {
      report.fault = { where: `batch ${batch}`, message: error.message };
      await end('failed', error.message);
      return report;
    }
    throw error;
  }
  if (fault) {
    report.fault = { where: fault.where, message: fault.message };
    await end('stopped', fault.message);
    return report;
  }
  await end('done');
  if (!options.dryRun && report.counts.added + report.counts.changed > 0) await hooks.enqueueDerive?.(record.userId);
  return report;
}

/**
 * What the import job needs of the engine (domain/imports/: openImportFile, defaultMapping,
 * runImport), in one small interface, so that the job's steps read the same whichever process
 * runs them and the engine's own API stays the engine's.
 */
import type { Knex } from 'knex';
import { createImport, findImportById, hasAppliedBatches, runImport, setImportOptions, trackProgress } from '../domain/imports/engine';
import { defaultMapping } from '../domain/imports/default-mapping';
import { openImportFile } from '../domain/imports/open';
import type { ExistingDays, ImportFormat, ImportOptions, ImportReader, ImportReport, Mapping, OpenReader, ProgressListener } from '../domain/imports/types';

export interface EngineRun {
  userId: number;
  /** The engine's run to continue (its `imports` row), or null for a new one. */
  runId: number | null;
  file: { path: string; name: string; bytes: number };
  options: { mapping: Mapping; existing: ExistingDays; dryRun: boolean };
  onProgress: ProgressListener;
  /** Called when a real run that changed days has finished (the person's derive is queued). */
  onImported: (userId: number) => Promise<unknown>;
  now: Date;
}

export interface ImportEngine {
  /** Opens a file of any format Daybook reads (throws ImportFault when it is none). */
  open: OpenReader;
  /** The mapping the preview proposes for the opened file. */
  propose(db: Knex, userId: number, reader: ImportReader): Promise<Mapping>;
  /** A dry run, or a real run (continuing `runId`'s batches); the engine's run and its report. */
  run(db: Knex, input: EngineRun): Promise<{ runId: number; report: ImportReport }>;
}

/** Whether two sets of options would do the same run. */
function sameOptions(a: ImportOptions | null, b: ImportOptions): boolean {
  return a !== null && JSON.stringify(a) === JSON.stringify(b);
}

/**
 * The engine's run for these options: the one given when it can do them (the same options: it
 * continues; other options and nothing applied yet: they are set, as after a dry run), else a new one.
 */
async function engineRunFor(db: Knex, input: EngineRun, format: ImportFormat): Promise<number> {
  const options: ImportOptions = input.options;
  const record = input.runId === null ? undefined : await findImportById(db, input.runId);
  if (record && record.state !== 'failed') {
    if (sameOptions(record.options, options)) return record.id;
    if (!hasAppliedBatches(record)) return (await setImportOptions(db, input.userId, record.id, { options, format }, input.now)).id;
  }
  const created = await createImport(db, {
    userId: input.userId,
    filePath: input.file.path,
    fileName: input.file.name,
    fileBytes: input.file.bytes,
    format,
    options,
    now: input.now,
  });
  return created.id;
}

async function runWithEngine(db: Knex, input: EngineRun): Promise<{ runId: number; report: ImportReport }> {
  const progress = trackProgress(input.onProgress);
  const reader = await openImportFile(input.file.path, progress.listener);
  const runId = await engineRunFor(db, input, reader.format);
  const report = await runImport(db, runId, reader, { enqueueDerive: input.onImported, progress: progress.latest });
  return { runId, report };
}

/** The engine of domain/imports. */
export const DEFAULT_IMPORT_ENGINE: ImportEngine = {
  open: openImportFile,
  propose: defaultMapping,
  run: runWithEngine,
};

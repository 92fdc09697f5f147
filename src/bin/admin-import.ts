/**
 * `npm run -s admin -- import --username U --file F [--dry-run] [--replace] [--batch-size N]`
 * (docs/imports.md, "The operator's command"): imports a file for a person with the mapping a
 * Daybook export describes, or the proposal for other files (existing attributes by name or label,
 * templates, else new custom attributes). A progress bar on stderr; the report as JSON on stdout.
 * Run again after a fault or a stop, it continues the unfinished run of the same file and options.
 * A real run that changed days queues the person's derive on the job queue.
 */
import path from 'node:path';
import { stat } from 'node:fs/promises';
import cliProgress from 'cli-progress';
import type { Logger } from 'pino';
import type { Config } from '../config';
import type { OpenDatabase } from '../database';
import { startJobs } from '../jobs/queues';
import { createImport, findUnfinishedImport, runImport, trackProgress } from '../domain/imports/engine';
import { defaultMapping } from '../domain/imports/default-mapping';
import { openImportFile } from '../domain/imports/open';
import { ImportFault, type ImportReport } from '../domain/imports/types';

export interface ImportCommand {
  userId: number;
  file: string;
  dryRun: boolean;
  replace: boolean;
  batchSize?: number;
}

/** A bar of the file's bytes on stderr (lines every few seconds when stderr is no terminal). */
function progressBar(totalBytes: number): cliProgress.SingleBar {
  const bar = new cliProgress.SingleBar(
    {
      format: 'Importing |{bar}| {percentage}% | {records} records | {eta_formatted} left',
      stream: process.stderr,
      hideCursor: true,
      noTTYOutput: true,
      notTTYSchedule: 5000,
    },
    cliProgress.Presets.shades_classic,
  );
  bar.start(Math.max(totalBytes, 1), 0, { records: 0 });
  return bar;
}

/** Queues the person's derive through pg-boss, enqueue-only (no worker in this process). */
async function queueDerive(database: OpenDatabase, config: Config, logger: Logger, userId: number): Promise<void> {
  const connectionString = config.databaseUrl ?? database.embedded!.url;
  const jobs = await startJobs({ connectionString, db: database.db, logger, now: () => new Date(), work: false, schedule: false });
  try {
    await jobs.enqueueDerive(userId);
  } finally {
    await jobs.stop();
  }
}

/** Runs the command; answers the report (a file that cannot be opened answers a report with its fault). */
export async function importCommand(database: OpenDatabase, config: Config, logger: Logger, command: ImportCommand): Promise<ImportReport | { fault: object }> {
  const file = path.resolve(command.file);
  const totalBytes = (await stat(file)).size;
  const bar = progressBar(totalBytes);
  const progress = trackProgress((read) => bar.update(read.bytes, { records: read.records }));
  try {
    let reader;
    try {
      reader = await openImportFile(file, progress.listener);
    } catch (error) {
      if (error instanceof ImportFault) return { fault: { where: error.where, message: error.message } };
      throw error;
    }
    const db = database.db;
    const options = {
      mapping: await defaultMapping(db, command.userId, reader),
      existing: command.replace ? ('replace' as const) : ('keep' as const),
      dryRun: command.dryRun,
    };
    const now = new Date();
    const record =
      (command.dryRun ? undefined : await findUnfinishedImport(db, command.userId, file, options)) ??
      (await createImport(db, {
        userId: command.userId,
        filePath: file,
        fileName: path.basename(file),
        fileBytes: totalBytes,
        format: reader.format,
        options,
        batchSize: command.batchSize,
        now,
      }));
    return await runImport(db, record.id, reader, {
      progress: progress.latest,
      enqueueDerive: (userId) => queueDerive(database, config, logger, userId),
    });
  } finally {
    bar.stop();
  }
}

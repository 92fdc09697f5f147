/**
 * Imports in the workers (docs/pages.md, "Importing"): the `import-run` queue {importId} does the
 * work of the step an import of /settings/import is in (domain/imports/uploads.ts), so a large
 * file neither blocks a request nor dies with it:
 * - `reading`: opens the file (its format sniffed) and proposes a mapping of its columns -> `preview`;
 * - `checking`: the dry run -> `checked` with its report;
 * - `running`: the real run, continuing the engine's run when there is one -> `done`, or `stopped`
 *   with the fault and where (every value before it applied; "Run again" continues).
 * The engine (domain/imports/engine.ts) checkpoints each batch, so a job cut short and retried, or
 * run again by the person, continues after the last batch applied.
 *
 * `import-sweep` (every minute) queues the job of an import in a working step that has none (the
 * page queues it at once when this process runs the workers; a web process without them leaves it
 * to the sweep), cancels imports left waiting for their person for ABANDON_AFTER_MS, and removes
 * files of the upload folder no import holds (an upload cut off, a process killed).
 */
import fs from 'node:fs';
import path from 'node:path';
import type PgBoss from 'pg-boss';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { forgetImportFile } from '../domain/imports/engine';
import { ImportFault } from '../domain/imports/types';
import { abandonUploads, liveFilePaths, moveUpload, uploadById, workingUploads, type ImportStage, type ImportUpload } from '../domain/imports/uploads';
import type { ReadProgress } from '../domain/imports/types';
import { knexRaw, sql } from '../db/sql';
import type { ImportEngine } from './import-engine';

export const IMPORT_QUEUE = 'import-run';
export const IMPORT_SWEEP_QUEUE = 'import-sweep';
export const IMPORT_SWEEP_SCHEDULE = '* * * * *';

/** An import left waiting for its person this long is cancelled and its file removed. */
export const ABANDON_AFTER_MS = 7 * 24 * 3600_000;
/** A file in the upload folder that no import holds is removed once it is this old (an upload in progress is younger). */
export const ORPHAN_AFTER_MS = 3600_000;
/** How often a running import records its progress for the page. */
const PROGRESS_EVERY_MS = 1000;
/** A whole real run of a large file may take this long before pg-boss takes it for dead and retries it. */
const EXPIRE_SECONDS = 4 * 3600;

/** The queues, created by jobs/queues.ts with the others (under its set-up lock), both `stately`. */
export const IMPORT_QUEUES = [IMPORT_QUEUE, IMPORT_SWEEP_QUEUE] as const;

export interface ImportJob {
  importId: string;
}

export interface ImportJobsOptions {
  boss: PgBoss;
  db: Knex;
  logger: Logger;
  now: () => Date;
  engine: ImportEngine;
  /** The upload folder (IMPORT_DIR). */
  dir: string;
  work: boolean;
  schedule: boolean;
  pollingIntervalSeconds: number;
  /** Called by the engine when a real run changed days: the person's derived data is computed again. */
  onImported: (userId: number) => Promise<unknown>;
}

export interface ImportJobs {
  /** Queues the work of an import's current step; null when its job is already waiting. */
  enqueue(importId: string): Promise<string | null>;
  /** The sweep's work, callable directly. */
  sweep(): Promise<{ queued: number; abandoned: number; removed: number }>;
}

const jobOptions = (importId: string): PgBoss.SendOptions => ({
  singletonKey: `import:${importId}`,
  retryLimit: 2,
  retryDelay: 30,
  expireInSeconds: EXPIRE_SECONDS,
});

async function removeFile(file: string | null): Promise<void> {
  if (file) await fs.promises.rm(file, { force: true });
}

/** What the person reads when something other than the file stopped a step (the details are logged). */
const FAILED = 'Something went wrong on Daybook’s side (it has been logged).';

export async function startImportJobs(options: ImportJobsOptions): Promise<ImportJobs> {
  const { boss, db, logger, now, engine } = options;
  const enqueue = (importId: string) => boss.send(IMPORT_QUEUE, { importId }, jobOptions(importId));

  /** Records progress at most every PROGRESS_EVERY_MS, while the import stays in `stage`. */
  function progressRecorder(upload: ImportUpload, stage: ImportStage): (progress: ReadProgress) => void {
    let last = 0;
    return (progress) => {
      const at = Date.now();
      if (at - last < PROGRESS_EVERY_MS) return;
      last = at;
      moveUpload(db, upload.id, [stage], { progress }, now()).catch((error: unknown) =>
        logger.warn({ err: error, importId: upload.id }, 'import progress not recorded'),
      );
    };
  }

  async function read(upload: ImportUpload, file: string): Promise<void> {
    const reader = await engine.open(file, progressRecorder(upload, 'reading'));
    const mapping = await engine.propose(db, upload.userId, reader);
    await moveUpload(db, upload.id, ['reading'], { stage: 'preview', format: reader.format, columns: reader.columns, mapping, progress: null }, now());
  }

  async function run(upload: ImportUpload, file: string, dryRun: boolean): Promise<void> {
    const stage = dryRun ? 'checking' : 'running';
    const { runId, report } = await engine.run(db, {
      userId: upload.userId,
      runId: upload.runId,
      file: { path: file, name: upload.fileName, bytes: upload.fileBytes },
      options: { mapping: upload.mapping ?? {}, existing: upload.existing, dryRun },
      onProgress: progressRecorder(upload, stage),
      onImported: options.onImported,
      now: now(),
    });
    if (dryRun) {
      await moveUpload(db, upload.id, [stage], { stage: 'checked', dryRun: report, runId, progress: null }, now());
      return;
    }
    if (report.fault) {
      await moveUpload(db, upload.id, [stage], { stage: 'stopped', report, runId, problem: null }, now());
    } else {
      const ended = await moveUpload(db, upload.id, [stage], { stage: 'done', report, runId, filePath: null, progress: null }, now());
      if (ended) {
        await removeFile(file);
        await forgetImportFile(db, runId, now());
      }
    }
  }

  /** Ends an import the file cannot go through (the file is not one Daybook reads, or it is gone). */
  async function unreadable(upload: ImportUpload, problem: { where: string; message: string }): Promise<void> {
    await moveUpload(db, upload.id, [upload.stage], { stage: 'unreadable', problem, filePath: null, progress: null }, now());
    await removeFile(upload.filePath);
  }

  /** The work of the import's current step (nothing when it is not in a working step any more). */
  async function work(job: PgBoss.JobWithMetadata<ImportJob>): Promise<unknown> {
    const upload = await uploadById(db, job.data.importId);
    if (!upload || !['reading', 'checking', 'running'].includes(upload.stage)) return { skipped: true };
    const file = upload.filePath;
    if (!file || !fs.existsSync(file)) {
      await unreadable(upload, {
        where: upload.fileName,
        message: 'The uploaded file is no longer there (it was removed, or uploaded to another machine). Upload it again.',
      });
      return { missing: true };
    }
    try {
      if (upload.stage === 'reading') await read(upload, file);
      else await run(upload, file, upload.stage === 'checking');
      return { stage: upload.stage };
    } catch (error) {
      if (error instanceof ImportFault && upload.stage === 'reading') {
        await unreadable(upload, { where: error.where, message: error.message });
        return { unreadable: error.message };
      }
      // Retried by pg-boss (the engine continues after its last batch); the last try tells the person.
      logger.error({ err: error, importId: upload.id, stage: upload.stage, retry: job.retryCount }, 'import step failed');
      if (job.retryCount < job.retryLimit) throw error;
      const problem = { where: '', message: FAILED };
      if (upload.stage === 'reading') await unreadable(upload, problem);
      else await moveUpload(db, upload.id, [upload.stage], { stage: 'stopped', problem, progress: null }, now());
      return { failed: true };
    }
  }

  /** Whether an import's job is waiting or running (read from pg-boss's table, as the derive sweep does). */
  async function queued(importId: string): Promise<boolean> {
    // pgboss: pg-boss's schema (its default, as jobs/queues.ts uses it).
    const result = (await db.raw(
      ...knexRaw(sql`select exists (select 1 from pgboss.job where name = ${IMPORT_QUEUE} and singleton_key = ${`import:${importId}`}
                      and state in ('created', 'retry', 'active')) as queued`),
    )) as { rows: Array<{ queued: boolean }> };
    return result.rows[0].queued;
  }

  async function removeOrphans(): Promise<number> {
    const names = await fs.promises.readdir(options.dir).catch(() => [] as string[]);
    const live = await liveFilePaths(db);
    let removed = 0;
    for (const name of names) {
      const file = path.join(options.dir, name);
      if (live.has(file)) continue;
      const stat = await fs.promises.stat(file).catch(() => undefined);
      if (!stat?.isFile() || now().getTime() - stat.mtimeMs < ORPHAN_AFTER_MS) continue;
      await removeFile(file);
      removed++;
    }
    return removed;
  }

  async function sweep(): Promise<{ queued: number; abandoned: number; removed: number }> {
    let count = 0;
    for (const { id } of await workingUploads(db)) if (!(await queued(id)) && (await enqueue(id))) count++;
    const abandoned = await abandonUploads(db, new Date(now().getTime() - ABANDON_AFTER_MS), now());
    for (const file of abandoned) await removeFile(file);
    return { queued: count, abandoned: abandoned.length, removed: await removeOrphans() };
  }

  if (options.work) {
    await boss.work<ImportJob>(IMPORT_QUEUE, { pollingIntervalSeconds: options.pollingIntervalSeconds, includeMetadata: true }, async ([job]) => work(job));
    await boss.work(IMPORT_SWEEP_QUEUE, { pollingIntervalSeconds: options.pollingIntervalSeconds }, async () => sweep());
  }
  if (options.schedule) await boss.schedule(IMPORT_SWEEP_QUEUE, IMPORT_SWEEP_SCHEDULE);
  return { enqueue, sweep };
}

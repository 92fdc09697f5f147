/**
 * The imports a person starts on /settings/import (docs/pages.md, "Importing"), one row of
 * `import_uploads` each, moved through its steps by the page (what the person chose) and the
 * `import-run` job (the work on the file: src/jobs/import-jobs.ts):
 *
 *   reading -> preview -> checking -> checked -> running -> done
 *                                  (any step)  -> unreadable | stopped | cancelled
 *
 * `reading`, `checking` and `running` are the steps a job works on; the others wait for the person.
 * The uploaded file is removed when the import ends (done, unreadable, cancelled); a stopped run
 * keeps it so that "Run again" continues, until the person cancels or it is abandoned.
 */
import type { Knex } from 'knex';
import { knexRaw, sql } from '../../db/sql';
import type { ExistingDays, FileColumn, ImportFormat, ImportProblem, ImportReport, Mapping, ReadProgress } from './types';

export type ImportStage = 'reading' | 'preview' | 'checking' | 'checked' | 'running' | 'done' | 'stopped' | 'unreadable' | 'cancelled';

/** The steps a job works on. */
export const WORKING_STAGES: readonly ImportStage[] = ['reading', 'checking', 'running'];

export interface ImportUpload {
  id: string;
  userId: number;
  stage: ImportStage;
  fileName: string;
  /** The uploaded file, while the import may still read it. */
  filePath: string | null;
  fileBytes: number;
  format: ImportFormat | null;
  columns: FileColumn[] | null;
  /** The proposal (after reading), then what the person chose (after the preview). */
  mapping: Mapping | null;
  existing: ExistingDays;
  progress: ReadProgress | null;
  dryRun: ImportReport | null;
  report: ImportReport | null;
  /** Why the file could not be read, or what stopped a run that is not the file's fault. */
  problem: ImportProblem | null;
  /** The engine's own run (its `imports` row), so that a run started again continues it. */
  runId: number | null;
  createdAt: Date;
  updatedAt: Date;
}

interface Row {
  id: string;
  user_id: string | number;
  stage: ImportStage;
  file_name: string;
  file_path: string | null;
  file_bytes: string | number;
  format: ImportFormat | null;
  columns: FileColumn[] | null;
  mapping: Mapping | null;
  existing: ExistingDays;
  progress: ReadProgress | null;
  dry_run: ImportReport | null;
  report: ImportReport | null;
  problem: ImportProblem | null;
  run_id: string | number | null;
  created_at: Date;
  updated_at: Date;
}

function uploadOf(row: Row): ImportUpload {
  return {
    id: row.id,
    userId: Number(row.user_id),
    stage: row.stage,
    fileName: row.file_name,
    filePath: row.file_path,
    fileBytes: Number(row.file_bytes),
    format: row.format,
    columns: row.columns,
    mapping: row.mapping,
    existing: row.existing,
    progress: row.progress,
    dryRun: row.dry_run,
    report: row.report,
    problem: row.problem,
    runId: row.run_id === null ? null : Number(row.run_id),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** The fields a step changes (camelCase, as ImportUpload names them). */
export type UploadChange = Partial<
  Pick<ImportUpload, 'stage' | 'filePath' | 'format' | 'columns' | 'mapping' | 'existing' | 'progress' | 'dryRun' | 'report' | 'problem' | 'runId'>
>;

const COLUMN_OF: Record<keyof UploadChange, string> = {
  stage: 'stage',
  filePath: 'file_path',
  format: 'format',
  columns: 'columns',
  mapping: 'mapping',
  existing: 'existing',
  progress: 'progress',
  dryRun: 'dry_run',
  report: 'report',
  problem: 'problem',
  runId: 'run_id',
};

const JSON_COLUMNS = new Set(['columns', 'mapping', 'progress', 'dry_run', 'report', 'problem']);

function rowChange(change: UploadChange, now: Date): Record<string, unknown> {
  const row: Record<string, unknown> = { updated_at: now };
  for (const [key, value] of Object.entries(change)) {
    const column = COLUMN_OF[key as keyof UploadChange];
    row[column] = JSON_COLUMNS.has(column) && value !== null && value !== undefined ? JSON.stringify(value) : value;
  }
  return row;
}

/** Records a file just uploaded, waiting to be read. */
export async function createUpload(db: Knex, userId: number, file: { name: string; path: string; bytes: number }, now: Date): Promise<ImportUpload> {
  const [row] = (await db('import_uploads')
    .insert({ user_id: userId, stage: 'reading', file_name: file.name, file_path: file.path, file_bytes: file.bytes, created_at: now, updated_at: now })
    .returning('*')) as Row[];
  return uploadOf(row);
}

/** The person's import, or undefined (another person's is undefined too). */
export async function personUpload(db: Knex, userId: number, id: string): Promise<ImportUpload | undefined> {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(id)) return undefined;
  const row = (await db('import_uploads').where({ user_id: userId, id }).first()) as Row | undefined;
  return row && uploadOf(row);
}

/** An import by id alone (the job's). */
export async function uploadById(db: Knex, id: string): Promise<ImportUpload | undefined> {
  const row = (await db('import_uploads').where({ id }).first()) as Row | undefined;
  return row && uploadOf(row);
}

/** The person's imports, newest first. */
export async function recentUploads(db: Knex, userId: number, limit = 10): Promise<ImportUpload[]> {
  const rows = (await db('import_uploads').where({ user_id: userId }).orderBy('created_at', 'desc').limit(limit)) as Row[];
  return rows.map(uploadOf);
}

/**
 * Moves an import on, only from one of the steps `from` (so a step the person or another job took
 * meanwhile is not overwritten); the import as it now is, or undefined when it was not in one of them.
 */
export async function moveUpload(db: Knex, id: string, from: readonly ImportStage[], change: UploadChange, now: Date): Promise<ImportUpload | undefined> {
  const [row] = (await db('import_uploads').where({ id }).whereIn('stage', from).update(rowChange(change, now)).returning('*')) as Row[];
  return row && uploadOf(row);
}

/** Imports in a working step (the sweep queues their job again when none is queued). */
export async function workingUploads(db: Knex): Promise<Array<{ id: string; userId: number }>> {
  const rows = (await db('import_uploads').whereIn('stage', WORKING_STAGES).select('id', 'user_id')) as Array<{ id: string; user_id: string }>;
  return rows.map((row) => ({ id: row.id, userId: Number(row.user_id) }));
}

/**
 * Imports waiting for their person since before `before` (a preview never confirmed, a run stopped
 * and never started again): cancelled, their file paths answered so that the caller removes them.
 */
export async function abandonUploads(db: Knex, before: Date, now: Date): Promise<string[]> {
  const result = (await db.raw(
    ...knexRaw(sql`with old as (
        select user_id, id, file_path from import_uploads
         where stage in ('preview', 'checked', 'stopped') and updated_at < ${before}::timestamptz
         for update)
      update import_uploads u set stage = 'cancelled', file_path = null, updated_at = ${now}::timestamptz
        from old where u.user_id = old.user_id and u.id = old.id
      returning old.file_path`),
  )) as { rows: Array<{ file_path: string | null }> };
  return result.rows.map((row) => row.file_path).filter((p): p is string => p !== null);
}

/** Every file an import may still read (the sweep removes the other files of the folder). */
export async function liveFilePaths(db: Knex): Promise<Set<string>> {
  const rows = (await db('import_uploads').whereNotNull('file_path').select('file_path')) as Array<{ file_path: string }>;
  return new Set(rows.map((row) => row.file_path));
}

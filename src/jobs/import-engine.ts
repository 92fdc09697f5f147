/**
 * What the import job needs of the engine (domain/imports/: openImportFile, proposeMapping,
 * runImport), in one small interface, so that the job's steps read the same whichever process
 * runs them and the engine's own API stays the engine's.
 */
import type { Knex } from 'knex';
import {
  ImportFault,
  type ExistingDays,
  type FileColumn,
  type ImportReport,
  type Mapping,
  type OpenReader,
  type ProgressListener,
} from '../domain/imports/types';

export interface EngineRun {
  userId: number;
  /** The engine's run to continue (its `imports` row), or null for a new one. */
  runId: number | null;
  file: { path: string; name: string; bytes: number };
  options: { mapping: Mapping; existing: ExistingDays; dryRun: boolean };
  onProgress: ProgressListener;
  now: Date;
}

export interface ImportEngine {
  /** Opens a file of any format Daybook reads (throws ImportFault when it is none). */
  open: OpenReader;
  /** The mapping the preview proposes. */
  propose(db: Knex, userId: number, columns: FileColumn[]): Promise<Mapping>;
  /** A dry run, or a real run (continuing `runId`'s batches); the engine's run and its report. */
  run(db: Knex, input: EngineRun): Promise<{ runId: number; report: ImportReport }>;
}

/** Until the engine's branch is merged: every import stops at reading, saying so. */
export const DEFAULT_IMPORT_ENGINE: ImportEngine = {
  open: () => Promise.reject(new ImportFault('', 'Importing is not available on this Daybook yet.')),
  propose: () => Promise.resolve({}),
  run: () => Promise.reject(new Error('The import engine is not available.')),
};

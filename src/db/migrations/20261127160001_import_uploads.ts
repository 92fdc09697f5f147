/**
 * The imports a person started on /settings/import (docs/pages.md, "Importing"): one row per
 * uploaded file, holding what the page shows at each step: the file waiting on disk, the columns
 * and the mapping of the preview, the dry run's report, the progress and report of the real run.
 * The engine's own state of a run (the batch it reached, for resuming) is the engine's `imports`
 * table (docs/imports.md); `run_id` points at it. Led by user_id, like every table of a person's
 * data (docs/scaling.md).
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table import_uploads (
      user_id bigint not null references users (id) on delete cascade,
      id uuid not null default gen_random_uuid(),
      stage text not null,
      file_name text not null,
      file_path text,
      file_bytes bigint not null,
      format text,
      columns jsonb,
      mapping jsonb,
      existing text not null default 'keep',
      progress jsonb,
      dry_run jsonb,
      report jsonb,
      problem jsonb,
      run_id bigint,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      primary key (user_id, id)
    )`);
  // The job and the sweep find a row by its id alone.
  await knex.raw('create index import_uploads_id on import_uploads (id)');
  await knex.raw('create index import_uploads_stage on import_uploads (stage, updated_at)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('import_uploads');
}

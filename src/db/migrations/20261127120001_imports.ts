/**
 * Imports (docs/imports.md): one row per import a person (the settings page) or an operator (the
 * CLI) starts. It holds the run's state, its options (mapping, keep/replace, dry run), the batch
 * it reached and its report so far. The engine updates `batches` and `report` in the same
 * transaction as each batch it applies, so a run stopped anywhere continues after its last
 * applied batch. Rows live until the person's account is deleted (a history of what came in).
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table imports (
      user_id bigint not null references users (id) on delete cascade,
      id bigserial not null unique,
      state text not null default 'new' check (state in ('new', 'queued', 'running', 'stopped', 'done', 'failed')),
      file_path text,
      file_name text,
      file_bytes bigint,
      format text,
      options jsonb,
      batch_size integer not null default 1000 check (batch_size > 0),
      batches integer not null default 0 check (batches >= 0),
      report jsonb,
      progress jsonb,
      error text,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      finished_at timestamptz,
      primary key (user_id, id)
    )`);
  // The housekeeping sweep and the page find unfinished runs and stale uploads by state and age.
  await knex.raw('create index imports_state_updated on imports (state, updated_at)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('imports');
}

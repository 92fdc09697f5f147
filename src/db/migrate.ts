/**
 * Runs the schema migrations from the static list in `migrations/index.ts`.
 */
import type { Knex } from 'knex';
import { MIGRATIONS, type NamedMigration } from './migrations';
import { ADVISORY_LOCKS, withSessionLock } from './advisory-locks';

const migrationSource: Knex.MigrationSource<NamedMigration> = {
  getMigrations: async () => [...MIGRATIONS],
  getMigrationName: (migration) => migration.name,
  getMigration: async (migration) => migration,
};

/** The migrator configuration every caller shares (table name is knex's default). */
export const MIGRATION_CONFIG: Knex.MigratorConfig = { migrationSource, tableName: 'knex_migrations' };

/**
 * Several instances starting together wait for each other instead of failing on knex's own
 * "migration table is already locked".
 */
function withMigrationLock<T>(knex: Knex, work: () => Promise<T>): Promise<T> {
  return withSessionLock(knex, ADVISORY_LOCKS.migration, work);
}

/** Applies every migration not yet applied. Safe to run on each start and from several instances. */
export async function migrateLatest(knex: Knex): Promise<void> {
  await withMigrationLock(knex, () => knex.migrate.latest(MIGRATION_CONFIG));
}

/** Reverts every applied migration (tests and tooling; never run by the service). */
export async function migrateRollbackAll(knex: Knex): Promise<void> {
  await withMigrationLock(knex, () => knex.migrate.rollback(MIGRATION_CONFIG, true));
}

/**
 * Runs the schema migrations from the static list in `migrations/index.ts`.
 */
import type { Knex } from 'knex';
import { MIGRATIONS, type NamedMigration } from './migrations';

const migrationSource: Knex.MigrationSource<NamedMigration> = {
  getMigrations: async () => [...MIGRATIONS],
  getMigrationName: (migration) => migration.name,
  getMigration: async (migration) => migration,
};

/** The migrator configuration every caller shares (table name is knex's default). */
export const MIGRATION_CONFIG: Knex.MigratorConfig = { migrationSource, tableName: 'knex_migrations' };

// Arbitrary constant naming "Daybook schema migration" among advisory locks.
const MIGRATION_LOCK_KEY = 7_302_118_001;

/**
 * Holds a session-level advisory lock while `work` runs, so several instances starting together
 * wait for each other instead of failing on knex's own "migration table is already locked" (and
 * a crashed instance's lock dies with its connection). Uses one pooled connection of its own, so
 * the pool needs at least two.
 */
async function withMigrationLock<T>(knex: Knex, work: () => Promise<T>): Promise<T> {
  const connection: unknown = await knex.client.acquireConnection();
  try {
    await knex.raw('select pg_advisory_lock(?)', [MIGRATION_LOCK_KEY]).connection(connection);
    try {
      return await work();
    } finally {
      await knex.raw('select pg_advisory_unlock(?)', [MIGRATION_LOCK_KEY]).connection(connection);
    }
  } finally {
    await knex.client.releaseConnection(connection);
  }
}

/** Applies every migration not yet applied. Safe to run on each start and from several instances. */
export async function migrateLatest(knex: Knex): Promise<void> {
  await withMigrationLock(knex, () => knex.migrate.latest(MIGRATION_CONFIG));
}

/** Reverts every applied migration (tests and tooling; never run by the service). */
export async function migrateRollbackAll(knex: Knex): Promise<void> {
  await withMigrationLock(knex, () => knex.migrate.rollback(MIGRATION_CONFIG, true));
}

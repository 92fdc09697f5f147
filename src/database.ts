/**
 * Opens the service's database: DATABASE_URL when set, else the embedded PostgreSQL under DATA_DIR.
 * Migrates and seeds the catalogue (both idempotent, safe from several instances at once).
 */
import path from 'node:path';
import type { Knex } from 'knex';
import type { Config } from './config';
import { startEmbeddedPostgres, type EmbeddedDatabase } from './db/embedded';
import { createKnex } from './db/knex';
import { migrateLatest } from './db/migrate';
import { seedCatalogue } from './db/catalogue';

export interface OpenDatabase {
  db: Knex;
  embedded: EmbeddedDatabase | undefined;
  /** Says which database is used, without credentials, for the start-up log line. */
  description: string;
  close(): Promise<void>;
}

function describeUrl(url: string): string {
  const parsed = new URL(url);
  return `postgres at ${parsed.hostname}:${parsed.port || 5432}${parsed.pathname}`;
}

/**
 * `reuseRunning` (the admin CLI): connect to an embedded cluster the running service already
 * started, instead of treating it as a leftover of a killed process.
 */
export async function openDatabase(config: Config, options: { reuseRunning?: boolean } = {}): Promise<OpenDatabase> {
  const embedded = config.databaseUrl
    ? undefined
    : await startEmbeddedPostgres({
        dir: path.join(config.dataDir, 'postgres'),
        port: config.embeddedPgPort,
        database: 'daybook',
        reuseRunning: options.reuseRunning,
      });
  const url = config.databaseUrl ?? embedded!.url;
  const db = createKnex(url, { pool: { min: 0, max: Math.max(2, config.dbPoolMax) } });
  try {
    await migrateLatest(db);
    await seedCatalogue(db);
  } catch (error) {
    await db.destroy();
    await embedded?.stop();
    throw error;
  }
  return {
    db,
    embedded,
    description: embedded
      ? `embedded PostgreSQL in ${path.relative(process.cwd(), path.join(config.dataDir, 'postgres')) || '.'} (port ${config.embeddedPgPort})`
      : describeUrl(url),
    async close() {
      await db.destroy();
      await embedded?.stop();
    },
  };
}

/**
 * Opens the service's database: DATABASE_URL when set, else the embedded PostgreSQL under DATA_DIR.
 * Migrates and seeds the catalogue (both idempotent, safe from several instances at once).
 */
import path from 'node:path';
import type { Knex } from 'knex';
import type { Config } from './config';
import { startEmbeddedPostgres, type EmbeddedDatabase } from './db/embedded';
import { createKnex, type DatabaseTimeouts } from './db/knex';
import { migrateLatest } from './db/migrate';
import { seedCatalogue } from './db/seed-catalogue';
import { Replicas } from './db/replicas';
import type { Logger } from 'pino';

export interface OpenDatabase {
  db: Knex;
  embedded: EmbeddedDatabase | undefined;
  /** The streaming replicas of DATABASE_REPLICA_URLS (checked, and rechecked every second), when set. */
  replicas: Replicas | undefined;
  /** Says which database is used, without credentials, for the start-up log line. */
  description: string;
  close(): Promise<void>;
}

function describeUrl(url: string): string {
  const parsed = new URL(url);
  return `postgres at ${parsed.hostname}:${parsed.port || 5432}${parsed.pathname}`;
}

/** Where the embedded cluster is; as root it may live outside DATA_DIR, linked from it (docs/operating.md). */
function describeEmbedded(asked: string, dir: string, port: number): string {
  const shown = path.relative(process.cwd(), asked) || '.';
  return dir === asked ? `embedded PostgreSQL in ${shown} (port ${port})` : `embedded PostgreSQL in ${dir}, linked from ${shown} (port ${port})`;
}

/** The database time limits of the settings (DB_*_TIMEOUT_MS). */
export function databaseTimeouts(config: Config): DatabaseTimeouts {
  return {
    connectMs: config.dbConnectTimeoutMs,
    acquireMs: config.dbAcquireTimeoutMs,
    statementMs: config.dbStatementTimeoutMs,
    unansweredMs: config.dbQueryTimeoutMs,
  };
}

/** Migrations and the catalogue seed, on a connection of their own without the statement limits (an index build may take long). */
async function prepareSchema(url: string, config: Config): Promise<void> {
  const db = createKnex(url, { pool: { min: 0, max: 2 }, timeouts: { connectMs: config.dbConnectTimeoutMs } });
  try {
    await migrateLatest(db);
    await seedCatalogue(db);
  } finally {
    await db.destroy();
  }
}

/**
 * `reuseRunning` (the admin CLI): connect to an embedded cluster the running service already
 * started, instead of treating it as a leftover of a killed process. `schemaReady` (the HTTP
 * processes of WEB_CONCURRENCY > 1, src/cluster.ts): the primary has migrated and seeded already.
 */
export async function openDatabase(config: Config, options: { reuseRunning?: boolean; schemaReady?: boolean; logger?: Logger } = {}): Promise<OpenDatabase> {
  const embedded = config.databaseUrl
    ? undefined
    : await startEmbeddedPostgres({
        dir: path.join(config.dataDir, 'postgres'),
        port: config.embeddedPgPort,
        database: 'daybook',
        reuseRunning: options.reuseRunning,
      });
  const url = config.databaseUrl ?? embedded!.url;
  try {
    if (!options.schemaReady) await prepareSchema(url, config);
  } catch (error) {
    await embedded?.stop();
    throw error;
  }
  const db = createKnex(url, { pool: { min: 0, max: Math.max(2, config.dbPoolMax) }, timeouts: databaseTimeouts(config) });
  const replicas =
    config.databaseReplicaUrls.length > 0
      ? new Replicas(db, config.databaseReplicaUrls, {
          maxLagMs: config.databaseReplicaMaxLagMs,
          poolMax: Math.max(2, config.dbPoolMax),
          timeouts: databaseTimeouts(config),
          logger: options.logger,
        })
      : undefined;
  await replicas?.start(); // a replica that is down now is left out, and used once a check finds it up
  return {
    db,
    embedded,
    replicas,
    description: embedded ? describeEmbedded(path.join(config.dataDir, 'postgres'), embedded.dir, config.embeddedPgPort) : describeUrl(url),
    async close() {
      await replicas?.close();
      await db.destroy();
      await embedded?.stop();
    },
  };
}

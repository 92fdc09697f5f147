/**
 * Jest global set-up: starts the test clusters and prepares their template database, and builds
 * the Redoc pages once if they are missing (the docs routes serve them).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import path from 'node:path';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../src/db/embedded';
import { createKnex } from '../../src/db/knex';
import { migrateLatest } from '../../src/db/migrate';
import { seedCatalogue } from '../../src/db/seed-catalogue';
import { DOCS_DIR, PROJECT_ROOT } from '../../src/paths';
import { CLUSTERS_ENV, TEMPLATE_DATABASE, clusterDir, databaseUrl, freePort, sweepAbandonedClusters, withAdmin } from './clusters';

declare global {
  var daybookClusters: EmbeddedDatabase[] | undefined;
}

async function prepareTemplate(adminUrl: string): Promise<void> {
  await withAdmin(adminUrl, async (client) => {
    // Leftovers of an interrupted run, then a fresh template with the current migrations.
    const stale = await client.query("SELECT datname FROM pg_database WHERE datname LIKE 'daybook_test_%' OR datname = $1", [TEMPLATE_DATABASE]);
    for (const { datname } of stale.rows) await client.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
    await client.query(`CREATE DATABASE "${TEMPLATE_DATABASE}"`);
  });
  const knex = createKnex(databaseUrl(adminUrl, TEMPLATE_DATABASE), { pool: { min: 0, max: 2 } });
  try {
    await migrateLatest(knex);
    await seedCatalogue(knex);
  } finally {
    await knex.destroy();
  }
}

const run = promisify(execFile);

/**
 * The process-level tests (server lifecycle, admin CLI) run the compiled service, as `npm start`
 * does; the docs routes serve the Redoc pages. Both builds are incremental. tsc emits even when a
 * type is wrong; `npm test` type-checks separately, so a type error is reported there and does not
 * stop every test here.
 */
async function buildDist(): Promise<void> {
  try {
    await run(process.execPath, [path.join(PROJECT_ROOT, 'node_modules/typescript/bin/tsc'), '-p', path.join(PROJECT_ROOT, 'tsconfig.build.json')], {
      maxBuffer: 64 * 1024 * 1024,
    });
  } catch (error) {
    process.stderr.write(`\nThe TypeScript build reported errors (dist/ was still written):\n${(error as { stdout?: string }).stdout ?? ''}\n`);
  }
  if (!fs.existsSync(path.join(DOCS_DIR, 'v2.html'))) await run(process.execPath, [path.join(PROJECT_ROOT, 'src/tools/build-api.mjs'), '--docs']);
}

/** The clusters (or DATABASE_URL's server), each with a fresh template database; their admin URLs. */
async function prepareClusters(workers: number): Promise<string[]> {
  let adminUrls: string[];
  if (process.env.DATABASE_URL) {
    adminUrls = [databaseUrl(process.env.DATABASE_URL, 'postgres')];
  } else {
    sweepAbandonedClusters();
    globalThis.daybookClusters = await Promise.all(
      Array.from({ length: workers }, async (_, index) => startEmbeddedPostgres({ dir: clusterDir(index + 1), port: await freePort(), database: 'postgres' })),
    );
    adminUrls = globalThis.daybookClusters.map((cluster) => cluster.adminUrl);
  }
  await Promise.all(adminUrls.map(prepareTemplate));
  return adminUrls;
}

export default async function globalSetup(globalConfig: { maxWorkers: number }): Promise<void> {
  // The build (one tsc process, CPU-bound: most of a minute on a fresh clone) and the clusters
  // (initdb, migrations: mostly waiting on the disk and on Postgres) overlap.
  const [adminUrls] = await Promise.all([prepareClusters(Math.max(1, globalConfig.maxWorkers)), buildDist()]);
  process.env[CLUSTERS_ENV] = JSON.stringify(adminUrls);
}

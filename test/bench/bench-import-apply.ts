/**
 * The end-to-end part of `npm run bench:import`: one Apple Health export read, checked and applied
 * through the import engine (`runImport`, real batches in transactions) into a fresh person on an
 * embedded PostgreSQL of its own. Run in a child process of its own so that its peak RSS is the
 * import's (PostgreSQL's processes are not counted: they are the database's, not the import's).
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { startEmbeddedPostgres } from '../../src/db/embedded';
import { createKnex } from '../../src/db/knex';
import { migrateLatest } from '../../src/db/migrate';
import { seedCatalogue } from '../../src/db/seed-catalogue';
import { createUser } from '../../src/domain/identity/users';
import { openAppleHealth } from '../../src/domain/imports/apple-health';
import { exportedColumnTarget } from '../../src/domain/imports/default-mapping';
import { createImport, runImport } from '../../src/domain/imports/engine';

export interface ApplyFigures {
  file: string;
  records: number;
  /** Reading and aggregating the file (openAppleHealth). */
  readSeconds: number;
  /** Checking and applying its day values (runImport). */
  applySeconds: number;
  seconds: number;
  cpuSeconds: number;
  /** Day values the file gave, added, and refused by the write rules (the first problem, if any). */
  values: number;
  added: number;
  refused: number;
  firstProblem?: string;
  batches: number;
  recordsPerSecond: number;
  peakRssMB: number;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Imports `file` for a new person (in batches of `batchSize` values, else the imports' default); answers the figures. */
export async function applyOne(file: string, records: number, batchSize?: number): Promise<ApplyFigures> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'daybook-bench-import-pg-'));
  fs.chmodSync(dir, 0o755); // as root the cluster runs as the postgres user, who must reach its folder
  const pg = await startEmbeddedPostgres({ dir: path.join(dir, 'pg'), port: await freePort(), database: 'daybook_bench' });
  const db = createKnex(pg.url, { pool: { min: 0, max: 4 } });
  try {
    await migrateLatest(db);
    await seedCatalogue(db);
    const { user } = await createUser(
      db,
      { username: 'importer', password: 'a long bench password 1', timezone: 'Europe/Berlin' },
      'bench-secret-key-0123456789abcdefghijklmnop',
    );
    const cpuBefore = process.cpuUsage();
    const started = process.hrtime.bigint();
    const reader = await openAppleHealth(file);
    const read = process.hrtime.bigint();
    // Every column to its template (body temperature, which has none, to a new health attribute).
    const mapping = Object.fromEntries(reader.columns.map((column) => [column.key, exportedColumnTarget({ ...column, group: column.group ?? 'health' })]));
    const record = await createImport(db, {
      userId: user.id,
      format: reader.format,
      options: { mapping, existing: 'keep', dryRun: false },
      batchSize,
      now: new Date(),
    });
    const report = await runImport(db, record.id, reader);
    const done = process.hrtime.bigint();
    if (report.fault) throw new Error(`The import stopped: ${report.fault.where}: ${report.fault.message}`);
    const cpu = process.cpuUsage(cpuBefore);
    const seconds = Number(done - started) / 1e9;
    return {
      file: path.basename(file),
      records,
      readSeconds: Number(read - started) / 1e9,
      applySeconds: Number(done - read) / 1e9,
      seconds,
      cpuSeconds: (cpu.user + cpu.system) / 1e6,
      values: Object.values(report.counts).reduce((a, b) => a + b, 0),
      added: report.counts.added,
      refused: report.counts.refused,
      ...(report.problems.length > 0 ? { firstProblem: `${report.problems[0].where}: ${report.problems[0].message}` } : {}),
      batches: report.batches,
      recordsPerSecond: records / seconds,
      peakRssMB: process.resourceUsage().maxRSS / 1024,
    };
  } finally {
    await db.destroy();
    await pg.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

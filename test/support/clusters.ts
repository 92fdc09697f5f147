/**
 * The test databases. One embedded PostgreSQL per jest worker (or the server of DATABASE_URL),
 * each holding `daybook_template`: migrated and seeded once per run. Test files clone it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';
import pg from 'pg';
import { isAlive } from '../../src/db/embedded';

export const TEMPLATE_DATABASE = 'daybook_template';
export const CLUSTERS_ENV = 'DAYBOOK_TEST_CLUSTERS';

/** Admin URLs (maintenance database) of the clusters, as global-setup published them. */
export function clusterAdminUrls(): string[] {
  const raw = process.env[CLUSTERS_ENV];
  if (!raw) throw new Error(`${CLUSTERS_ENV} is not set: run the tests through jest (npm test).`);
  return JSON.parse(raw) as string[];
}

/** The cluster of the current jest worker. */
export function workerAdminUrl(): string {
  const urls = clusterAdminUrls();
  const worker = Number(process.env.JEST_WORKER_ID ?? '1');
  return urls[(worker - 1) % urls.length];
}

const CLUSTER_PREFIX = 'daybook-test-pg-';

/**
 * Each jest run gets clusters of its own (named by the run's pid), so two runs on one machine never
 * stop each other's databases.
 */
export function clusterDir(index: number): string {
  return path.join(os.tmpdir(), `${CLUSTER_PREFIX}${process.pid}-${index}`);
}

/** Removes the clusters of earlier runs that were killed before their tear-down (and their postmasters). */
export function sweepAbandonedClusters(): void {
  for (const name of fs.readdirSync(os.tmpdir())) {
    const match = new RegExp(`^${CLUSTER_PREFIX}(\\d+)-\\d+$`).exec(name);
    if (!match || isAlive(Number(match[1]))) continue;
    const dir = path.join(os.tmpdir(), name);
    const pidFile = path.join(dir, 'postmaster.pid');
    if (fs.existsSync(pidFile)) {
      const postmaster = Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]);
      if (postmaster > 0 && isAlive(postmaster)) process.kill(postmaster, 'SIGQUIT'); // immediate: nothing in it is kept
    }
    removeCluster(dir);
  }
}

/**
 * Deletes a cluster's folder, its password and lock; as root a folder may be a link to where the
 * cluster really is (src/db/cluster-folder.ts), and that goes too.
 */
function removeCluster(dir: string): void {
  if (fs.lstatSync(dir, { throwIfNoEntry: false })?.isSymbolicLink())
    fs.rmSync(path.resolve(path.dirname(dir), fs.readlinkSync(dir)), { recursive: true, force: true });
  fs.rmSync(dir, { recursive: true, force: true });
  fs.rmSync(`${dir}.password`, { force: true });
  fs.rmSync(`${dir}.service-password`, { force: true });
  fs.rmSync(`${dir}.lock`, { force: true });
}

/** Deletes this run's cluster folders (after the clusters stopped). */
export function removeClusterDirs(count: number): void {
  for (let index = 1; index <= count; index++) removeCluster(clusterDir(index));
}

/** A free TCP port on loopback. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address() as net.AddressInfo;
      server.close(() => resolve(address.port));
    });
  });
}

export function databaseUrl(adminUrl: string, database: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

export async function withAdmin<T>(adminUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * The test databases. One embedded PostgreSQL per jest worker (or the server of DATABASE_URL),
 * each holding `daybook_template`: migrated and seeded once per run. Test files clone it.
 */
import path from 'node:path';
import net from 'node:net';
import pg from 'pg';
import { PROJECT_ROOT } from '../../src/paths';

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

export function clusterDir(index: number): string {
  return path.join(PROJECT_ROOT, '.data', `test-postgres-${index}`);
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

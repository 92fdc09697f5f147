/**
 * The bench's PostgreSQL server and its databases: the embedded PostgreSQL (a cluster of the
 * bench's own under .data/bench/, the same binaries and settings `npm start` uses), or the server
 * of DATABASE_URL (its user needs CREATEDB). Each dataset lives in a database of its own,
 * `daybook_bench_<users>`, dropped and created fresh unless --reuse-data finds it loaded with the
 * same parameters (recorded as the database's comment).
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres } from '../../src/db/embedded';
import { PROJECT_ROOT } from '../../src/paths';

export interface BenchServer {
  /** URL of the maintenance database, for CREATE/DROP DATABASE. */
  adminUrl: string;
  /** Says which server, without credentials. */
  description: string;
  /** The postmaster's pid when the server runs on this machine (for CPU figures), else undefined. */
  postmasterPid: number | undefined;
  urlOf(database: string): string;
  stop(): Promise<void>;
}

/** The parameters a dataset was loaded with; a database whose comment matches is reused by --reuse-data. */
export interface DatasetSpec {
  users: number;
  attributes: number;
  days: number;
  seed: number;
  /** The last day of data, YYYY-mm-dd. */
  endDate: string;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

export function withDatabase(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${encodeURIComponent(name)}`;
  return parsed.toString();
}

export async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** The postmaster of a local server: the parent of this connection's backend, if that backend is a process here. */
async function localPostmaster(url: string): Promise<number | undefined> {
  // Read while connected: the backend exits when the connection closes.
  return withClient(url, async (client) => {
    const backend = (await client.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0].pid;
    try {
      const stat = fs.readFileSync(`/proc/${backend}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const comm = fs.readFileSync(`/proc/${ppid}/comm`, 'utf8').trim();
      return comm.startsWith('postgres') ? ppid : undefined;
    } catch {
      return undefined; // a remote server: its CPU is not measured
    }
  });
}

/** Starts the bench's embedded cluster, or connects to DATABASE_URL's server. */
export async function openBenchServer(databaseUrl: string | undefined): Promise<BenchServer> {
  if (databaseUrl) {
    const adminUrl = withDatabase(databaseUrl, 'postgres');
    const parsed = new URL(databaseUrl);
    return {
      adminUrl,
      description: `PostgreSQL at ${parsed.hostname}:${parsed.port || 5432} (DATABASE_URL)`,
      postmasterPid: await localPostmaster(adminUrl),
      urlOf: (database) => withDatabase(databaseUrl, database),
      stop: async () => undefined,
    };
  }
  const dir = path.join(PROJECT_ROOT, '.data', 'bench', 'postgres');
  const port = await freePort();
  const cluster = await startEmbeddedPostgres({ dir, port, database: 'postgres' });
  const pidFile = path.join(dir, 'postmaster.pid');
  const fromPidFile = fs.existsSync(pidFile) ? Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]) : NaN;
  return {
    adminUrl: cluster.adminUrl,
    description: `embedded PostgreSQL in ${path.relative(PROJECT_ROOT, dir)} (port ${port})`,
    postmasterPid: Number.isInteger(fromPidFile) && fromPidFile > 0 ? fromPidFile : await localPostmaster(cluster.adminUrl),
    urlOf: (database) => withDatabase(cluster.adminUrl, database),
    stop: () => cluster.stop(),
  };
}

export function datasetDatabaseName(spec: DatasetSpec): string {
  return `daybook_bench_${spec.users}`;
}

/** The spec recorded on a loaded database, or undefined when it does not exist or was never finished. */
export async function loadedSpec(server: BenchServer, database: string): Promise<DatasetSpec | undefined> {
  return withClient(server.adminUrl, async (client) => {
    const found = await client.query<{ comment: string | null }>('select shobj_description(oid, $2) as comment from pg_database where datname = $1', [
      database,
      'pg_database',
    ]);
    const comment = found.rows[0]?.comment;
    if (!comment?.startsWith('{')) return undefined;
    return JSON.parse(comment) as DatasetSpec;
  });
}

export async function recordSpec(server: BenchServer, database: string, spec: DatasetSpec): Promise<void> {
  await withClient(server.adminUrl, (client) => client.query(`comment on database "${database}" is ${client.escapeLiteral(JSON.stringify(spec))}`));
}

/** Drops the database if it exists (closing its connections) and creates it empty. */
export async function freshDatabase(server: BenchServer, database: string): Promise<void> {
  await withClient(server.adminUrl, async (client) => {
    await client.query(`drop database if exists "${database}" with (force)`);
    await client.query(`create database "${database}"`);
  });
}

export function sameSpec(a: DatasetSpec | undefined, b: DatasetSpec): boolean {
  return a !== undefined && a.users === b.users && a.attributes === b.attributes && a.days === b.days && a.seed === b.seed;
}

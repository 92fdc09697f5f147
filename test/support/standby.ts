/**
 * A real physical standby of the worker's test cluster (the tests of src/db/replicas.ts). The
 * embedded package has no pg_basebackup, so the copy is made with PostgreSQL's low-level backup
 * API: pg_backup_start on a session held open, a file copy of the data folder (without the WAL and
 * the running server's own files), pg_backup_stop, whose backup label goes into the copy; then
 * standby.signal and primary_conninfo (with a replication slot, so the primary keeps the WAL the
 * standby has not fetched yet), and the embedded `postgres` program started on the copy. The
 * initdb of src/db/pg-process.ts already lets loopback replication connections in (pg_hba.conf).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { clusterUser, postgresPrograms } from '../../src/db/pg-programs';
import { freePort, withAdmin, workerAdminUrl } from './clusters';

export interface Standby {
  /** `url` (a database of the primary) on the standby instead. */
  urlOf(url: string): string;
  /** Runs `text` as the superuser on the standby's `database`; its rows. */
  query<R extends object>(database: string, text: string): Promise<R[]>;
  /** The standby's postmaster (for its CPU figures), while it runs. */
  pid(): number | undefined;
  /** Fast shutdown; resolves when the standby has exited. */
  stop(): Promise<void>;
  /** Starts the standby again on its folder; resolves when it takes connections. */
  start(): Promise<void>;
  /** Stops it, drops its replication slot on the primary and deletes its folder. */
  remove(): Promise<void>;
}

/** What the copy leaves out: the WAL (streamed instead) and what belongs to the running server. */
const NOT_COPIED = new Set(['postmaster.pid', 'postmaster.opts', 'pg_wal', 'pg_replslot', 'standby.signal', 'recovery.signal']);

function copyDataFolder(from: string, to: string): void {
  fs.mkdirSync(to, { mode: 0o700 });
  for (const entry of fs.readdirSync(from)) {
    if (NOT_COPIED.has(entry)) continue;
    // A file the server removes during the copy is not needed (the WAL replay recreates what it must).
    fs.cpSync(path.join(from, entry), path.join(to, entry), { recursive: true, force: true, errorOnExist: false, filter: (source) => fs.existsSync(source) });
  }
  for (const empty of ['pg_wal', 'pg_replslot']) fs.mkdirSync(path.join(to, empty), { mode: 0o700 });
}

function chownTree(dir: string, uid: number, gid: number): void {
  fs.chownSync(dir, uid, gid);
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) chownTree(full, uid, gid);
    else fs.chownSync(full, uid, gid);
  }
}

/** Waits (polling a connection, no fixed sleep) until the server at `url` takes connections, or its process ends. */
async function waitForConnections(url: string, child: ChildProcess, output: string[]): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the standby stopped while starting:\n${output.slice(-10).join('')}`);
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      await client.end();
      return;
    } catch (error) {
      await client.end().catch(() => undefined);
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

/**
 * Makes a standby of the cluster of `adminUrl` (a superuser's URL; default: the jest worker's
 * cluster) and starts it; `preload`: its shared_preload_libraries (e.g. pg_stat_statements).
 */
export async function startStandby(options: { adminUrl?: string; preload?: string } = {}): Promise<Standby> {
  const adminUrl = options.adminUrl ?? workerAdminUrl();
  const primary = new URL(adminUrl);
  const slot = `standby_${process.pid}_${Date.now()}`;
  const dir = path.join(os.tmpdir(), `daybook-test-standby-${process.pid}-${Date.now()}`);
  const who = clusterUser();
  const port = await freePort();

  const backup = new pg.Client({ connectionString: adminUrl });
  await backup.connect();
  try {
    const [{ data_directory: primaryDir }] = (await backup.query<{ data_directory: string }>('show data_directory')).rows;
    await backup.query('select pg_create_physical_replication_slot($1, true)', [slot]);
    await backup.query("select pg_backup_start('daybook standby', true)");
    copyDataFolder(primaryDir, dir);
    const [stopped] = (await backup.query<{ labelfile: string }>('select labelfile from pg_backup_stop(false)')).rows;
    fs.writeFileSync(path.join(dir, 'backup_label'), stopped.labelfile);
  } finally {
    await backup.end();
  }
  fs.writeFileSync(path.join(dir, 'standby.signal'), '');
  const conninfo = `host=${primary.hostname} port=${primary.port} user=${decodeURIComponent(primary.username)} password=${decodeURIComponent(primary.password)}`;
  fs.appendFileSync(path.join(dir, 'postgresql.auto.conf'), `\nprimary_conninfo = '${conninfo.replace(/'/g, "''")}'\nprimary_slot_name = '${slot}'\n`);
  if (who) chownTree(dir, who.uid, who.gid);

  const standbyUrl = (url: string) => {
    const parsed = new URL(url);
    parsed.port = String(port);
    return parsed.toString();
  };
  let child: ChildProcess | undefined;
  const start = async () => {
    const program = path.join(postgresPrograms(who), 'bin', 'postgres');
    const settings = ['listen_addresses=127.0.0.1', 'unix_socket_directories=', 'timezone=UTC', 'hot_standby=on'];
    if (options.preload) settings.push(`shared_preload_libraries=${options.preload}`);
    const output: string[] = [];
    child = spawn(program, ['-D', dir, '-p', String(port), ...settings.flatMap((setting) => ['-c', setting])], {
      ...(who ?? {}),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // Drained while it runs: a full pipe would stop the standby at its next log line.
    for (const stream of [child.stdout!, child.stderr!]) stream.on('data', (chunk: Buffer) => output.push(String(chunk)) > 50 && output.shift());
    await waitForConnections(standbyUrl(adminUrl), child, output);
  };
  const stop = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGINT');
    await exited;
  };
  await start();
  return {
    urlOf: standbyUrl,
    pid: () => child?.pid,
    async query<R extends object>(database: string, text: string) {
      const url = new URL(standbyUrl(adminUrl));
      url.pathname = `/${database}`;
      return withAdmin(url.toString(), async (client) => (await client.query<R>(text)).rows);
    },
    stop,
    start,
    async remove() {
      await stop();
      await withAdmin(adminUrl, (client) => client.query('select pg_drop_replication_slot($1)', [slot]));
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

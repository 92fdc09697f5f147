/**
 * The servers under test, each a child process on 127.0.0.1 with its output in a log file: Daybook
 * as production runs it (compiled dist/src/bin/server.js, NODE_ENV=production, its own log line per
 * request), the baseline (dist/test/bench/baseline-server.js: authenticates and counts every
 * request, with Daybook's rate limit) and, with --bare-baseline, the same server in its bare mode
 * (no authentication, no count).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/paths';

export interface RunningServer {
  name: string;
  pid: number;
  port: number;
  logFile: string;
  /** SIGTERM, then waits for the exit (a --cpu-prof profile is written then). */
  stop(): Promise<void>;
}

/** The rate limit for the run: raised so that the limit is not what is measured. */
export const BENCH_RATE_LIMIT = 100_000_000;

/** Daybook's settings for the run, shown in the report. */
export function daybookEnv(databaseUrl: string, poolMax: number, options: { metrics: boolean } = { metrics: false }): Record<string, string> {
  return {
    // `--metrics`: the Prometheus middleware counts and times every request (nobody scrapes here).
    ...(options.metrics ? { METRICS_TOKEN: crypto.randomBytes(24).toString('base64url') } : {}),
    NODE_ENV: 'production',
    // Production refuses to start without it; paging links are compared without their origin.
    PUBLIC_URL: 'http://127.0.0.1',
    HOST: '127.0.0.1',
    PORT: '0',
    DATABASE_URL: databaseUrl,
    DB_POOL_MAX: String(poolMax),
    RATE_LIMIT_PER_HOUR: String(BENCH_RATE_LIMIT),
    // Derived-data workers run in their own process in this set-up (`npm run worker`); their cost
    // is measured on its own (the derive step), not mixed into the API's figures.
    WORKERS: '0',
    DEMO: '0',
    LOG_LEVEL: 'info',
    SECRET_KEY: crypto.randomBytes(36).toString('base64url'),
  };
}

/** Waits until the log file has a line `found` accepts; returns what it returned. */
async function waitForLine<T>(file: string, child: ChildProcess, found: (line: string) => T | undefined, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
    for (const line of text.split('\n')) {
      const result = found(line);
      if (result !== undefined) return result;
    }
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`${path.basename(file)}: the process exited (${child.exitCode ?? child.signalCode}) before listening:\n${text.slice(-3000)}`);
    if (Date.now() > deadline) throw new Error(`${path.basename(file)}: not listening after ${timeoutMs} ms:\n${text.slice(-3000)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function parseJson(line: string): Record<string, unknown> | undefined {
  if (!line.startsWith('{')) return undefined;
  try {
    return JSON.parse(line) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

async function start(
  name: string,
  args: string[],
  env: Record<string, string>,
  logFile: string,
  port: (line: string) => number | undefined,
): Promise<RunningServer> {
  fs.mkdirSync(path.dirname(logFile), { recursive: true });
  const fd = fs.openSync(logFile, 'w');
  const child = spawn(process.execPath, args, { cwd: PROJECT_ROOT, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', fd, fd] });
  fs.closeSync(fd);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    const listening = await waitForLine(logFile, child, port, 120_000);
    return {
      name,
      pid: child.pid!,
      port: listening,
      logFile,
      stop: async () => {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
        await exited;
      },
    };
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
}

/** The profiles to write of the servers under test (`--cpu-prof`, `--alloc-prof`), in `dir`. */
export interface Profiling {
  dir: string;
  cpu: boolean;
  allocations: boolean;
}

/**
 * Node's flags for a server under test: the profiles' when asked (the allocation sampler is
 * loaded with --require: alloc-sampler.ts), then those of the environment variable `variable`
 * (space-separated).
 */
function nodeFlags(profiling: Profiling | undefined, variable: 'BENCH_NODE_FLAGS' | 'BENCH_BASELINE_NODE_FLAGS'): string[] {
  const cpu = profiling?.cpu ? ['--cpu-prof', `--cpu-prof-dir=${profiling.dir}`] : [];
  const allocations = profiling?.allocations ? ['--require', path.join(PROJECT_ROOT, 'dist/test/bench/alloc-sampler.js')] : [];
  return [...cpu, ...allocations, ...(process.env[variable] ?? '').split(' ').filter(Boolean)];
}

/** The sampler's folder in a server's environment, when allocations are profiled. */
const profilingEnv = (profiling: Profiling | undefined): Record<string, string> => (profiling?.allocations ? { BENCH_ALLOC_PROFILE_DIR: profiling.dir } : {});

export function startDaybook(env: Record<string, string>, logFile: string, profiling?: Profiling): Promise<RunningServer> {
  const args = [...nodeFlags(profiling, 'BENCH_NODE_FLAGS'), path.join(PROJECT_ROOT, 'dist/src/bin/server.js')];
  return start('daybook', args, { ...env, ...profilingEnv(profiling) }, logFile, (line) => {
    const entry = parseJson(line);
    return typeof entry?.msg === 'string' && entry.msg.startsWith('Daybook listening') ? (entry.port as number) : undefined;
  });
}

/**
 * The baseline with Daybook's pool size and rate limit; `bareTokensFile` starts it in its bare mode
 * (the bench's tokens handed over in that file instead of looked up, nothing counted).
 */
export function startBaseline(databaseUrl: string, poolMax: number, logFile: string, profiling?: Profiling, bareTokensFile?: string): Promise<RunningServer> {
  return start(
    bareTokensFile ? 'bare' : 'baseline',
    [...nodeFlags(profiling, 'BENCH_BASELINE_NODE_FLAGS'), path.join(PROJECT_ROOT, 'dist/test/bench/baseline-server.js')],
    {
      ...profilingEnv(profiling),
      DATABASE_URL: databaseUrl,
      PORT: '0',
      DB_POOL_MAX: String(poolMax),
      RATE_LIMIT_PER_HOUR: String(BENCH_RATE_LIMIT),
      ...(bareTokensFile ? { BASELINE_MODE: 'bare', BASELINE_TOKENS: bareTokensFile } : {}),
    },
    logFile,
    (line) => {
      const entry = parseJson(line);
      return typeof entry?.listening === 'number' ? entry.listening : undefined;
    },
  );
}

/**
 * The primary process of WEB_CONCURRENCY > 1 (docs/operating.md, "Every core"): it forks that many
 * HTTP processes with Node's `cluster` (they share the one port: the primary accepts connections
 * and hands them out in turn), replaces one that ends unexpectedly, with a back-off so that a
 * process that crashes at start does not spin, and stops them all on SIGTERM. What runs once per
 * service (the embedded PostgreSQL, migrations, the demo account, the job workers and schedules)
 * stays in the primary: src/bin/server.ts.
 */
import cluster, { type Worker } from 'node:cluster';
import type { Logger } from 'pino';
import { StartRefused } from './db/folder-lock';

/** A process that lived at least this long before it ended counts as a fresh crash, not a loop. */
export const STABLE_MS = 10_000;
/** The first replacement after a crash loop's first quick exit waits this long; each further quick exit doubles it... */
const FIRST_DELAY_MS = 250;
/** ...up to this. */
const MAX_DELAY_MS = 30_000;
/** After SHUTDOWN_TIMEOUT_MS, a process that has still not exited on SIGTERM is given this long, then killed. */
const KILL_GRACE_MS = 5_000;

/**
 * How long to wait before replacing a process, given how many of its slot's processes in a row
 * ended within STABLE_MS of their start (`quickExits`, counting this one): none waits nothing (a
 * one-off crash is replaced at once), then 250 ms, 500 ms, 1 s, ... up to 30 s.
 */
export function restartDelayMs(quickExits: number): number {
  if (quickExits <= 0) return 0;
  return Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** (quickExits - 1));
}

export interface HttpWorkersOptions {
  count: number;
  /** Added to each process's environment: what the primary resolved once (the database URL, the secret key). */
  env: Record<string, string>;
  logger: Logger;
  /** SHUTDOWN_TIMEOUT_MS: how long each process may take to finish its requests on stop. */
  shutdownTimeoutMs: number;
}

export interface HttpWorkers {
  /** Resolves with the port once every first process listens; rejects if one ends before. */
  listening: Promise<number>;
  /** Sends SIGTERM to every process (each drains its requests), waits for all to exit, kills what outlives the limit. */
  stop(): Promise<void>;
}

/** One place among the `count`: the process in it now and its run of quick exits. */
interface Slot {
  worker: Worker;
  startedAt: number;
  quickExits: number;
  timer?: NodeJS.Timeout;
}

function exited(worker: Worker): Promise<void> {
  return worker.isDead() ? Promise.resolve() : new Promise((resolve) => worker.once('exit', () => resolve()));
}

export function startHttpWorkers(options: HttpWorkersOptions): HttpWorkers {
  const { logger } = options;
  const slots: Slot[] = [];
  let stopping = false;
  let started = false;

  let resolveListening!: (port: number) => void;
  let rejectListening!: (error: Error) => void;
  const listening = new Promise<number>((resolve, reject) => {
    resolveListening = resolve;
    rejectListening = reject;
  });
  const firstListening = new Set<number>();

  const fork = (slot: Slot | undefined, index: number): void => {
    const worker = cluster.fork(options.env);
    const current: Slot = { worker, startedAt: Date.now(), quickExits: slot?.quickExits ?? 0 };
    slots[index] = current;
    worker.once('listening', (address) => {
      if (started) {
        logger.info({ worker: worker.id, pid: worker.process.pid }, 'HTTP process replaced and listening');
        return;
      }
      firstListening.add(worker.id);
      if (firstListening.size === options.count) {
        started = true;
        resolveListening(address.port);
      }
    });
    worker.once('exit', (code, signal) => onExit(current, index, code, signal));
  };

  const onExit = (slot: Slot, index: number, code: number | null, signal: string | null): void => {
    if (stopping) return;
    if (!started) {
      // A process that cannot start (a port taken in between, a database refusing it) ends the whole start.
      // Its own line on standard error says why; the primary's (src/process-lifecycle.ts) says what it means.
      rejectListening(new StartRefused(`an HTTP process ended before listening (${signal ?? `exit code ${code}`}); its line above says why.`));
      return;
    }
    slot.quickExits = Date.now() - slot.startedAt < STABLE_MS ? slot.quickExits + 1 : 0;
    const delayMs = restartDelayMs(slot.quickExits);
    logger.error(
      { worker: slot.worker.id, pid: slot.worker.process.pid, code, signal, restartInMs: delayMs },
      'an HTTP process ended unexpectedly; starting another',
    );
    slot.timer = setTimeout(() => {
      if (!stopping) fork(slot, index);
    }, delayMs);
  };

  for (let index = 0; index < options.count; index++) fork(undefined, index);

  return {
    listening,
    async stop() {
      stopping = true;
      const live = slots.filter((slot) => {
        clearTimeout(slot.timer);
        return !slot.worker.isDead();
      });
      for (const slot of live) slot.worker.process.kill('SIGTERM');
      const killer = setTimeout(() => {
        for (const slot of live) if (!slot.worker.isDead()) slot.worker.process.kill('SIGKILL');
      }, options.shutdownTimeoutMs + KILL_GRACE_MS);
      await Promise.all(live.map((slot) => exited(slot.worker)));
      clearTimeout(killer);
    },
  };
}

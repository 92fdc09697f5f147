/**
 * What the processes (src/bin/server.ts and src/bin/worker.ts) share at start-up and shutdown: a
 * failed start is one line on standard error (the message alone for a refused start: bad
 * settings, a data folder or port in use; the stack otherwise) and exit code 1; the first SIGTERM
 * or SIGINT runs the process's own stop once, then logs, flushes and exits 0; a promise rejected
 * outside any request or job is logged and does not take the process down.
 */
import type { Logger } from 'pino';
import { ConfigError } from './config';
import { StartRefused } from './db/folder-lock';

/** The start of the failure line: `refused` for bad settings or a taken folder or port, `failed` for anything else. */
interface StartFailureWords {
  refused: string;
  failed: string;
}

/** Runs a process's `main`; if it throws, prints one line and exits 1. */
export function runProcess(main: () => Promise<void>, words: StartFailureWords): void {
  main().catch((error: unknown) => {
    if (error instanceof ConfigError || error instanceof StartRefused) {
      process.stderr.write(`${words.refused}: ${error.message}\n`);
    } else {
      process.stderr.write(`${words.failed}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    }
    process.exit(1);
  });
}

/** The log lines before and after a process's own stop. */
interface ShutdownWords {
  stopping: string;
  stopped: string;
}

/**
 * How long a stop may take in all (docs/operating.md, "Stopping"): the requests in flight
 * `SHUTDOWN_TIMEOUT_MS`, the running jobs as long again, and the pools a few seconds more to close.
 */
export function stopDeadlineMs(shutdownTimeoutMs: number): number {
  return 2 * shutdownTimeoutMs + 5_000;
}

/**
 * On the first SIGTERM or SIGINT: logs `stopping` (with the signal), runs `stop` (the process's
 * own order of closing), logs `stopped`, flushes the log and exits 0. Later signals are ignored.
 * A stop still running after `deadlineMs` is given up: logged, and the process exits 0 all the
 * same. Every request has been answered or cut by then; what can hang is a pool's close on a
 * connection the database no longer answers (a network partition: the close waits for a reply that
 * never comes), and the operating system closes those connections with the process.
 */
export function stopOnSignals(logger: Logger, words: ShutdownWords, stop: () => Promise<void>, deadlineMs?: number): void {
  let stopping = false;
  const onSignal = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, words.stopping);
    if (deadlineMs !== undefined) {
      setTimeout(() => {
        logger.warn({ deadlineMs }, 'the stop did not finish in time (a database connection not closing): exiting');
        logger.flush();
        process.exit(0);
      }, deadlineMs).unref();
    }
    await stop();
    logger.info(words.stopped);
    logger.flush();
    process.exit(0);
  };
  process.on('SIGTERM', () => void onSignal('SIGTERM'));
  process.on('SIGINT', () => void onSignal('SIGINT'));
  // A promise rejected outside any request (a pool error, a timer) is logged; it must not take the
  // process down with it. Request errors never get here: the error mapper answers them.
  process.on('unhandledRejection', (reason) => logger.error({ err: reason }, 'unhandled rejection'));
}

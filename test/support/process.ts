/**
 * Runs the compiled service (dist/, built by the test set-up) as a child process and reads its JSON
 * log lines, for tests of what happens to the process: start, stop, crash, restart.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { PROJECT_ROOT } from '../../src/paths';

export interface RunningService {
  child: ChildProcess;
  port: number;
  logs: Array<Record<string, unknown>>;
  /** Resolves with the exit code (or the signal name) when the process ends. */
  exited: Promise<number | string>;
}

/**
 * Starts dist/src/server.js with `env` and waits for its "listening" log line. `options.script`
 * runs another entry (e.g. dist/src/analytics/worker.js) and `options.ready` names the start of
 * the log message that says it is up (port is 0 for a process that does not listen).
 */
export async function startService(env: Record<string, string>, timeoutMs = 60_000, options: { script?: string; ready?: string } = {}): Promise<RunningService> {
  const ready = options.ready ?? 'Daybook listening';
  const child = spawn(process.execPath, [path.join(PROJECT_ROOT, options.script ?? 'dist/src/server.js')], {
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info', ...env },
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
  return { child, port, logs, exited };
}

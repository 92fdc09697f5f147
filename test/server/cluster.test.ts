/**
 * WEB_CONCURRENCY > 1 (src/cluster.ts, docs/operating.md "Every core"), run as an operator runs
 * it: a primary and two HTTP processes on one port, each answering requests; the job schedules
 * run once, in the primary; an HTTP process killed is replaced while the other keeps answering;
 * SIGTERM lets a request in flight finish and leaves no process running.
 */
import fs from 'node:fs';
import http from 'node:http';
import { restartDelayMs, STABLE_MS } from '../../src/cluster';
import { startTestApp, type TestApp } from '../support/app';
import { descendants, serviceDataDir, startService, stopServices, waitGone, type RunningService } from '../support/process';
import { slowRequest } from '../support/slow-request';

// Two HTTP processes each load the whole app (the API documents, the pages): slow on a busy machine.
jest.setTimeout(120_000);

let app: TestApp;
let dataDir: string;
const running: RunningService[] = [];
beforeAll(async () => {
  app = await startTestApp();
  dataDir = serviceDataDir('daybook-cluster-');
});
afterAll(async () => {
  await stopServices(running, 'SIGKILL', [dataDir]);
  await app.close();
});

async function startCluster(): Promise<RunningService> {
  const service = await startService({
    DATABASE_URL: app.deps.config.databaseUrl!,
    SECRET_KEY: app.deps.secretKey,
    DATA_DIR: dataDir,
    WEB_CONCURRENCY: '2',
    WORKERS: '1',
    DEMO: '0',
  });
  running.push(service);
  return service;
}

/** The HTTP processes the primary forked (its children running the service's entry). */
function httpProcesses(primary: number): number[] {
  return descendants(primary).filter((pid) => {
    try {
      return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('dist/src/bin/server.js');
    } catch {
      return false;
    }
  });
}

/** A request on a connection of its own (the primary hands each new connection to the next process in turn). */
function get(port: number, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path, agent: false }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      })
      .on('error', reject);
  });
}

/** Waits (up to a deadline) until `found` is true of the log so far. */
async function logShows(service: RunningService, found: (logs: Array<Record<string, unknown>>) => boolean, what: string): Promise<void> {
  for (const until = Date.now() + 20_000; !found(service.logs);) {
    if (Date.now() > until) throw new Error(`the log never showed ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The pids of the processes whose request lines answered `path` so far. */
function answeredBy(service: RunningService, path: string): Set<unknown> {
  return new Set(service.logs.filter((entry) => entry.msg === 'request' && entry.path === path).map((entry) => entry.pid));
}

test('a crash loop waits longer and longer before the next process, up to a limit', () => {
  expect(restartDelayMs(0)).toBe(0); // a process that ran a while and crashed once is replaced at once
  expect([1, 2, 3, 4].map(restartDelayMs)).toEqual([250, 500, 1000, 2000]);
  expect(restartDelayMs(20)).toBe(30_000);
  expect(STABLE_MS).toBeGreaterThanOrEqual(1000);
});

test('two HTTP processes answer on one port, the schedules run once (in the primary), and a killed process is replaced', async () => {
  const service = await startCluster();
  const listening = service.logs.find((entry) => String(entry.msg).startsWith('Daybook listening'))!;
  expect(listening.processes).toBe(2);
  const first = httpProcesses(service.child.pid!);
  expect(first).toHaveLength(2);

  // Both processes answer: each request line names the process that wrote it.
  for (let i = 0; i < 6; i++) expect(await get(service.port, '/healthz?round=1')).toBe(200);
  await logShows(service, () => answeredBy(service, '/healthz').size === 2, 'requests answered by two processes');
  expect([...answeredBy(service, '/healthz')].sort()).toEqual([...first].sort());

  // The start-up sweep of the job queue ran once, in the primary (its line names no HTTP process).
  await logShows(service, (logs) => logs.some((entry) => entry.msg === 'derived-data sweep'), 'the start-up sweep');
  const sweeps = service.logs.filter((entry) => entry.msg === 'derived-data sweep');
  expect(sweeps).toHaveLength(1);
  expect(sweeps[0].worker).toBeUndefined();

  // One process killed: the primary replaces it, and every request meanwhile is answered.
  const [killed, survivor] = first;
  process.kill(killed, 'SIGKILL');
  await logShows(service, (logs) => logs.some((entry) => entry.msg === 'an HTTP process ended unexpectedly; starting another'), 'the crash');
  let answered = 0;
  while (!service.logs.some((entry) => entry.msg === 'HTTP process replaced and listening')) {
    expect(await get(service.port, '/healthz')).toBe(200);
    answered++;
  }
  expect(answered).toBeGreaterThan(0);
  const now = httpProcesses(service.child.pid!);
  expect(now).toHaveLength(2);
  expect(now).toContain(survivor);
  expect(now).not.toContain(killed);
  const replacement = now.find((pid) => pid !== survivor)!;
  for (let i = 0; i < 6; i++) expect(await get(service.port, '/healthz?round=2')).toBe(200);
  await logShows(service, () => answeredBy(service, '/healthz').has(replacement), 'a request answered by the new process');

  service.child.kill('SIGTERM');
  expect(await service.exited).toBe(0);
  expect(await waitGone(now)).toEqual([]);
});

test('SIGTERM to the primary: the request in flight is answered, then every process exits and nothing is left running', async () => {
  const service = await startCluster();
  const workers = httpProcesses(service.child.pid!);
  expect(workers).toHaveLength(2);

  const answer = await slowRequest(service.port, () => service.child.kill('SIGTERM'));
  expect(answer).toMatch(/^HTTP\/1\.1 401 /);
  expect(await service.exited).toBe(0);
  expect(await waitGone(workers)).toEqual([]);
  expect(descendants(service.child.pid!)).toEqual([]);
  expect(service.logs.filter((entry) => entry.msg === 'HTTP process stopped')).toHaveLength(2);
  expect(service.logs.some((entry) => entry.msg === 'stopped' && entry.worker === undefined)).toBe(true);
});

/**
 * `npm start` and `npm run worker` as a supervisor or a terminal runs them: the signal goes to the
 * npm process, and the service must still finish, stop its PostgreSQL, exit 0 and leave nothing
 * running (npm only forwards the signal to its child, so the child must be node itself).
 */
import fs from 'node:fs';
import path from 'node:path';
import { freePort } from '../support/clusters';
import { descendants, processesOf, serviceDataDir, startService, stopServices, waitGone, type RunningService } from '../support/process';

let dataDir: string;
let pgPort: number;
const running: RunningService[] = [];

beforeAll(async () => {
  dataDir = serviceDataDir('daybook-npm-');
  pgPort = await freePort();
});

afterAll(() => stopServices(running, 'SIGKILL', [dataDir]));

function env(): Record<string, string> {
  return { DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(pgPort), DEMO: '0' };
}

async function npm(args: string[], ready?: string): Promise<RunningService> {
  const service = await startService(env(), 90_000, { npmArgs: args, ready });
  running.push(service);
  return service;
}

test.each([['SIGTERM'], ['SIGINT']] as const)(
  'npm start stops cleanly on %s sent to npm, leaving nothing running',
  async (signal) => {
    const service = await npm(['start']);
    expect((await fetch(`http://127.0.0.1:${service.port}/healthz`)).status).toBe(200);
    const below = descendants(service.child.pid!);
    expect(below.length).toBeGreaterThan(1); // node and its PostgreSQL

    service.child.kill(signal);
    expect(await service.exited).toBe(0);
    expect(service.logs.some((entry) => entry.msg === 'stopped')).toBe(true);
    expect(await waitGone(below)).toEqual([]);
    expect(processesOf(dataDir)).toEqual([]);
    expect(fs.existsSync(path.join(dataDir, 'postgres', 'postmaster.pid'))).toBe(false);
  },
  120_000,
);

test('npm run worker stops cleanly on SIGTERM sent to npm, leaving nothing running', async () => {
  const worker = await npm(['run', 'worker'], 'Daybook worker running');
  const below = descendants(worker.child.pid!);
  expect(below.length).toBeGreaterThan(1);

  worker.child.kill('SIGTERM');
  expect(await worker.exited).toBe(0);
  expect(worker.logs.some((entry) => entry.msg === 'worker stopped')).toBe(true);
  expect(await waitGone(below)).toEqual([]);
  expect(processesOf(dataDir)).toEqual([]);
  expect(fs.existsSync(path.join(dataDir, 'postgres', 'postmaster.pid'))).toBe(false);
}, 120_000);

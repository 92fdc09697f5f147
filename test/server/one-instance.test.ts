/**
 * One live service per embedded data folder: a second start on the same DATA_DIR refuses at once
 * with one line naming the holder, and the first keeps serving on its own PostgreSQL; after a
 * `kill -9` the next start recovers; a port in use is one line, and nothing is left running.
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { freePort } from '../support/clusters';
import { processesOf, refusedStart, serviceDataDir, startService, stopServices, type RunningService } from '../support/process';

let dataDir: string;
let otherDataDir: string;
let pgPort: number;
const running: RunningService[] = [];

beforeAll(async () => {
  dataDir = serviceDataDir('daybook-one-');
  otherDataDir = serviceDataDir('daybook-other-');
  pgPort = await freePort();
});

afterAll(() => stopServices(running, 'SIGTERM', [dataDir, otherDataDir]));

async function start(env: Record<string, string> = {}): Promise<RunningService> {
  const service = await startService({ DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(pgPort), DEMO: '0', ...env });
  running.push(service);
  return service;
}

function postmasterPid(dir: string): number {
  return Number(fs.readFileSync(path.join(dir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
}

test('a second start on the same data folder refuses at once with one line, and the first keeps serving', async () => {
  const first = await start();
  const postmaster = postmasterPid(dataDir);

  const second = await refusedStart({ DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(pgPort) });
  expect(second.code).toBe(1);
  expect(second.stderr.trim().split('\n')).toHaveLength(1);
  expect(second.stderr).toMatch(new RegExp(`in use by process ${first.child.pid} \\(.*server\\.js\\).*another DATA_DIR, PORT`));
  expect(second.ms).toBeLessThan(5_000);

  // The first instance's database was not touched: same postmaster, requests still answered.
  expect(postmasterPid(dataDir)).toBe(postmaster);
  expect((await fetch(`http://127.0.0.1:${first.port}/readyz`)).status).toBe(200);
  first.child.kill('SIGTERM');
  expect(await first.exited).toBe(0);
  expect(first.logs.filter((entry) => (entry.level as number) >= 50)).toEqual([]);
});

test('after kill -9 the next start takes the folder over and serves the same data', async () => {
  const killed = await start();
  killed.child.kill('SIGKILL');
  expect(await killed.exited).toBe('SIGKILL');

  const next = await start();
  expect((await fetch(`http://127.0.0.1:${next.port}/readyz`)).status).toBe(200);
  next.child.kill('SIGTERM');
  expect(await next.exited).toBe(0);
  expect(processesOf(dataDir)).toEqual([]);
});

test('a port already in use is one clear line, and nothing of the data folder is left running', async () => {
  const taken = net.createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  const port = (taken.address() as net.AddressInfo).port;
  try {
    const result = await refusedStart({ DATA_DIR: otherDataDir, EMBEDDED_PG_PORT: String(await freePort()), PORT: String(port) });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `Daybook cannot start: port ${port} on 127.0.0.1 is already in use (another Daybook or another program); set PORT to a free port.\n`,
    );
    expect(processesOf(otherDataDir)).toEqual([]);
  } finally {
    taken.close();
  }
});

/**
 * A first start answers before the Redoc pages are built: it builds them after it listens, and
 * until then their addresses answer 503 with Retry-After. Stopping it during that build leaves
 * nothing running.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../support/clusters';
import { copyProject, descendants, serviceDataDir, startService, stopServices, waitGone, type RunningService } from '../support/process';

const running: RunningService[] = [];
const folders: string[] = [];

afterAll(() => stopServices(running, 'SIGTERM', folders));

/** Asks for `url` while it answers 503 (the pages are being built), up to `deadlineMs`; the last answer. */
async function afterBuilding(url: string, deadlineMs: number): Promise<Response> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    const res = await fetch(url);
    if (res.status !== 503 || Date.now() > until) return res;
    await res.arrayBuffer();
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

test('a first start without built pages answers at once; /docs/ pages are 503 with Retry-After until built, then served', async () => {
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'daybook-first-'));
  const dataDir = serviceDataDir('daybook-first-data-');
  folders.push(parent, dataDir);
  const root = copyProject(parent);
  fs.rmSync(path.join(root, 'dist', 'docs'), { recursive: true, force: true });
  const env = { DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(await freePort()), DEMO: '0' };

  const first = await startService(env, 60_000, { root });
  running.push(first);
  const base = `http://127.0.0.1:${first.port}`;
  const building = await fetch(`${base}/docs/v2/`);
  expect(building.status).toBe(503);
  expect(building.headers.get('retry-after')).toBe('5');
  expect(await building.text()).toContain('The documentation is being built');
  expect((await fetch(`${base}/readyz`)).status).toBe(200);
  expect((await fetch(`${base}/openapi/v2.json`)).status).toBe(200);

  // Stopped while it builds: it still exits 0, and the build (with the redocly it runs) goes too.
  const below = descendants(first.child.pid!);
  first.child.kill('SIGTERM');
  expect(await first.exited).toBe(0);
  expect(await waitGone(below)).toEqual([]);

  // The next start builds what is missing and then serves every page.
  const second = await startService(env, 60_000, { root });
  running.push(second);
  const next = `http://127.0.0.1:${second.port}`;
  for (const name of ['v2', 'v1', 'oauth']) {
    const page = await afterBuilding(`${next}/docs/${name}/`, 180_000);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<redoc');
  }
  second.child.kill('SIGTERM');
  expect(await second.exited).toBe(0);
}, 300_000);

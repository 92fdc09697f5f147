/**
 * Database trouble (issue "Robustness", part 7): the compiled service, with its job workers, on a
 * PostgreSQL of this test's own behind a loopback proxy. With Postgres stopped, and with it
 * unreachable (the proxy swallows every byte, like a network partition), API requests answer 503
 * with the error body and Retry-After within the DB_*_TIMEOUT_MS limits, pages answer a 503 page,
 * /readyz says not ready, /healthz stays up, the process stays up, and it recovers by itself when
 * the database is back.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Knex } from 'knex';
import { createKnex } from '../../src/db/knex';
import { freePort } from '../support/clusters';
import { startService, type RunningService } from '../support/process';
import { startOwnCluster, type OwnCluster } from '../support/own-cluster';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy';
import { SERVICE_SECRET_KEY, call, makePerson, until, type Answer, type Person } from './support/service';

jest.setTimeout(180_000);

// The service's defaults are 3 s to connect, 5 s for a pooled connection, 15 s statement and 20 s
// unanswered-query limits; the last two are shortened here to keep the test short.
const LIMITS = {
  DB_CONNECT_TIMEOUT_MS: '3000',
  DB_ACQUIRE_TIMEOUT_MS: '5000',
  DB_STATEMENT_TIMEOUT_MS: '2000',
  DB_QUERY_TIMEOUT_MS: '2500',
  SHUTDOWN_TIMEOUT_MS: '3000',
};
/**
 * The longest any request may take while the database is gone. The limits above answer in 3-5 s;
 * the margin is for a loaded 2-core CI machine. Without the limits the same requests hang for
 * minutes (pg has no connect limit, the pool waits 60 s for a connection, a silent server is waited
 * for until TCP gives up), so the bound still tells the two apart.
 */
const QUICK_MS = 20_000;

let dir: string;
let pgPort: number;
let cluster: OwnCluster | undefined;
let proxy: TcpProxy;
let service: RunningService;
let db: Knex;
let person: Person;
let base: string;

async function startCluster(): Promise<OwnCluster> {
  return startOwnCluster({ dir: path.join(dir, 'postgres'), port: pgPort, database: 'daybook' });
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'daybook-db-down-'));
  fs.chmodSync(dir, 0o755); // the postgres user (when run as root) must traverse it
  pgPort = await freePort();
  cluster = await startCluster();
  proxy = await startTcpProxy({ host: '127.0.0.1', port: pgPort });
  const viaProxy = new URL(cluster.url);
  viaProxy.port = String(proxy.port);
  service = await startService({ DATABASE_URL: viaProxy.toString(), SECRET_KEY: SERVICE_SECRET_KEY, WORKERS: '1', ...LIMITS });
  base = `http://127.0.0.1:${service.port}`;
  db = createKnex(cluster.url, { pool: { min: 0, max: 2 } });
  person = await makePerson(db, ['activity_read', 'activity_write']);
  await db.destroy();
}, 120_000);

afterAll(async () => {
  if (service && service.child.exitCode === null && service.child.signalCode === null) service.child.kill('SIGKILL');
  await service?.exited;
  await proxy?.close();
  await cluster?.stop().catch(() => undefined);
  fs.rmSync(dir, { recursive: true, force: true });
});

/** What a person and an app ask while the database is gone: API reads and writes, a page, the probes. */
async function askEverything(): Promise<{ api: Answer[]; page: Answer; ready: Answer; health: Answer }> {
  const deadline = { deadlineMs: QUICK_MS };
  const reads = ['/api/2/accounts/profile/', '/api/2/attributes/', '/api/2/attributes/with-values/', '/api/1/users/$self/today/'].map((p) =>
    call(base, 'GET', p, { ...deadline, bearer: person.bearer }),
  );
  const write = call(base, 'POST', '/api/2/attributes/update/', {
    ...deadline,
    bearer: person.bearer,
    json: [{ name: 'steps', date: '2026-11-20', value: 1 }],
  });
  const token = call(base, 'POST', '/oauth2/access_token', {
    ...deadline,
    form: { grant_type: 'refresh_token', refresh_token: person.refreshToken, client_id: person.client.client_id, client_secret: person.clientSecret },
  });
  const simple = call(base, 'POST', '/api/1/auth/simple-token/', { ...deadline, form: { username: person.user.username, password: person.password } });
  const [api, page, ready, health] = await Promise.all([
    Promise.all([...reads, write, token, simple]),
    call(base, 'GET', '/settings/profile', { ...deadline, session: person.session, unvalidated: true }),
    call(base, 'GET', '/readyz', { ...deadline, unvalidated: true }),
    call(base, 'GET', '/healthz', { ...deadline, unvalidated: true }),
  ]);
  return { api, page, ready, health };
}

/** The slowest 503 seen, for the run's figures. */
let slowest = 0;

function expectUnavailable(answers: Awaited<ReturnType<typeof askEverything>>): void {
  slowest = Math.max(slowest, ...answers.api.map((a) => a.ms), answers.page.ms, answers.ready.ms);
  for (const answer of answers.api) {
    expect([answer.status, answer.headers.get('retry-after')]).toEqual([503, '5']);
    expect(answer.body.detail).toMatch(/temporarily unavailable: the database cannot be reached/);
    expect(answer.ms).toBeLessThan(QUICK_MS);
  }
  expect(answers.page.status).toBe(503);
  expect(String(answers.page.body)).toContain('Temporarily unavailable');
  expect(answers.ready.status).toBe(503);
  expect(answers.ready.body).toEqual({ detail: expect.stringMatching(/database cannot be reached/) });
  expect(answers.ready.ms).toBeLessThan(QUICK_MS);
  expect([answers.health.status, answers.health.body]).toEqual([200, { status: 'ok' }]);
}

/** The service answers normally again, without being restarted. */
async function expectRecovered(what: string): Promise<void> {
  await until(async () => (await call(base, 'GET', '/readyz', { unvalidated: true })).status === 200, 60_000, `${what}: /readyz`);
  await until(async () => (await call(base, 'GET', '/api/2/accounts/profile/', { bearer: person.bearer })).status === 200, 60_000, `${what}: the API`);
  const write = await call(base, 'POST', '/api/2/attributes/acquire/', { bearer: person.bearer, json: [{ template: 'steps' }] });
  expect(write.status).toBe(200);
  const page = await call(base, 'GET', '/settings/profile', { session: person.session, unvalidated: true });
  expect(page.status).toBe(200);
  expect(service.child.exitCode).toBeNull();
}

test('while healthy, the service answers and is ready', async () => {
  expect((await call(base, 'GET', '/readyz', { unvalidated: true })).status).toBe(200);
  expect((await call(base, 'GET', '/api/2/accounts/profile/', { bearer: person.bearer })).body.username).toBe(person.user.username);
});

test('with Postgres stopped every request answers 503 quickly; started again, the service recovers by itself', async () => {
  await cluster!.stop();
  cluster = undefined;
  // Twice: once with the pool's connections cut by the shutdown, once with none left.
  expectUnavailable(await askEverything());
  expectUnavailable(await askEverything());
  expect(service.child.exitCode).toBeNull();

  cluster = await startCluster();
  await expectRecovered('after Postgres restarted');
});

test('with Postgres unreachable (a partition: nothing answers, nothing refuses) every request answers 503 quickly, and it recovers', async () => {
  // Connections in the pool first, so that both kinds hang: pooled ones and new ones.
  await Promise.all(Array.from({ length: 6 }, () => call(base, 'GET', '/api/2/attributes/', { bearer: person.bearer })));
  proxy.setMode('blackhole');
  expectUnavailable(await askEverything());
  expectUnavailable(await askEverything());
  expect(service.child.exitCode).toBeNull();

  proxy.setMode('forward');
  await expectRecovered('after the partition healed');
});

test('SIGTERM while the database is unreachable still stops the process, within the shutdown timeout', async () => {
  await Promise.all(Array.from({ length: 4 }, () => call(base, 'GET', '/api/2/attributes/', { bearer: person.bearer })));
  proxy.setMode('blackhole');
  const asked = Date.now();
  service.child.kill('SIGTERM');
  expect(await service.exited).toBe(0);
  expect(Date.now() - asked).toBeLessThan(Number(LIMITS.SHUTDOWN_TIMEOUT_MS) * 3 + QUICK_MS);
  process.stdout.write(`database-down: slowest answer while the database was gone: ${slowest} ms (bound ${QUICK_MS} ms)\n`);
});

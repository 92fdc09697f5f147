/**
 * The derived-data jobs on pg-boss against a real Postgres: a person's job never runs twice at once
 * across workers, the sweeps queue what is due, a write's value change leads to an insight run,
 * and a derive that fails half-way leaves the previous results in place.
 */
import { startTestApp, type TestApp } from '../support/app';
import { makeUser } from '../support/fixtures';
import { addAttribute, addValues } from '../support/seed';
import { startJobs, QUEUES, type Jobs } from '../../src/jobs/queues';
import { deriveUser } from '../../src/analytics/derive';
import { drainChanges, pendingChanges } from '../../src/analytics/store';
import { loadDemoData } from '../../src/demo/demo-data';
import type { User } from '../../src/domain/identity/users';

let app: TestApp;
const started: Jobs[] = [];
const NOW = new Date('2026-11-20T12:00:00Z');

beforeAll(async () => {
  app = await startTestApp();
});
// Each test's workers stop with it, so no test's jobs are taken by another's workers.
afterEach(async () => {
  for (const jobs of started.splice(0)) await jobs.stop(2000);
});
afterAll(async () => {
  await app.close();
});

async function jobs(options: Partial<Parameters<typeof startJobs>[0]> = {}): Promise<Jobs> {
  const running = await startJobs({
    connectionString: app.deps.config.databaseUrl!,
    db: app.db,
    logger: app.deps.logger,
    now: () => NOW,
    pollingIntervalSeconds: 0.5,
    schedule: false,
    ...options,
  });
  started.push(running);
  return running;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(check: () => Promise<boolean> | boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await sleep(100);
  }
}

/**
 * Takes the waiting jobs of a queue as a worker would and completes them; their people's ids.
 * (A job is fetchable once its start time is strictly past: wait a tick after sending.)
 */
async function fetchAll(running: Jobs, queue: string): Promise<number[]> {
  await sleep(20);
  const jobs = await running.boss.fetch<{ userId: number }>(queue, { batchSize: 100 });
  if (jobs.length > 0)
    await running.boss.complete(
      queue,
      jobs.map((j) => j.id),
    );
  return jobs.map((j) => j.data.userId);
}

async function personWithData(): Promise<User> {
  const { user } = await makeUser(app, { timezone: 'UTC' });
  await loadDemoData(app.db, user.id, {
    seed: 3,
    days: 200,
    endDate: '2026-11-20',
    attributes: ['steps', 'active_energy', 'sleep', 'mood', 'water'],
    rhythms: false,
  });
  return user;
}

async function snapshot(userId: number) {
  return {
    averages: await app.db('averages').where({ user_id: userId }).orderBy(['date', 'attribute_id']).select('attribute_id', 'date', 'overall', 'monday'),
    correlations: await app
      .db('correlations')
      .where({ user_id: userId })
      .orderBy(['date', 'attribute_id', 'attribute2_id', 'offset'])
      .select('attribute_id', 'attribute2_id', 'offset', 'value', 'date'),
    weeks: await app.db('derived_weeks').where({ user_id: userId }).select('date', 'published'),
  };
}

describe('per-person jobs', () => {
  test("two workers never run one person's job twice at once; different people run side by side", async () => {
    const running = new Map<number, number>();
    let overlapSamePerson = 0;
    let overlapAcross = 0;
    const runs: number[] = [];
    const derive = async (userId: number) => {
      const now = (running.get(userId) ?? 0) + 1;
      running.set(userId, now);
      if (now > 1) overlapSamePerson++;
      if ([...running.values()].reduce((a, b) => a + b, 0) > 1) overlapAcross++;
      runs.push(userId);
      await sleep(400);
      running.set(userId, (running.get(userId) ?? 1) - 1);
    };
    const a = await jobs({ run: { derive } });
    await jobs({ run: { derive } });
    // Ask again and again for person 1 while it runs, and once for person 2.
    for (let i = 0; i < 12; i++) {
      await a.enqueueDerive(1);
      if (i === 2) await a.enqueueDerive(2);
      await sleep(100);
    }
    await until(async () => (await a.boss.getQueueSize(QUEUES.derive)) === 0 && [...running.values()].every((n) => n === 0));
    expect(overlapSamePerson).toBe(0);
    // Requests while one ran collapsed into one waiting job: a few runs, not twelve.
    const personOne = runs.filter((u) => u === 1).length;
    expect(personOne).toBeGreaterThanOrEqual(2);
    expect(personOne).toBeLessThan(12);
    expect(runs).toContain(2);
    expect(overlapAcross).toBeGreaterThan(0);
  });

  test('a queued derive runs the real computation and records the week', async () => {
    const person = await personWithData();
    const worker = await jobs();
    expect(await worker.enqueueDerive(person.id)).not.toBeNull();
    await until(async () => (await app.db('derived_weeks').where({ user_id: person.id })).length > 0);
    const { averages, correlations, weeks } = await snapshot(person.id);
    expect(weeks).toEqual([{ date: '2026-11-16', published: correlations.length }]);
    expect(averages.length).toBe(5);
    expect(correlations.some((c: { offset: number }) => c.offset === 0)).toBe(true);
  });
});

describe('sweeps', () => {
  test("the hourly sweep queues a derive for everyone whose week has no set, then the day's insights; a value change queues insights", async () => {
    const person = await personWithData();
    const enqueueOnly = await jobs({ work: false });
    const purge = async () => {
      await enqueueOnly.boss.purgeQueue(QUEUES.derive);
      await enqueueOnly.boss.purgeQueue(QUEUES.insights);
    };
    await purge();
    const first = await enqueueOnly.sweep();
    expect(first.derive).toBeGreaterThanOrEqual(1);
    // Already waiting: sweeping again queues nothing more for them.
    expect((await enqueueOnly.sweep()).derive).toBe(0);
    await purge();

    await deriveUser(app.db, person.id, { now: NOW });
    await app.db('derive_state').where({ user_id: person.id }).update({ insights_on: '2026-11-19' });
    expect(await fetchAll(enqueueOnly, QUEUES.insights)).toEqual([]);
    expect((await enqueueOnly.sweep()).insights).toBeGreaterThanOrEqual(1);
    const due = await fetchAll(enqueueOnly, QUEUES.insights);
    expect(due).toContain(person.id);

    // The derive drained the demo load's changes; a new write records one.
    expect(await app.db('value_changes').where({ user_id: person.id })).toEqual([]);
    await app.db('value_changes').insert({ user_id: person.id, date: '2026-11-20' });
    expect(await enqueueOnly.sweepChanges()).toBeGreaterThanOrEqual(1);
    expect(await fetchAll(enqueueOnly, QUEUES.insights)).toContain(person.id);
  });

  test('the hourly sweep reads people a page at a time and reaches every one of them', async () => {
    const people: number[] = [];
    for (let i = 0; i < 5; i++) {
      const { user } = await makeUser(app, { timezone: 'UTC' });
      await addValues(app, user.id, await addAttribute(app, user.id, { name: 'steps' }), { '2026-11-19': 100 + i });
      people.push(user.id);
    }
    // Pages of two: five people take three pages (and the people of other tests more).
    const enqueueOnly = await jobs({ work: false, sweepPageSize: 2 });
    await enqueueOnly.boss.purgeQueue(QUEUES.derive);
    const pages: number[] = [];
    const countPages = (query: { sql: string }) => {
      if (query.sql.includes('order by u.id')) pages.push(1);
    };
    app.db.on('query', countPages);
    const swept = await enqueueOnly.sweep();
    app.db.off('query', countPages);
    expect(swept.derive).toBeGreaterThanOrEqual(5);
    expect(pages.length).toBeGreaterThanOrEqual(3);
    expect(await fetchAll(enqueueOnly, QUEUES.derive)).toEqual(expect.arrayContaining(people));
  });

  test('an insight job drains the changes and records the day it ran for', async () => {
    const { user } = await makeUser(app, { timezone: 'UTC' });
    const steps = await addAttribute(app, user.id, { name: 'steps' });
    await addValues(app, user.id, steps, { '2026-11-19': 100, '2026-11-20': 200 });
    await app.db('value_changes').insert([
      { user_id: user.id, date: '2026-11-19' },
      { user_id: user.id, date: '2026-11-20' },
    ]);
    const worker = await jobs();
    const seen = await app.db('value_changes').where({ user_id: user.id });
    expect(seen).toHaveLength(2);
    await worker.enqueueInsights(user.id);
    await until(async () => (await app.db('value_changes').where({ user_id: user.id })).length === 0);
    expect((await app.db('derive_state').where({ user_id: user.id }).first()).insights_on).toBe('2026-11-20');
  });
});

describe('value changes', () => {
  test('a run deletes the changes it saw, but not one recorded again meanwhile', async () => {
    const { user } = await makeUser(app, { timezone: 'UTC' });
    await app.db('value_changes').insert([
      { user_id: user.id, date: '2026-11-19' },
      { user_id: user.id, date: '2026-11-20' },
    ]);
    await app.db.transaction(async (trx) => {
      const seen = await pendingChanges(trx, user.id);
      expect(seen.map((c) => c.date).sort()).toEqual(['2026-11-19', '2026-11-20']);
      // Another write to 2026-11-20 commits while the run works.
      await sleep(5);
      await app.db('value_changes').where({ user_id: user.id, date: '2026-11-20' }).update({ changed_at: app.db.fn.now() });
      await drainChanges(trx, user.id, seen);
    });
    expect((await app.db('value_changes').where({ user_id: user.id })).map((c: { date: string }) => c.date)).toEqual(['2026-11-20']);
  });
});

describe('a derive that fails half-way', () => {
  test('an error after the new set was written rolls back: the previous results stay', async () => {
    const person = await personWithData();
    await deriveUser(app.db, person.id, { now: NOW });
    const before = await snapshot(person.id);
    expect(before.averages.length).toBeGreaterThan(0);
    // New data that would change every result, then a derive of the same week that dies half-way.
    await app
      .db('attribute_values')
      .where({ user_id: person.id })
      .update({ value_num: app.db.raw('value_num * 2 + (date - ?::date)', ['2026-01-01']) });
    await expect(
      deriveUser(app.db, person.id, {
        now: NOW,
        hooks: {
          afterWrite: async (trx) => {
            expect((await trx('averages').where({ user_id: person.id }).select('overall')).length).toBeGreaterThan(0);
            throw new Error('killed half-way');
          },
        },
      }),
    ).rejects.toThrow('killed half-way');
    expect(await snapshot(person.id)).toEqual(before);
  });

  test('a connection killed half-way (as when the process dies) leaves the previous results too', async () => {
    const person = await personWithData();
    await deriveUser(app.db, person.id, { now: NOW });
    const before = await snapshot(person.id);
    await app
      .db('attribute_values')
      .where({ user_id: person.id })
      .update({ value_num: app.db.raw('value_num + 1000') });
    // knex reports the dropped connection on the console; expected here.
    const quiet = jest.spyOn(console, 'log').mockImplementation(() => undefined);
    await expect(
      deriveUser(app.db, person.id, {
        now: new Date('2026-11-27T12:00:00Z'),
        hooks: { afterWrite: async (trx) => void (await trx.raw('select pg_terminate_backend(pg_backend_pid())')) },
      }),
    ).rejects.toThrow();
    expect(await snapshot(person.id)).toEqual(before);
    // And the next run completes normally.
    await deriveUser(app.db, person.id, { now: NOW });
    expect((await snapshot(person.id)).averages).not.toEqual(before.averages);
    await sleep(200);
    quiet.mockRestore();
  });
});

/**
 * Insights follow the data (docs/decisions.md, "Insights follow the data"), over HTTP with the
 * jobs running: after today's mood changes, the value-changes sweep has the insight about it
 * recomputed ("Mood today: 3") or withdrawn (mood 7 is not below a usual Thursday), and until the
 * run has done so neither version's list shows the stale sentence.
 */
import { startTestApp, type TestApp } from '../../support/app';
import { makeClient, makeSession, makeToken, makeUser } from '../../support/fixtures';
import { addValues } from '../../support/seed';
import { generateInsights } from '../../../src/analytics/derive';
import { startJobs, type Jobs } from '../../../src/jobs/queues';
import { addDays } from '../../../src/domain/time';

let app: TestApp;
let jobs: Jobs;
const NOW = new Date('2026-11-19T12:00:00Z'); // a Thursday
const TODAY = '2026-11-19';

beforeAll(async () => {
  app = await startTestApp();
  jobs = await startJobs({
    connectionString: app.deps.config.databaseUrl!,
    db: app.db,
    logger: app.deps.logger,
    now: () => NOW,
    pollingIntervalSeconds: 0.5,
    schedule: false,
  });
});
afterAll(async () => {
  await jobs.stop(2000);
  await app.close();
});

/** Resolves once `check` holds (polled; the jobs run in this process). */
async function until(check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setImmediate(resolve));
  }
}

interface Listed {
  type: { name: string; attribute: { name: string } };
  text: string;
}

/** The mood insights of today in the v2 and the v1 lists, and whether the person's insights page says "Mood today". */
async function moodToday(token: string, session?: string): Promise<{ v2: string[]; v1: string[]; page?: boolean }> {
  const v2 = await app.get('/api/2/insights/?limit=100', { token });
  const v1 = await app.get('/api/1/users/$self/insights/?limit=100', { token });
  expect(v2.status).toBe(200);
  expect(v1.status).toBe(200);
  const pick = (results: Listed[]) => results.filter((i) => i.type.attribute.name === 'mood' && i.type.name.startsWith('today_')).map((i) => i.text);
  const shown = { v2: pick(v2.body.results), v1: pick(v1.body.results) };
  if (!session) return shown;
  const page = await app.get('/data/insights', { session, unvalidated: true });
  expect(page.status).toBe(200);
  return { ...shown, page: page.text.includes('Mood today') };
}

/** Runs the value-changes sweep, then waits until the insight run it queued drained the person's changes. */
async function sweepAndWait(userId: number): Promise<void> {
  expect(await jobs.sweepChanges()).toBeGreaterThanOrEqual(1);
  await until(async () => (await app.db('value_changes').where({ user_id: userId })).length === 0);
}

test("an insight about today's mood is recomputed when the mood changes, withdrawn when it no longer holds, hidden in between", async () => {
  const { user, simpleToken } = await makeUser(app, { timezone: 'UTC' });
  const session = await makeSession(app, user);
  const { client } = await makeClient(app, user, 'Mood app');
  const bearer = (await makeToken(app, user, client, ['mood_read', 'mood_write'])).access_token;
  expect((await app.post('/api/2/attributes/acquire/', { bearer, json: [{ template: 'mood' }] })).status).toBe(200);
  const mood = await app.db('attributes').where({ user_id: user.id, name: 'mood' }).first('id', 'name', 'value_type');
  // Mood 8 on the Thursdays of the last 60 days, 4 today.
  const history: Record<string, number> = { [TODAY]: 4 };
  for (let weeks = 1; weeks <= 8; weeks++) history[addDays(TODAY, -7 * weeks)] = 8;
  await addValues(app, user.id, mood, history);
  await generateInsights(app.db, user.id, { now: NOW });
  expect(await moodToday(simpleToken, session)).toEqual({
    v2: ['Mood today: 4, below a usual Thursday (8).'],
    v1: ['Mood today: 4, below a usual Thursday (8).'],
    page: true,
  });

  // Mood 3: hidden at once, recomputed by the sweep's run.
  const write = (value: number) => app.post('/api/2/attributes/update/', { bearer, json: [{ name: 'mood', date: TODAY, value }] });
  expect((await write(3)).status).toBe(200);
  expect(await moodToday(simpleToken, session)).toEqual({ v2: [], v1: [], page: false });
  await sweepAndWait(user.id);
  expect(await moodToday(simpleToken, session)).toEqual({
    v2: ['Mood today: 3, below a usual Thursday (8).'],
    v1: ['Mood today: 3, below a usual Thursday (8).'],
    page: true,
  });

  // Mood 7 is not below a usual Thursday: withdrawn.
  expect((await write(7)).status).toBe(200);
  expect(await moodToday(simpleToken, session)).toEqual({ v2: [], v1: [], page: false });
  await sweepAndWait(user.id);
  expect(await moodToday(simpleToken, session)).toEqual({ v2: [], v1: [], page: false });
  expect(await app.db('insights').where({ user_id: user.id, attribute_id: mood.id, type_name: 'today_below_weekday' })).toEqual([]);
});

test("a change to a day outside an insight's source days leaves it shown and untouched", async () => {
  const { user, simpleToken } = await makeUser(app, { timezone: 'UTC' });
  const { client } = await makeClient(app, user, 'Mood app');
  const bearer = (await makeToken(app, user, client, ['mood_read', 'mood_write'])).access_token;
  expect((await app.post('/api/2/attributes/acquire/', { bearer, json: [{ template: 'mood' }] })).status).toBe(200);
  const mood = await app.db('attributes').where({ user_id: user.id, name: 'mood' }).first('id', 'name', 'value_type');
  const history: Record<string, number> = { [TODAY]: 4 };
  for (let weeks = 1; weeks <= 8; weeks++) history[addDays(TODAY, -7 * weeks)] = 8;
  await addValues(app, user.id, mood, history);
  await generateInsights(app.db, user.id, { now: NOW });
  const before = await app.db('insights').where({ user_id: user.id }).select('id', 'text', 'created');
  expect(before.length).toBeGreaterThan(0);
  // Two years back: no insight as of today reads that day.
  expect((await app.post('/api/2/attributes/update/', { bearer, json: [{ name: 'mood', date: addDays(TODAY, -730), value: 2 }] })).status).toBe(200);
  expect((await moodToday(simpleToken)).v2).toEqual(['Mood today: 4, below a usual Thursday (8).']);
  await sweepAndWait(user.id);
  expect(await app.db('insights').where({ user_id: user.id }).select('id', 'text', 'created')).toEqual(before);
});

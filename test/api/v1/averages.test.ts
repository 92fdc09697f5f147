import { startTestApp, type TestApp } from '../../support/app';
import { makeClient, makeToken, makeUser } from '../../support/fixtures';
import { addAttributes, type SeededAttribute } from '../../support/seed';
import { addDays } from '../../../src/domain/time';
import type { User } from '../../../src/domain/identity/users';
import type { OAuthClient } from '../../../src/domain/apps-and-grants/clients';

let app: TestApp;
let person: User;
let token: string;
let other: User;
let client: OAuthClient;

const WEEK = { monday: 1, tuesday: 2, wednesday: 3, thursday: 4, friday: 5, saturday: 6, sunday: 7 };
const LATEST = '2026-11-16';

async function addAverage(userId: number, attribute: SeededAttribute, date: string, overall: number): Promise<void> {
  await app.db('averages').insert({ user_id: userId, attribute_id: attribute.id, date, overall, ...WEEK });
}

async function tokenFor(scopes: string[]): Promise<string> {
  return (await makeToken(app, person, client, scopes)).access_token;
}

beforeAll(async () => {
  app = await startTestApp();
  app.setNow(new Date('2026-11-22T12:00:00Z'));
  const made = await makeUser(app, { timezone: 'UTC' });
  person = made.user;
  token = made.simpleToken;
  other = (await makeUser(app)).user;
  client = (await makeClient(app, person, 'Averages Reader')).client;
  const [steps, mood, sleep] = await addAttributes(app, person.id, [{ name: 'steps' }, { name: 'mood', manual: true }, { name: 'sleep' }]);
  // 30 weekly sets of steps (newest LATEST), two of mood, one of sleep.
  for (let week = 0; week < 30; week++) await addAverage(person.id, steps, addDays(LATEST, -7 * week), 8000 + week);
  await addAverage(person.id, mood, LATEST, 6);
  await addAverage(person.id, mood, addDays(LATEST, -7), 5.5);
  await addAverage(person.id, sleep, addDays(LATEST, -7), 431.5);
  const [theirSteps] = await addAttributes(app, other.id, [{ name: 'steps' }]);
  await addAverage(other.id, theirSteps, LATEST, 55555);
});
afterAll(async () => {
  app.setNow(undefined);
  await app.close();
});

describe('GET /api/1/users/:username/averages/', () => {
  test('a bare array of the newest set of each visible attribute, in attribute list order', async () => {
    const res = await app.get('/api/1/users/$self/averages/', { token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      { attribute: 'steps', date: LATEST, overall: 8000, ...WEEK },
      { attribute: 'mood', date: LATEST, overall: 6, ...WEEK },
      { attribute: 'sleep', date: addDays(LATEST, -7), overall: 431.5, ...WEEK },
    ]);
  });

  test('only attributes the token may read', async () => {
    const sleep = await app.get('/api/1/users/$self/averages/', { bearer: await tokenFor(['sleep_read']) });
    expect(sleep.body.map((a: { attribute: string }) => a.attribute)).toEqual(['sleep']);
    const manual = await app.get('/api/1/users/$self/averages/', { bearer: await tokenFor(['manual_read']) });
    expect(manual.body.map((a: { attribute: string }) => a.attribute)).toEqual(['mood']);
    const read = await app.get('/api/1/users/$self/averages/', { bearer: await tokenFor(['read']) });
    expect(read.body).toHaveLength(3);
  });

  test('the caller’s own user name is $self; another user, existing or not, is 403', async () => {
    expect((await app.get(`/api/1/users/${person.username}/averages/`, { token })).body).toHaveLength(3);
    for (const name of [other.username, 'nobody_at_all']) {
      const res = await app.get(`/api/1/users/${name}/averages/`, { token });
      expect(res.status).toBe(403);
      expect(res.body.detail).toMatch(/only read your own data/);
      expect(res.text).not.toContain('55555');
    }
  });

  test('a person without averages gets an empty array', async () => {
    const made = await makeUser(app);
    const res = await app.get('/api/1/users/$self/averages/', { token: made.simpleToken });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
  });
});

describe('GET /api/1/users/:username/averages/attribute/:attribute/', () => {
  test('a paged list of every set of the attribute, newest first, 20 per page by default', async () => {
    const res = await app.get('/api/1/users/$self/averages/attribute/steps/', { token });
    expect(res.status).toBe(200);
    expect(res.body.count).toBe(30);
    expect(res.body.results).toHaveLength(20);
    expect(res.body.results[0]).toEqual({ attribute: 'steps', date: LATEST, overall: 8000, ...WEEK });
    expect(res.body.results[1].date).toBe(addDays(LATEST, -7));
    expect(new URL(res.body.next).searchParams.get('page')).toBe('2');
    const second = await app.get('/api/1/users/$self/averages/attribute/steps/?page=2', { token });
    expect(second.body.results).toHaveLength(10);
    expect(second.body.next).toBeNull();
  });

  test('limit, date_min and date_max bound the page and the sets’ dates (inclusive)', async () => {
    const res = await app.get(`/api/1/users/$self/averages/attribute/steps/?limit=2&date_min=${addDays(LATEST, -28)}&date_max=${addDays(LATEST, -7)}`, {
      token,
    });
    expect(res.body.count).toBe(4);
    expect(res.body.results.map((a: { date: string }) => a.date)).toEqual([addDays(LATEST, -7), addDays(LATEST, -14)]);
    const clamped = await app.get('/api/1/users/$self/averages/attribute/steps/?limit=500', { token });
    expect(clamped.body.results).toHaveLength(30);
  });

  test('an unknown or hidden attribute is an empty page; a page past the end is 404', async () => {
    expect((await app.get('/api/1/users/$self/averages/attribute/nothing/', { token })).body).toEqual({ count: 0, next: null, previous: null, results: [] });
    const hidden = await app.get('/api/1/users/$self/averages/attribute/steps/', { bearer: await tokenFor(['sleep_read']) });
    expect(hidden.body.count).toBe(0);
    expect((await app.get('/api/1/users/$self/averages/attribute/steps/?page=9', { token })).status).toBe(404);
  });

  test('another user is 403', async () => {
    const res = await app.get(`/api/1/users/${other.username}/averages/attribute/steps/`, { token });
    expect(res.status).toBe(403);
    expect(res.text).not.toContain('55555');
  });
});

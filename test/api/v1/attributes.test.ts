import { startTestApp, type TestApp } from '../../support/app';
import { makeClient, makeToken, makeUser } from '../../support/fixtures';
import { addAttributes, addValues, type SeededAttribute } from '../../support/seed';
import { addDays } from '../../../src/domain/time';
import type { User } from '../../../src/domain/identity/users';
import type { OAuthClient } from '../../../src/domain/apps-and-grants/clients';

let app: TestApp;
let person: User;
let token: string;
let other: User;
let privateOther: User;
let client: OAuthClient;
const seeded: Record<string, SeededAttribute> = {};

const NOW = new Date('2026-11-22T12:00:00Z'); // 2026-11-22 in UTC
const TODAY = '2026-11-22';
type V1Attribute = { attribute: string; values: Array<{ date: string; value: unknown }> };
const attributeNames = (body: V1Attribute[]) => body.map((a) => a.attribute);
const valuesOf = (body: V1Attribute[], name: string) => body.find((a) => a.attribute === name)?.values;

async function tokenFor(scopes: string[]): Promise<string> {
  return (await makeToken(app, person, client, scopes)).access_token;
}

beforeAll(async () => {
  app = await startTestApp();
  app.setNow(NOW);
  const made = await makeUser(app, { timezone: 'UTC' });
  person = made.user;
  token = made.simpleToken;
  other = (await makeUser(app)).user;
  privateOther = (await makeUser(app)).user;
  await app.db('users').where({ id: privateOther.id }).update({ private: true });
  client = (await makeClient(app, person, 'Step Counter')).client;
  const list = await addAttributes(app, person.id, [
    { name: 'steps', owner: client.id },
    { name: 'steps_distance', owner: client.id },
    { name: 'floors', active: false },
    { name: 'mood', manual: true },
    { name: 'mood_note' },
    { name: 'sleep', owner: client.id },
    { name: 'sodium' }, // priority 10
  ]);
  for (const attribute of list) seeded[attribute.name] = attribute;
  await app.db('attributes').where({ user_id: person.id, name: 'mood' }).update({ private: true });
  await addValues(app, person.id, seeded.steps, { [TODAY]: 8412, '2026-11-20': 10233, '2026-11-15': 1, '2026-11-23': 99, '2026-10-23': 5 });
  await addValues(app, person.id, seeded.steps_distance, { '2026-11-21': 6.5 });
  await addValues(app, person.id, seeded.mood, { [TODAY]: 7 });
  await addValues(app, person.id, seeded.mood_note, { '2026-11-19': 'A "good" day' });
  await addValues(app, person.id, seeded.floors, { [TODAY]: 12 });
  await addValues(app, person.id, seeded.sodium, { [TODAY]: 1500.5 });
  // 130 days of sleep, for paging.
  const sleep: Record<string, number> = {};
  for (let i = 0; i < 130; i++) sleep[addDays(TODAY, -i)] = 400 + i;
  await addValues(app, person.id, seeded.sleep, sleep);
  // The other user's data, never shown.
  const [theirSteps] = await addAttributes(app, other.id, [{ name: 'steps' }]);
  await addValues(app, other.id, theirSteps, { [TODAY]: 55555 });
});
afterAll(async () => {
  app.setNow(undefined);
  await app.close();
});

describe('GET /api/1/users/:username/attributes/', () => {
  test('a bare array of the visible active, normal-priority attributes, in list order, each with the last week of values', async () => {
    const res = await app.get('/api/1/users/$self/attributes/', { token });
    expect(res.status).toBe(200);
    expect(Array.isArray(res.body)).toBe(true);
    expect(attributeNames(res.body)).toEqual(['steps', 'steps_distance', 'mood', 'mood_note', 'sleep']);
    for (const attribute of res.body)
      expect(attribute.values.map((v: { date: string }) => v.date)).toEqual([
        '2026-11-22',
        '2026-11-21',
        '2026-11-20',
        '2026-11-19',
        '2026-11-18',
        '2026-11-17',
        '2026-11-16',
      ]);
  });

  test('every day of the range is listed, null where there is no data, newest first', async () => {
    const res = await app.get('/api/1/users/$self/attributes/', { token });
    expect(valuesOf(res.body, 'steps')).toEqual([
      { date: '2026-11-22', value: 8412 },
      { date: '2026-11-21', value: null },
      { date: '2026-11-20', value: 10233 },
      { date: '2026-11-19', value: null },
      { date: '2026-11-18', value: null },
      { date: '2026-11-17', value: null },
      { date: '2026-11-16', value: null },
    ]);
    expect(valuesOf(res.body, 'mood_note')?.[3]).toEqual({ date: '2026-11-19', value: 'A "good" day' });
    expect(valuesOf(res.body, 'steps_distance')?.[1]).toEqual({ date: '2026-11-21', value: 6.5 });
  });

  test('each attribute is the v1 object: name, label, group, owning service as a string, private flag', async () => {
    const res = await app.get('/api/1/users/$self/attributes/?attributes=steps,mood,mood_note&limit=1', { token });
    expect(res.body).toEqual([
      {
        attribute: 'steps',
        label: 'Steps',
        group: { name: 'activity', label: 'Activity', priority: 1 },
        service: client.client_id,
        private: false,
        values: [{ date: TODAY, value: 8412 }],
      },
      {
        attribute: 'mood',
        label: 'Mood',
        group: { name: 'mood', label: 'Mood', priority: 3 },
        service: '',
        private: true,
        values: [{ date: TODAY, value: 7 }],
      },
      {
        attribute: 'mood_note',
        label: expect.any(String),
        group: { name: 'mood', label: 'Mood', priority: 3 },
        service: '',
        private: false,
        values: [{ date: TODAY, value: null }],
      },
    ]);
  });

  test('limit is the number of days from date_max back, at most 31', async () => {
    const three = await app.get('/api/1/users/$self/attributes/?attributes=steps&limit=3&date_max=2026-11-23', { token });
    expect(valuesOf(three.body, 'steps')).toEqual([
      { date: '2026-11-23', value: 99 },
      { date: '2026-11-22', value: 8412 },
      { date: '2026-11-21', value: null },
    ]);
    const month = await app.get('/api/1/users/$self/attributes/?attributes=steps&limit=31', { token });
    const values = valuesOf(month.body, 'steps')!;
    expect(values).toHaveLength(31);
    expect(values[0]).toEqual({ date: TODAY, value: 8412 });
    expect(values[30]).toEqual({ date: '2026-10-23', value: 5 });
  });

  test('a limit above 31, below 1 or not an integer is 400 with the error body', async () => {
    for (const limit of ['32', '0', 'week']) {
      const res = await app.get(`/api/1/users/$self/attributes/?limit=${limit}`, { token });
      expect(res.status).toBe(400);
      expect(res.body.errors[0]).toMatchObject({ in: 'query', name: 'limit' });
    }
  });

  test('date_max moves the range; a date_max that is no date is 400', async () => {
    const res = await app.get('/api/1/users/$self/attributes/?attributes=steps&date_max=2026-11-20&limit=2', { token });
    expect(valuesOf(res.body, 'steps')).toEqual([
      { date: '2026-11-20', value: 10233 },
      { date: '2026-11-19', value: null },
    ]);
    expect((await app.get('/api/1/users/$self/attributes/?date_max=2026-02-30', { token })).status).toBe(400);
    expect((await app.get('/api/1/users/$self/attributes/?date_max=0000-01-01', { token })).status).toBe(400);
  });

  test('groups and attributes filter; named inactive or low-priority attributes are listed; empty filters are ignored', async () => {
    expect(attributeNames((await app.get('/api/1/users/$self/attributes/?groups=mood', { token })).body)).toEqual(['mood', 'mood_note']);
    expect(attributeNames((await app.get('/api/1/users/$self/attributes/?attributes=floors,sodium,steps', { token })).body)).toEqual([
      'steps',
      'floors',
      'sodium',
    ]);
    expect(attributeNames((await app.get('/api/1/users/$self/attributes/?groups=&attributes=', { token })).body)).toHaveLength(5);
    expect((await app.get('/api/1/users/$self/attributes/?groups=nonsense', { token })).body).toEqual([]);
  });

  test('only attributes the token may read; a group outside the scopes is an empty array, not an error', async () => {
    const activity = await tokenFor(['activity_read']);
    expect(attributeNames((await app.get('/api/1/users/$self/attributes/', { bearer: activity })).body)).toEqual(['steps', 'steps_distance']);
    const outside = await app.get('/api/1/users/$self/attributes/?groups=sleep', { bearer: activity });
    expect(outside.status).toBe(200);
    expect(outside.body).toEqual([]);
    const manual = await tokenFor(['manual_read']);
    expect(attributeNames((await app.get('/api/1/users/$self/attributes/', { bearer: manual })).body)).toEqual(['mood']);
  });

  test('a token with the v1 scope `read` reads every group', async () => {
    const res = await app.get('/api/1/users/$self/attributes/', { bearer: await tokenFor(['read']) });
    expect(attributeNames(res.body)).toEqual(['steps', 'steps_distance', 'mood', 'mood_note', 'sleep']);
  });

  test('the caller’s own user name in another case is the same as $self', async () => {
    const self = await app.get('/api/1/users/$self/attributes/', { token });
    const named = await app.get(`/api/1/users/${person.username.toUpperCase()}/attributes/`, { token });
    expect(named.status).toBe(200);
    expect(named.body).toEqual(self.body);
  });

  test('another user, public, private or unknown, is 403 with the error body and none of their values', async () => {
    for (const name of [other.username, privateOther.username, 'nobody_at_all']) {
      const res = await app.get(`/api/1/users/${name}/attributes/`, { token });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ detail: 'You can only read your own data: use $self or your own user name.' });
      expect(res.text).not.toContain('55555');
    }
  });
});

describe('GET /api/1/users/:username/attributes/:attribute/', () => {
  test('one entry per day, newest first, from today back to the first day with data, null on days without data (20 per page)', async () => {
    const res = await app.get('/api/1/users/$self/attributes/steps/', { token });
    expect(res.status).toBe(200);
    // Stored: 2026-10-23, 11-15, 11-20, 11-22 (and 11-23, after today): 31 days from 10-23 to 11-22.
    expect(res.body.count).toBe(31);
    expect(res.body.results).toHaveLength(20);
    expect(res.body.results.slice(0, 4)).toEqual([
      { date: '2026-11-22', value: 8412 },
      { date: '2026-11-21', value: null },
      { date: '2026-11-20', value: 10233 },
      { date: '2026-11-19', value: null },
    ]);
    expect(res.body.results.map((v: { date: string }) => v.date)).toEqual(Array.from({ length: 20 }, (_, i) => addDays(TODAY, -i)));
    const second = await app.get(new URL(res.body.next).pathname + new URL(res.body.next).search, { token });
    expect(second.body.results).toHaveLength(11);
    expect(second.body.results[0]).toEqual({ date: '2026-11-02', value: null });
    expect(second.body.results[10]).toEqual({ date: '2026-10-23', value: 5 });
    expect(second.body.next).toBeNull();
    expect([...res.body.results, ...second.body.results].filter((v: { value: unknown }) => v.value !== null)).toEqual([
      { date: '2026-11-22', value: 8412 },
      { date: '2026-11-20', value: 10233 },
      { date: '2026-11-15', value: 1 },
      { date: '2026-10-23', value: 5 },
    ]);
  });

  test('a value on one day of three: every day of the range is counted and listed', async () => {
    const res = await app.get('/api/1/users/$self/attributes/steps_distance/?date_max=2026-11-23', { token });
    expect(res.body).toEqual({
      count: 3,
      next: null,
      previous: null,
      results: [
        { date: '2026-11-23', value: null },
        { date: '2026-11-22', value: null },
        { date: '2026-11-21', value: 6.5 },
      ],
    });
  });

  test('date_max is the newest date listed, inclusive; before the first value the list is empty', async () => {
    const res = await app.get('/api/1/users/$self/attributes/steps/?date_max=2026-11-23&limit=2', { token });
    expect(res.body.count).toBe(32);
    expect(res.body.results).toEqual([
      { date: '2026-11-23', value: 99 },
      { date: '2026-11-22', value: 8412 },
    ]);
    const first = await app.get('/api/1/users/$self/attributes/steps/?date_max=2026-10-23', { token });
    expect(first.body).toEqual({ count: 1, next: null, previous: null, results: [{ date: '2026-10-23', value: 5 }] });
    const before = await app.get('/api/1/users/$self/attributes/steps/?date_max=2026-10-22', { token });
    expect(before.body).toEqual({ count: 0, next: null, previous: null, results: [] });
  });

  test('the earliest dates are fine: the range stops at 0001-01-01', async () => {
    const [early] = await addAttributes(app, person.id, [
      { name: 'floors_early', template: null, label: 'Early floors', group: 'activity', value_type: 0, priority: 20 },
    ]);
    await addValues(app, person.id, early, { '0001-01-02': 3 });
    const res = await app.get('/api/1/users/$self/attributes/floors_early/?date_max=0001-01-03&limit=5', { token });
    expect(res.body).toEqual({
      count: 2,
      next: null,
      previous: null,
      results: [
        { date: '0001-01-03', value: null },
        { date: '0001-01-02', value: 3 },
      ],
    });
    expect((await app.get('/api/1/users/$self/attributes/floors_early/?date_max=0001-01-03&limit=1&page=999999999', { token })).status).toBe(404);
  });

  test('limit and page walk the list with absolute next/previous links', async () => {
    const first = await app.get('/api/1/users/$self/attributes/sleep/?limit=50', { token });
    expect(first.body.count).toBe(130);
    expect(first.body.results).toHaveLength(50);
    expect(first.body.results[0]).toEqual({ date: TODAY, value: 400 });
    expect(first.body.previous).toBeNull();
    const next = new URL(first.body.next);
    expect(next.pathname).toBe('/api/1/users/$self/attributes/sleep/');
    expect(next.searchParams.get('limit')).toBe('50');
    expect(next.searchParams.get('page')).toBe('2');
    const third = await app.get('/api/1/users/$self/attributes/sleep/?limit=50&page=3', { token });
    expect(third.body.results).toHaveLength(30);
    expect(third.body.results[29]).toEqual({ date: addDays(TODAY, -129), value: 529 });
    expect(third.body.next).toBeNull();
    expect(new URL(third.body.previous).searchParams.get('page')).toBe('2');
  });

  test('limit is at most 100 per page (more is treated as 100)', async () => {
    const res = await app.get('/api/1/users/$self/attributes/sleep/?limit=1000', { token });
    expect(res.status).toBe(200);
    expect(res.body.results).toHaveLength(100);
    expect(res.body.count).toBe(130);
  });

  test('a page past the end is 404 "Invalid page."; a bad limit is 400', async () => {
    const past = await app.get('/api/1/users/$self/attributes/steps/?page=3', { token });
    expect(past.status).toBe(404);
    expect(past.body).toEqual({ detail: 'Invalid page.' });
    expect((await app.get('/api/1/users/$self/attributes/steps/?limit=0', { token })).status).toBe(400);
  });

  test('an unknown attribute, or one the token may not read, is an empty page', async () => {
    const unknown = await app.get('/api/1/users/$self/attributes/no_such_thing/', { token });
    expect(unknown.status).toBe(200);
    expect(unknown.body).toEqual({ count: 0, next: null, previous: null, results: [] });
    const hidden = await app.get('/api/1/users/$self/attributes/sleep/', { bearer: await tokenFor(['activity_read']) });
    expect(hidden.body).toEqual({ count: 0, next: null, previous: null, results: [] });
  });

  test('another user’s values are 403, whether or not the user exists', async () => {
    for (const name of [other.username, 'nobody_at_all']) {
      const res = await app.get(`/api/1/users/${name}/attributes/steps/`, { token });
      expect(res.status).toBe(403);
      expect(res.text).not.toContain('55555');
    }
  });
});

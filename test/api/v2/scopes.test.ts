import { startTestApp, type TestApp } from '../../support/app';
import { makeClient, makeSession, makeToken, makeUser } from '../../support/fixtures';
import { addAttributes, addValues } from '../../support/seed';
import type { User } from '../../../src/domain/identity/users';
import type { OAuthClient } from '../../../src/domain/apps-and-grants/clients';

let app: TestApp;
let person: User;
let simpleToken: string;
let client: OAuthClient;

const names = (body: { results: Array<{ name: string }> }) => body.results.map((r) => r.name);
const ALL = 'include_inactive=true&include_low_priority=true';

async function tokenFor(scopes: string[]): Promise<string> {
  return (await makeToken(app, person, client, scopes)).access_token;
}

beforeAll(async () => {
  app = await startTestApp();
  app.setNow(new Date('2026-11-22T12:00:00Z'));
  const made = await makeUser(app, { timezone: 'UTC' });
  person = made.user;
  simpleToken = made.simpleToken;
  client = (await makeClient(app, person, 'Mood Journal')).client;
  const attributes = await addAttributes(app, person.id, [
    { name: 'steps', owner: client.id },
    { name: 'floors', owner: client.id, active: false },
    { name: 'mood', owner: client.id },
    { name: 'mood_note', owner: client.id },
    { name: 'sleep', owner: client.id },
    { name: 'weight', manual: true, owner: client.id },
    { name: 'walked_dog', template: null, group: 'activity', value_type: 0, priority: 2, manual: true, owner: client.id },
  ]);
  for (const attribute of attributes) await addValues(app, person.id, attribute, { '2026-11-22': attribute.value_type === 2 ? 'note' : 5 });
});
afterAll(async () => {
  app.setNow(undefined);
  await app.close();
});

describe('a token sees only the groups it may read', () => {
  test('a mood-only token sees no activity data in any endpoint, counts included', async () => {
    const bearer = await tokenFor(['mood_read']);
    const list = await app.get(`/api/2/attributes/?${ALL}`, { bearer });
    expect(names(list.body)).toEqual(['mood', 'mood_note']);
    expect(list.body.count).toBe(2);
    const withValues = await app.get('/api/2/attributes/with-values/?limit=1', { bearer });
    expect(withValues.body.count).toBe(2);
    expect(names(withValues.body)).toEqual(['mood']);
    expect(new URL(withValues.body.next).searchParams.get('page')).toBe('2');
    const owned = await app.get(`/api/2/attributes/owned/?${ALL}`, { bearer });
    expect(names(owned.body)).toEqual(['mood', 'mood_note']);

    for (const path of [
      `/api/2/attributes/?groups=activity&${ALL}`,
      '/api/2/attributes/?attributes=steps,floors,walked_dog',
      '/api/2/attributes/with-values/?groups=activity',
      '/api/2/attributes/with-values/?attributes=steps,floors,walked_dog',
      '/api/2/attributes/with-values/?templates=steps,floors',
      '/api/2/attributes/values/?attribute=steps',
      '/api/2/attributes/values/?attribute=walked_dog',
      `/api/2/attributes/owned/?groups=activity&${ALL}`,
    ]) {
      const res = await app.get(path, { bearer });
      expect([path, res.status, res.body]).toEqual([path, 200, { count: 0, next: null, previous: null, results: [] }]);
    }
  });

  test('manual_read adds manual attributes of every group, and nothing else', async () => {
    const bearer = await tokenFor(['manual_read']);
    expect(names((await app.get(`/api/2/attributes/?${ALL}`, { bearer })).body)).toEqual(['walked_dog', 'weight']);
    expect(names((await app.get('/api/2/attributes/with-values/', { bearer })).body)).toEqual(['walked_dog', 'weight']);
    expect((await app.get('/api/2/attributes/values/?attribute=walked_dog', { bearer })).body.count).toBe(1);
    expect((await app.get('/api/2/attributes/values/?attribute=steps', { bearer })).body.count).toBe(0);
    // The groups filter still applies to a manual attribute's own group.
    expect(names((await app.get('/api/2/attributes/?groups=activity', { bearer })).body)).toEqual(['walked_dog']);
    expect(names((await app.get('/api/2/attributes/?groups=mood', { bearer })).body)).toEqual([]);
  });

  test('read scopes add up, and a token without any sees an empty attribute list', async () => {
    expect(names((await app.get('/api/2/attributes/', { bearer: await tokenFor(['mood_read', 'sleep_read']) })).body)).toEqual(['mood', 'mood_note', 'sleep']);
    const writeOnly = await tokenFor(['mood_write', 'manual_write']);
    expect((await app.get(`/api/2/attributes/?${ALL}`, { bearer: writeOnly })).body.count).toBe(0);
  });
  test('a simple token, a session and a version 1 read token see every group', async () => {
    const session = await makeSession(app, person);
    const v1 = await tokenFor(['read']);
    for (const credentials of [{ token: simpleToken }, { session }, { bearer: v1 }]) {
      const res = await app.get(`/api/2/attributes/?${ALL}`, credentials);
      expect(res.body.count).toBe(7);
      expect((await app.get('/api/2/attributes/with-values/', credentials)).body.count).toBe(6);
    }
  });

  test('templates are never filtered by scope', async () => {
    const bearer = await tokenFor(['mood_read']);
    const res = await app.get('/api/2/attributes/templates/?groups=activity,sleep', { bearer });
    expect(names(res.body)).toEqual(expect.arrayContaining(['steps', 'sleep']));
  });

  test('scope checks use the attribute’s current group', async () => {
    const bearer = await tokenFor(['mood_read']);
    await app.db('attributes').where({ user_id: person.id, name: 'sleep' }).update({ group_name: 'mood' });
    try {
      // Now in mood with priority 1: after mood by name, before mood_note (priority 2).
      expect(names((await app.get('/api/2/attributes/', { bearer })).body)).toEqual(['mood', 'sleep', 'mood_note']);
      expect((await app.get('/api/2/attributes/values/?attribute=sleep', { bearer })).body.count).toBe(1);
    } finally {
      await app.db('attributes').where({ user_id: person.id, name: 'sleep' }).update({ group_name: 'sleep' });
    }
  });
});

describe('values are visible with a read or a write scope (the spec’s rule 6)', () => {
  test('a service holding only mood_write that owns mood reads its own values back from with-values and values', async () => {
    const bearer = await tokenFor(['mood_write']);
    const withValues = await app.get('/api/2/attributes/with-values/', { bearer });
    expect(withValues.body.count).toBe(2);
    expect(withValues.body.results.map((a: { name: string; values: unknown[] }) => [a.name, a.values])).toEqual([
      ['mood', [{ date: '2026-11-22', value: 5 }]],
      ['mood_note', [{ date: '2026-11-22', value: 'note' }]],
    ]);
    const values = await app.get('/api/2/attributes/values/?attribute=mood', { bearer });
    expect(values.body).toEqual({ count: 1, next: null, previous: null, results: [{ date: '2026-11-22', value: 5 }] });
    // Groups it may neither read nor write stay hidden.
    expect((await app.get('/api/2/attributes/values/?attribute=sleep', { bearer })).body.count).toBe(0);
  });

  test('manual_write shows manual attributes of every group in the values endpoints', async () => {
    const bearer = await tokenFor(['manual_write']);
    expect(names((await app.get('/api/2/attributes/with-values/', { bearer })).body)).toEqual(['walked_dog', 'weight']);
    expect((await app.get('/api/2/attributes/values/?attribute=weight', { bearer })).body.count).toBe(1);
    expect((await app.get('/api/2/attributes/values/?attribute=mood', { bearer })).body.count).toBe(0);
  });

  test('the attribute list and averages stay limited to read scopes', async () => {
    const mood = await app.db('attributes').where({ user_id: person.id, name: 'mood' }).first('id');
    const week = { monday: 5, tuesday: 5, wednesday: 5, thursday: 5, friday: 5, saturday: 5, sunday: 5 };
    await app.db('derived_weeks').insert({ user_id: person.id, date: '2026-11-16', attributes: 1, tests: 0, published: 0, averages: 1, duration_ms: 1 });
    await app.db('averages').insert({ user_id: person.id, attribute_id: mood.id, date: '2026-11-16', overall: 5, ...week });
    try {
      expect((await app.get('/api/2/averages/', { bearer: await tokenFor(['mood_read']) })).body.count).toBe(1);
      const writeOnly = await tokenFor(['mood_write', 'manual_write']);
      for (const path of [`/api/2/attributes/?${ALL}`, '/api/2/averages/']) {
        const res = await app.get(path, { bearer: writeOnly });
        expect([path, res.status, res.body.count]).toEqual([path, 200, 0]);
      }
    } finally {
      await app.db('averages').where({ user_id: person.id }).delete();
      await app.db('derived_weeks').where({ user_id: person.id }).delete();
    }
  });

  test('version 1 value reads follow the same rule', async () => {
    const bearer = await tokenFor(['mood_write']);
    const list = await app.get('/api/1/users/$self/attributes/?limit=1', { bearer });
    expect(list.body.map((a: { attribute: string }) => a.attribute)).toEqual(['mood', 'mood_note']);
    const values = await app.get('/api/1/users/$self/attributes/mood/?limit=1', { bearer });
    expect(values.body.results).toEqual([{ date: '2026-11-22', value: 5 }]);
    const today = await app.get('/api/1/users/$self/today/', { bearer });
    expect(today.body.attributes.map((g: { group: string }) => g.group)).toEqual(['mood']);
  });
});

import { startTestApp, type TestApp } from '../../support/app';
import { makeClient, makeSession, makeToken, makeUser } from '../../support/fixtures';
import { addAttributes, addValues } from '../../support/seed';
import { MANUAL_SERVICE } from '../../../src/db/catalogue-services';
import type { User } from '../../../src/domain/identity/users';
import type { OAuthClient } from '../../../src/domain/apps-and-grants/clients';

let app: TestApp;
let alice: User;
let aliceToken: string;
let bob: User;
let carol: User;
let carolToken: string;
let stepCounter: OAuthClient;

// 12:00 UTC is 01:00 on 2026-11-23 in Auckland (UTC+13 in November): Alice's today is the 23rd.
const NOW = new Date('2026-11-22T12:00:00Z');
const TODAY = '2026-11-23';

async function tokenFor(scopes: string[]): Promise<string> {
  return (await makeToken(app, alice, stepCounter, scopes)).access_token;
}

beforeAll(async () => {
  app = await startTestApp();
  app.setNow(NOW);
  const a = await makeUser(app, { username: `Alice_${process.pid}`, timezone: 'Pacific/Auckland' });
  alice = a.user;
  aliceToken = a.simpleToken;
  await app
    .db('users')
    .where({ id: alice.id })
    .update({ first_name: 'Alice', last_name: 'Liddell', bio: 'Counting steps.', url: 'https://alice.example.org/' });
  bob = (await makeUser(app, { username: `bob_${process.pid}`, timezone: 'America/New_York' })).user;
  await app.db('users').where({ id: bob.id }).update({ first_name: 'Bob', imperial_distance: true, imperial_weight: true, imperial_liquid: true });
  const c = await makeUser(app, { username: `carol_${process.pid}` });
  carol = c.user;
  carolToken = c.simpleToken;
  await app.db('users').where({ id: carol.id }).update({ private: true, imperial_distance: true });

  stepCounter = (await makeClient(app, alice, 'Step Counter')).client;
  const manualPk = (await app.db('oauth_clients').where({ client_id: MANUAL_SERVICE.name }).first('id')).id;
  const attrs = await addAttributes(app, alice.id, [
    { name: 'steps', owner: stepCounter.id },
    { name: 'steps_distance', owner: stepCounter.id },
    { name: 'floors', owner: stepCounter.id, active: false },
    { name: 'mood', manual: true, owner: manualPk },
    { name: 'mood_note', owner: manualPk },
    { name: 'sleep' },
    { name: 'sodium' }, // low priority
    { name: 'went_running', template: null, label: 'went running', group: 'custom', value_type: 0, priority: 2, manual: true, owner: manualPk },
  ]);
  const by = Object.fromEntries(attrs.map((x) => [x.name, x]));
  await app.db('attributes').where({ user_id: alice.id, name: 'mood' }).update({ private: true });
  await addValues(app, alice.id, by.steps, { [TODAY]: 4210, '2026-11-22': 9000 });
  await addValues(app, alice.id, by.steps_distance, { [TODAY]: 3.25 });
  await addValues(app, alice.id, by.floors, { [TODAY]: 12 });
  await addValues(app, alice.id, by.mood, { [TODAY]: 7 });
  await addValues(app, alice.id, by.sleep, { '2026-11-22': 452 }); // not today: null
  await addValues(app, alice.id, by.sodium, { [TODAY]: 1500 });
  await addValues(app, alice.id, by.went_running, { [TODAY]: 1 });
  // Bob has data too; nobody else ever sees it.
  const [bobSteps] = await addAttributes(app, bob.id, [{ name: 'steps' }]);
  await addValues(app, bob.id, bobSteps, { '2026-11-22': 12345 });
});
afterAll(async () => {
  app.setNow(undefined);
  await app.close();
});

function aliceUser(attributes: unknown[] = []) {
  return {
    id: alice.id,
    username: alice.username,
    first_name: 'Alice',
    last_name: 'Liddell',
    bio: 'Counting steps.',
    url: 'https://alice.example.org/',
    avatar: '',
    timezone: 'Pacific/Auckland',
    local_time: '2026-11-23T01:00:00+13:00',
    private: false,
    imperial_units: false,
    imperial_distance: false,
    imperial_weight: false,
    imperial_energy: false,
    imperial_liquid: false,
    imperial_temperature: false,
    attributes,
  };
}

function bobUser() {
  return {
    id: bob.id,
    username: bob.username,
    first_name: 'Bob',
    last_name: '',
    bio: '',
    url: '',
    avatar: '',
    timezone: 'America/New_York',
    local_time: '2026-11-22T07:00:00-05:00',
    private: false,
    imperial_units: true,
    imperial_distance: true,
    imperial_weight: true,
    imperial_energy: false,
    imperial_liquid: true,
    imperial_temperature: false,
    attributes: [],
  };
}

describe('GET /api/1/users/:username/profile/', () => {
  test('$self is the caller’s own User object with an empty attributes array', async () => {
    const res = await app.get('/api/1/users/$self/profile/', { token: aliceToken });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(aliceUser());
  });

  test('the caller’s own user name, in any letter case, is the same as $self', async () => {
    for (const name of [alice.username, alice.username.toUpperCase(), alice.username.toLowerCase()]) {
      const res = await app.get(`/api/1/users/${name}/profile/`, { token: aliceToken });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(aliceUser());
    }
  });

  test('$self may be percent-encoded in the path', async () => {
    const res = await app.get('/api/1/users/%24self/profile/', { token: aliceToken });
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(alice.id);
  });

  test('another public user is their public User object, attributes empty', async () => {
    const res = await app.get(`/api/1/users/${bob.username}/profile/`, { token: aliceToken });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(bobUser());
  });

  test('imperial_units is true only when both imperial_distance and imperial_weight are set', async () => {
    const own = await app.get('/api/1/users/$self/profile/', { token: carolToken });
    expect(own.body).toMatchObject({ imperial_distance: true, imperial_weight: false, imperial_units: false });
    const other = await app.get(`/api/1/users/${bob.username}/profile/`, { token: aliceToken });
    expect(other.body).toMatchObject({ imperial_distance: true, imperial_weight: true, imperial_units: true });
  });

  test('another user who is private answers 404 like a user who does not exist', async () => {
    const hidden = await app.get(`/api/1/users/${carol.username}/profile/`, { token: aliceToken });
    const unknown = await app.get('/api/1/users/nobody_at_all/profile/', { token: aliceToken });
    expect(hidden.status).toBe(404);
    expect(unknown.status).toBe(404);
    expect(hidden.body).toEqual(unknown.body);
    expect(hidden.body).toEqual({ detail: 'User not found.' });
  });

  test('a private user still sees their own profile, marked private', async () => {
    const res = await app.get('/api/1/users/$self/profile/', { token: carolToken });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: carol.id, private: true, attributes: [] });
  });

  test('needs no particular scope: an OAuth2 token with one write scope reads it', async () => {
    const res = await app.get('/api/1/users/$self/profile/', { bearer: await tokenFor(['sleep_write']) });
    expect(res.status).toBe(200);
    expect(res.body.username).toBe(alice.username);
  });

  test('without credentials it is 401', async () => {
    const res = await app.get('/api/1/users/$self/profile/');
    expect(res.status).toBe(401);
    expect(res.body.detail).toBe('Authentication credentials were not provided.');
  });
});

describe('GET /api/1/users/:username/today/', () => {
  const ACTIVITY = {
    group: 'activity',
    label: 'Activity',
    priority: 1,
    items: [
      {
        attribute: 'steps',
        label: 'Steps',
        value: 4210,
        service: 'step-counter',
        priority: 1,
        private: false,
        value_type: 0,
        value_type_description: 'Integer',
      },
      {
        attribute: 'steps_distance',
        label: 'Distance',
        value: 3.25,
        service: 'step-counter',
        priority: 3,
        private: false,
        value_type: 1,
        value_type_description: 'Float',
      },
    ],
  };

  test('$self lists every visible active attribute, low-priority ones included, by group with its value on the caller’s local today', async () => {
    const res = await app.get('/api/1/users/$self/today/', { token: aliceToken });
    expect(res.status).toBe(200);
    const { attributes, ...user } = res.body;
    const { attributes: _none, ...expectedUser } = aliceUser();
    expect(user).toEqual(expectedUser);
    // Groups in group priority order, items in attribute priority then name order.
    expect(attributes.map((g: { group: string }) => g.group)).toEqual(['activity', 'mood', 'sleep', 'food', 'custom']);
    const byName = Object.fromEntries(attributes.flatMap((g: { items: Array<{ attribute: string }> }) => g.items.map((i) => [i.attribute, i])));
    // sodium (priority 10) is listed: the person gets all their attributes; floors (inactive) is not.
    expect(Object.keys(byName).sort()).toEqual(['mood', 'mood_note', 'sleep', 'sodium', 'steps', 'steps_distance', 'went_running']);
    expect(byName.sodium).toMatchObject({ value: 1500, priority: 10, service: '' });
    expect(byName.steps).toMatchObject({ value: 4210, service: stepCounter.client_id, private: false, value_type: 0, value_type_description: 'Integer' });
    expect(byName.mood).toMatchObject({ value: 7, service: 'daybook', private: true });
    expect(byName.mood_note).toMatchObject({ value: null, service: 'daybook' });
    expect(byName.went_running).toMatchObject({ label: 'went running', value: 1, service: 'daybook' });
  });

  test('a day with no value yet is null, and an attribute no service owns has an empty service name', async () => {
    const res = await app.get('/api/1/users/$self/today/', { token: aliceToken });
    const sleep = res.body.attributes.find((g: { group: string }) => g.group === 'sleep');
    expect(sleep).toEqual({
      group: 'sleep',
      label: 'Sleep',
      priority: 4,
      items: [
        {
          attribute: 'sleep',
          label: expect.any(String),
          value: null,
          service: '',
          priority: expect.any(Number),
          private: false,
          value_type: 3,
          value_type_description: 'Period (minutes as integer)',
        },
      ],
    });
  });

  test('each group carries its name, label and priority; the activity group in full', async () => {
    const res = await app.get('/api/1/users/$self/today/', { token: aliceToken });
    const activity = res.body.attributes[0];
    expect(activity).toEqual({
      ...ACTIVITY,
      items: ACTIVITY.items.map((item) => ({ ...item, service: stepCounter.client_id })),
    });
  });

  test('only groups the token may read or write are listed (manual attributes with manual_read or manual_write)', async () => {
    const activityOnly = await app.get('/api/1/users/$self/today/', { bearer: await tokenFor(['activity_read']) });
    expect(activityOnly.status).toBe(200);
    expect(activityOnly.body.attributes.map((g: { group: string }) => g.group)).toEqual(['activity']);
    const manualOnly = await app.get('/api/1/users/$self/today/', { bearer: await tokenFor(['manual_read']) });
    const items = manualOnly.body.attributes.flatMap((g: { items: Array<{ attribute: string }> }) => g.items.map((i) => i.attribute));
    expect(items).toEqual(['mood', 'went_running']);
    const sleepWrite = await app.get('/api/1/users/$self/today/', { bearer: await tokenFor(['sleep_write']) });
    expect(sleepWrite.body.attributes.map((g: { group: string }) => g.group)).toEqual(['sleep']);
    const none = await app.get('/api/1/users/$self/today/', { bearer: await tokenFor(['finance_read', 'weather_write']) });
    expect(none.body.attributes).toEqual([]);
  });

  test('a token issued with the v1 scope `read` (or `read+write`) reads every group', async () => {
    const all = await app.get('/api/1/users/$self/today/', { token: aliceToken });
    for (const scope of ['read', 'read+write']) {
      const res = await app.get('/api/1/users/$self/today/', { bearer: await tokenFor([scope]) });
      expect(res.status).toBe(200);
      expect(res.body.attributes).toEqual(all.body.attributes);
    }
  });

  test('a browser session reads it like a simple token', async () => {
    const all = await app.get('/api/1/users/$self/today/', { token: aliceToken });
    const res = await app.get('/api/1/users/$self/today/', { session: await makeSession(app, alice) });
    expect(res.body).toEqual(all.body);
  });

  test('another public user is a stub: their User object with no attributes, never their values', async () => {
    const res = await app.get(`/api/1/users/${bob.username}/today/`, { token: aliceToken });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(bobUser());
    expect(res.text).not.toContain('12345');
  });

  test('another user who is private, or unknown, answers 404', async () => {
    expect((await app.get(`/api/1/users/${carol.username}/today/`, { token: aliceToken })).status).toBe(404);
    expect((await app.get('/api/1/users/nobody_at_all/today/', { token: aliceToken })).status).toBe(404);
  });

  test('the caller’s user name in another case is $self, with every attribute', async () => {
    const self = await app.get('/api/1/users/$self/today/', { token: aliceToken });
    const named = await app.get(`/api/1/users/${alice.username.toUpperCase()}/today/`, { token: aliceToken });
    expect(named.body).toEqual(self.body);
  });

  test('a person with no attributes has an empty list', async () => {
    const res = await app.get('/api/1/users/$self/today/', { token: carolToken });
    expect(res.status).toBe(200);
    expect(res.body.attributes).toEqual([]);
  });
});

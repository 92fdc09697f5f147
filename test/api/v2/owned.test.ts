import { startTestApp, type TestApp } from '../../support/app';
import { makeClient, makeSession, makeToken, makeUser } from '../../support/fixtures';
import { addAttributes, addAvailableService } from '../../support/seed';
import type { User } from '../../../src/domain/identity/users';
import type { OAuthClient } from '../../../src/domain/apps-and-grants/clients';

let app: TestApp;
let person: User;
let simpleToken: string;
let service: OAuthClient;
let other: OAuthClient;

const names = (body: { results: Array<{ name: string }> }) => body.results.map((r) => r.name);

async function tokenFor(scopes: string[], client = service): Promise<string> {
  return (await makeToken(app, person, client, scopes)).access_token;
}

beforeAll(async () => {
  app = await startTestApp();
  const made = await makeUser(app);
  person = made.user;
  simpleToken = made.simpleToken;
  service = (await makeClient(app, person, 'Health Hub')).client;
  other = (await makeClient(app, person, 'Other Service')).client;
  const [steps] = await addAttributes(app, person.id, [
    { name: 'steps', owner: service.id },
    { name: 'floors', owner: service.id, active: false },
    { name: 'active_energy', owner: other.id },
    { name: 'sleep', owner: service.id },
    { name: 'weight', owner: service.id, manual: true },
    { name: 'sodium', owner: service.id },
    { name: 'headache', template: null, group: 'symptoms', value_type: 7, priority: 3, owner: service.id, manual: true },
    { name: 'coffees', owner: null },
  ]);
  await addAvailableService(app, person.id, steps, service.id, new Date('2026-01-01T00:00:00Z'));
  await addAvailableService(app, person.id, steps, other.id, new Date('2026-03-01T00:00:00Z'));
  await makeToken(app, person, other, ['activity_write']);
});
afterAll(async () => {
  await app.close();
});

describe('GET /api/2/attributes/owned/', () => {
  test('lists only what the calling client owns, with available_services, in list order', async () => {
    const token = await tokenFor(['activity_read', 'sleep_read', 'health_read', 'symptoms_read', 'food_read']);
    const res = await app.get('/api/2/attributes/owned/', { bearer: token });
    expect(res.status).toBe(200);
    expect(names(res.body)).toEqual(['steps', 'sleep', 'weight', 'headache']);
    expect(res.body.count).toBe(4);
    expect(res.body.results[0]).toMatchObject({
      name: 'steps',
      service: { name: service.client_id, label: 'Health Hub' },
      available_services: [
        { name: service.client_id, label: 'Health Hub' },
        { name: other.client_id, label: 'Other Service' },
      ],
    });
    const theirs = await app.get('/api/2/attributes/owned/', { bearer: await tokenFor(['activity_read'], other) });
    expect(names(theirs.body)).toEqual(['active_energy']);
  });

  test('a simple token or a session belongs to no client: an empty list, not an error', async () => {
    expect((await app.get('/api/2/attributes/owned/', { token: simpleToken })).body).toEqual({ count: 0, next: null, previous: null, results: [] });
    const session = await makeSession(app, person);
    const res = await app.get('/api/2/attributes/owned/?include_inactive=true', { session });
    expect(res.status).toBe(200);
    expect(res.body.count).toBe(0);
    expect((await app.get('/api/2/attributes/owned/?page=2', { session })).status).toBe(404);
  });

  test('groups the token may write are visible too, without the read scope', async () => {
    const writeOnly = await tokenFor(['activity_write', 'sleep_write']);
    expect(names((await app.get('/api/2/attributes/owned/', { bearer: writeOnly })).body)).toEqual(['steps', 'sleep']);
    // ...but /attributes/ stays limited to read scopes.
    expect((await app.get('/api/2/attributes/', { bearer: writeOnly })).body.count).toBe(0);
  });

  test('manual attributes are visible with manual_read or manual_write, whatever their group', async () => {
    expect(names((await app.get('/api/2/attributes/owned/', { bearer: await tokenFor(['manual_write']) })).body)).toEqual(['weight', 'headache']);
    expect(names((await app.get('/api/2/attributes/owned/', { bearer: await tokenFor(['manual_read']) })).body)).toEqual(['weight', 'headache']);
    expect((await app.get('/api/2/attributes/owned/', { bearer: await tokenFor(['mood_read']) })).body.count).toBe(0);
  });

  test('takes the filters of /attributes/: groups, attributes, exclude_custom, manual, include_inactive, include_low_priority', async () => {
    const token = await tokenFor(['read+write']);
    const get = async (query: string) => names((await app.get(`/api/2/attributes/owned/?${query}`, { bearer: token })).body);
    expect(await get('')).toEqual(['steps', 'sleep', 'weight', 'headache']);
    expect(await get('groups=activity,health')).toEqual(['steps', 'weight']);
    expect(await get('groups=astrology')).toEqual([]);
    expect(await get('attributes=sleep,active_energy,coffees')).toEqual(['sleep']);
    expect(await get('attributes=floors,sodium')).toEqual(['floors', 'sodium']); // named: shown inactive or low-priority
    expect(await get('exclude_custom=true')).toEqual(['steps', 'sleep', 'weight']);
    expect(await get('manual=true')).toEqual(['weight', 'headache']);
    expect(await get('manual=false')).toEqual(['steps', 'sleep']);
    expect(await get('include_inactive=true')).toEqual(['steps', 'floors', 'sleep', 'weight', 'headache']);
    expect(await get('include_low_priority=true')).toEqual(['steps', 'sleep', 'sodium', 'weight', 'headache']);
    expect(await get('include_inactive=1&include_low_priority=1&manual=0&groups=activity,food')).toEqual(['steps', 'floors', 'sodium']);
  });

  test('another person’s attributes owned by the same client never appear', async () => {
    const someoneElse = await makeUser(app);
    await addAttributes(app, someoneElse.user.id, [{ name: 'mood', owner: service.id }]);
    const res = await app.get('/api/2/attributes/owned/?groups=mood', { bearer: await tokenFor(['mood_read']) });
    expect(res.body.count).toBe(0);
  });

  test('pages like every list', async () => {
    const token = await tokenFor(['read']);
    const first = await app.get('/api/2/attributes/owned/?limit=3', { bearer: token });
    expect(names(first.body)).toEqual(['steps', 'sleep', 'weight']);
    expect(Object.fromEntries(new URL(first.body.next).searchParams)).toEqual({ limit: '3', page: '2' });
    const second = await app.get('/api/2/attributes/owned/?limit=3&page=2', { bearer: token });
    expect(names(second.body)).toEqual(['headache']);
    expect(second.body.next).toBeNull();
    expect((await app.get('/api/2/attributes/owned/?limit=3&page=3', { bearer: token })).status).toBe(404);
  });

  test.each(['page=0', 'limit=x', 'manual=maybe', 'include_inactive=2'])('%s is 400', async (query) => {
    const res = await app.get(`/api/2/attributes/owned/?${query}`, { bearer: await tokenFor(['read']) });
    expect(res.status).toBe(400);
    expect(res.body.errors).toHaveLength(1);
  });
});

/** Authentication and version 1 scopes on every v1 endpoint, as for version 2. */
import { startTestApp, type TestApp } from '../../support/app';
import { makeClient, makeSession, makeToken, makeUser } from '../../support/fixtures';
import { addAttributes, addValues } from '../../support/seed';
import type { User } from '../../../src/domain/identity/users';
import type { OAuthClient } from '../../../src/domain/apps-and-grants/clients';

let app: TestApp;
let person: User;
let simpleToken: string;
let client: OAuthClient;

const PATHS = [
  '/api/1/users/$self/profile/',
  '/api/1/users/$self/today/',
  '/api/1/users/$self/attributes/',
  '/api/1/users/$self/attributes/steps/',
  '/api/1/users/$self/insights/',
  '/api/1/users/$self/insights/attribute/steps/',
  '/api/1/users/$self/averages/',
  '/api/1/users/$self/averages/attribute/steps/',
];

beforeAll(async () => {
  app = await startTestApp();
  app.setNow(new Date('2026-11-22T12:00:00Z'));
  const made = await makeUser(app, { timezone: 'UTC' });
  person = made.user;
  simpleToken = made.simpleToken;
  client = (await makeClient(app, person, 'Old Client')).client;
  const attributes = await addAttributes(app, person.id, [{ name: 'steps' }, { name: 'sleep' }, { name: 'mood', manual: true }, { name: 'water' }]);
  for (const attribute of attributes) await addValues(app, person.id, attribute, { '2026-11-22': 5 });
});
afterAll(async () => {
  app.setNow(undefined);
  await app.close();
});

describe('authentication on version 1', () => {
  test.each(PATHS)('%s without credentials is 401 with WWW-Authenticate', async (path) => {
    const res = await app.get(path);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(res.body.detail).toBe('Authentication credentials were not provided.');
  });

  test.each(PATHS)('%s with an unknown bearer token is 401 invalid_token', async (path) => {
    const res = await app.get(path, { bearer: 'not-a-real-token' });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
  });

  test.each(PATHS)('%s answers 200 to a simple token, a session and OAuth2 tokens with `read` or `read+write`', async (path) => {
    const read = (await makeToken(app, person, client, ['read'])).access_token;
    const readWrite = (await makeToken(app, person, client, ['read+write'])).access_token;
    const session = await makeSession(app, person);
    for (const auth of [{ token: simpleToken }, { session }, { bearer: read }, { bearer: readWrite }]) {
      const res = await app.get(path, auth);
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-limit')).toBeTruthy();
    }
  });

  test('a simple token sent as Bearer is 401 and names the right scheme', async () => {
    const res = await app.get('/api/1/users/$self/profile/', { bearer: simpleToken });
    expect(res.status).toBe(401);
    expect(res.body.detail).toMatch(/simple token/);
  });

  test('the v1 scope `read` sees every group, like a simple token; a v2 scope narrows it', async () => {
    const read = (await makeToken(app, person, client, ['read'])).access_token;
    const names = (body: Array<{ attribute: string }>) => body.map((a) => a.attribute);
    const all = await app.get('/api/1/users/$self/attributes/', { token: simpleToken });
    expect(names(all.body)).toEqual(['steps', 'mood', 'sleep', 'water']);
    expect(names((await app.get('/api/1/users/$self/attributes/', { bearer: read })).body)).toEqual(names(all.body));
    const food = (await makeToken(app, person, client, ['food_read'])).access_token;
    expect(names((await app.get('/api/1/users/$self/attributes/', { bearer: food })).body)).toEqual(['water']);
  });

  test('a path without its trailing slash is redirected to the slash path', async () => {
    const res = await app.get('/api/1/users/$self/profile', { token: simpleToken });
    expect(res.status).toBe(301);
    expect(res.headers.get('location')).toMatch(/\/api\/1\/users\/\$self\/profile\/$/);
  });
});

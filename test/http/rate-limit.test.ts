/**
 * The request rate limit: RATE_LIMIT_PER_HOUR per person's connection (person and app for OAuth
 * tokens, person for a simple token or a session), counted in Postgres so that every instance
 * shares the count, with the limit headers on every response and 429 past the limit.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from '../../src/app';
import { startTestApp, type TestApp } from '../support/app';
import { makeClient, makeSession, makeToken, makeUser } from '../support/fixtures';
import { registerApp, tokenRequest } from '../support/web';
import { issueTokens } from '../../src/domain/apps-and-grants/tokens';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ RATE_LIMIT_PER_HOUR: '3' });
});
afterAll(async () => {
  await app.close();
});

async function tokenForNewUser(): Promise<string> {
  const { user } = await makeUser(app);
  const { client } = await makeClient(app, user);
  return (await makeToken(app, user, client, ['mood_read'])).access_token;
}

test('every answer carries the limit headers, counting down to 0, and the next request is 429 with Retry-After', async () => {
  const bearer = await tokenForNewUser();
  for (const remaining of [2, 1, 0]) {
    const res = await app.get('/api/2/accounts/profile/', { bearer });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-ratelimit-limit')).toBe('3');
    expect(res.headers.get('x-ratelimit-remaining')).toBe(String(remaining));
    expect(Number(res.headers.get('x-ratelimit-reset'))).toBeGreaterThan(3500);
    expect(res.headers.get('ratelimit-policy')).toBe('"default";q=3;w=3600');
    expect(res.headers.get('ratelimit')).toMatch(new RegExp(`^"default";r=${remaining};t=\\d+$`));
  }
  const refused = await app.get('/api/2/accounts/profile/', { bearer });
  expect(refused.status).toBe(429);
  expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(3500);
  expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
  expect(refused.body.detail).toMatch(/^Request limit exceeded: 3 requests per hour\. Try again in \d+ seconds\.$/);
});

test('each person has their own count', async () => {
  const first = await tokenForNewUser();
  const second = await tokenForNewUser();
  for (let i = 0; i < 3; i++) await app.get('/api/2/accounts/profile/', { bearer: first });
  expect((await app.get('/api/2/accounts/profile/', { bearer: first })).status).toBe(429);
  expect((await app.get('/api/2/accounts/profile/', { bearer: second })).status).toBe(200);
});

test('a refresh in the middle of the hour continues the count: no new 300 by refreshing', async () => {
  const { user } = await makeUser(app);
  const { client, secret } = await registerApp(app, user, { name: 'Refresher' });
  const first = await issueTokens(app.db, { userId: user.id, clientPk: client.id, scopes: ['mood_read'], now: new Date() });
  expect((await app.get('/api/2/accounts/profile/', { bearer: first.access_token })).status).toBe(200);
  expect((await app.get('/api/2/accounts/profile/', { bearer: first.access_token })).status).toBe(200);
  const refreshed = await tokenRequest(app, {
    grant_type: 'refresh_token',
    refresh_token: first.refresh_token,
    client_id: client.client_id,
    client_secret: secret!,
  });
  expect(refreshed.status).toBe(200);
  const third = await app.get('/api/2/accounts/profile/', { bearer: refreshed.body.access_token });
  expect([third.status, third.headers.get('x-ratelimit-remaining')]).toEqual([200, '0']);
  expect((await app.get('/api/2/accounts/profile/', { bearer: refreshed.body.access_token })).status).toBe(429);
  // A second grant of the same app to the same person continues it too.
  const again = await issueTokens(app.db, { userId: user.id, clientPk: client.id, scopes: ['mood_read'], now: new Date() });
  expect((await app.get('/api/2/accounts/profile/', { bearer: again.access_token })).status).toBe(429);
});

test("another app of the same person has its own count; a simple token and a session share the person's", async () => {
  const { user, simpleToken } = await makeUser(app);
  const { client: one } = await makeClient(app, user, 'One');
  const { client: two } = await makeClient(app, user, 'Two');
  const bearerOne = (await makeToken(app, user, one, ['mood_read'])).access_token;
  const bearerTwo = (await makeToken(app, user, two, ['mood_read'])).access_token;
  for (let i = 0; i < 3; i++) expect((await app.get('/api/2/accounts/profile/', { bearer: bearerOne })).status).toBe(200);
  expect((await app.get('/api/2/accounts/profile/', { bearer: bearerOne })).status).toBe(429);
  expect((await app.get('/api/2/accounts/profile/', { bearer: bearerTwo })).status).toBe(200);
  const session = await makeSession(app, user);
  expect((await app.get('/api/2/accounts/profile/', { token: simpleToken })).status).toBe(200);
  expect((await app.get('/api/2/accounts/profile/', { session })).status).toBe(200);
  const third = await app.get('/api/2/accounts/profile/', { token: simpleToken });
  expect([third.status, third.headers.get('x-ratelimit-remaining')]).toEqual([200, '0']);
  expect((await app.get('/api/2/accounts/profile/', { session })).status).toBe(429);
});

test('two instances on one database share the count', async () => {
  const bearer = await tokenForNewUser();
  const { app: second } = await createApp(app.deps);
  const server = http.createServer(second.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const secondUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const statuses: number[] = [];
    for (const base of [app.baseUrl, secondUrl, app.baseUrl, secondUrl]) {
      const res = await fetch(`${base}/api/2/accounts/profile/`, { headers: { Authorization: `Bearer ${bearer}` } });
      await res.text();
      statuses.push(res.status);
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

test('parallel requests on one token are counted exactly', async () => {
  const bearer = await tokenForNewUser();
  const statuses = await Promise.all(Array.from({ length: 12 }, () => app.get('/api/2/accounts/profile/', { bearer }).then((r) => r.status)));
  expect(statuses.filter((s) => s === 200)).toHaveLength(3);
  expect(statuses.filter((s) => s === 429)).toHaveLength(9);
});

test('requests without credentials are counted per address and still answered 401 within the limit', async () => {
  const other = await startTestApp({ RATE_LIMIT_PER_HOUR: '2' });
  try {
    expect((await other.get('/api/2/accounts/profile/')).status).toBe(401);
    expect((await other.get('/api/2/accounts/profile/')).status).toBe(401);
    expect((await other.get('/api/2/accounts/profile/')).status).toBe(429);
  } finally {
    await other.close();
  }
});

/**
 * Credentials seen recently (docs/request-path.md): an instance remembers whom a token resolved to,
 * but every request rechecks the token's and the person's rows in its one statement, so a change
 * made through another instance (a refresh, a revocation, a reset simple token, a profile edit)
 * holds from the very next request, with no waiting and no notification.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from '../../src/app';
import { sendTestRequest, startTestApp, type TestApp } from '../support/app';
import { makeClient, makeToken, makeUser } from '../support/fixtures';
import { addAttribute, addValues } from '../support/seed';
import { acquire, writer } from '../api/v2/writes/setup';
import { serviceDataDir, startService, stopServices } from '../support/process';
import { basicAuth } from '../support/web';
import { resetSimpleToken } from '../../src/domain/identity/users';

let app: TestApp;
let secondUrl: string;
let second: http.Server;
beforeAll(async () => {
  app = await startTestApp();
  // A second instance of the service on the same database, with its own remembered credentials.
  const { app: koa } = await createApp(app.deps);
  second = http.createServer(koa.callback());
  await new Promise<void>((resolve) => second.listen(0, '127.0.0.1', resolve));
  secondUrl = `http://127.0.0.1:${(second.address() as AddressInfo).port}`;
});
afterAll(async () => {
  second.closeAllConnections();
  await new Promise<void>((resolve) => second.close(() => resolve()));
  await app.close();
});

async function profileStatus(headers: Record<string, string>): Promise<number> {
  return (await app.get('/api/2/accounts/profile/', { headers })).status;
}

test('a token refreshed through another instance is refused at its next request on this one', async () => {
  const { user } = await makeUser(app);
  const { client, secret } = await makeClient(app, user);
  const tokens = await makeToken(app, user, client, ['mood_read']);
  const bearer = { Authorization: `Bearer ${tokens.access_token}` };
  expect([await profileStatus(bearer), await profileStatus(bearer)]).toEqual([200, 200]);

  const refreshed = await sendTestRequest<{ access_token: string }>(secondUrl, 'POST', '/oauth2/access_token', {
    headers: basicAuth(client.client_id, secret!),
    form: { grant_type: 'refresh_token', refresh_token: tokens.refresh_token! },
  });
  expect(refreshed.status).toBe(200);
  const fresh = refreshed.body;

  const old = await app.get('/api/2/accounts/profile/', { headers: bearer });
  expect(old.status).toBe(401);
  expect(old.body.detail).toBe('The access token has been revoked or replaced by a refresh.');
  expect(await profileStatus({ Authorization: `Bearer ${fresh.access_token}` })).toBe(200);
});

test('two service processes on one database: a token refreshed through one is refused by the other at its next request', async () => {
  const dataDir = serviceDataDir('daybook-recent-');
  const other = await startService({ DATABASE_URL: app.deps.config.databaseUrl!, SECRET_KEY: app.deps.secretKey, DATA_DIR: dataDir, WORKERS: '0', DEMO: '0' });
  try {
    const { user } = await makeUser(app);
    const { client, secret } = await makeClient(app, user);
    const tokens = await makeToken(app, user, client, ['mood_read']);
    const onOther = async (accessToken: string) =>
      (await sendTestRequest(`http://127.0.0.1:${other.port}`, 'GET', '/api/2/accounts/profile/', { bearer: accessToken })).status;
    // Remembered by the other process (its first use records the token as used, the second remembers it).
    expect([await onOther(tokens.access_token), await onOther(tokens.access_token), await onOther(tokens.access_token)]).toEqual([200, 200, 200]);
    const refreshed = await app.post('/oauth2/access_token', {
      form: { grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, client_id: client.client_id, client_secret: secret! },
    });
    expect(refreshed.status).toBe(200);
    expect(await onOther(tokens.access_token)).toBe(401);
    expect(await onOther(refreshed.body.access_token as string)).toBe(200);
  } finally {
    await stopServices([other], 'SIGTERM', [dataDir]);
  }
});

test('a token revoked on another instance (the person disconnects the app) is refused at once', async () => {
  const { user } = await makeUser(app);
  const { client } = await makeClient(app, user);
  const bearer = { Authorization: `Bearer ${(await makeToken(app, user, client, ['mood_read'])).access_token}` };
  expect([await profileStatus(bearer), await profileStatus(bearer)]).toEqual([200, 200]);
  await app.db('tokens').where({ user_id: user.id, client_pk: client.id }).update({ revoked_at: new Date() });
  expect(await profileStatus(bearer)).toBe(401);
});

test('a reset simple token is refused at once, and a profile edit shows in the next answer', async () => {
  const { user, simpleToken } = await makeUser(app);
  const token = { Authorization: `Token ${simpleToken}` };
  const before = await app.get('/api/2/accounts/profile/', { headers: token });
  expect(before.body.first_name).not.toBe('Renamed');

  await app.db('users').where({ id: user.id }).update({ first_name: 'Renamed', timezone: 'Asia/Tokyo' });
  const after = await app.get('/api/2/accounts/profile/', { headers: token });
  expect([after.body.first_name, after.body.timezone]).toEqual(['Renamed', 'Asia/Tokyo']);

  const newToken = await resetSimpleToken(app.db, user.id, app.deps.secretKey);
  expect(await profileStatus(token)).toBe(401);
  expect(await profileStatus({ Authorization: `Token ${newToken}` })).toBe(200);
});

test('a token seen before costs one statement of its request, as a new one does, and keeps the exact count', async () => {
  const { user } = await makeUser(app);
  const { client } = await makeClient(app, user);
  const bearer = { Authorization: `Bearer ${(await makeToken(app, user, client, ['mood_read'])).access_token}` };
  // The first use of a token also records it as used (once a minute, tokens.ts): leave that out.
  expect(await profileStatus(bearer)).toBe(200);
  const statements: string[] = [];
  const listen = (query: { sql: string }) => statements.push(query.sql);
  app.db.on('query', listen);
  try {
    const remaining: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      const res = await app.get('/api/2/accounts/profile/', { headers: bearer });
      remaining.push(res.headers.get('x-ratelimit-remaining') ?? '');
    }
    expect(statements).toHaveLength(3);
    const limit = Number((await app.get('/api/2/accounts/profile/', { headers: bearer })).headers.get('x-ratelimit-limit'));
    expect(remaining).toEqual([limit - 2, limit - 3, limit - 4].map(String));
  } finally {
    app.db.off('query', listen);
  }
});

test('a simple token remembered as one is still refused when sent as Bearer', async () => {
  const { simpleToken } = await makeUser(app);
  expect([await profileStatus({ Authorization: `Token ${simpleToken}` }), await profileStatus({ Authorization: `Token ${simpleToken}` })]).toEqual([200, 200]);
  const res = await app.get('/api/2/accounts/profile/', { headers: { Authorization: `Bearer ${simpleToken}` } });
  expect(res.status).toBe(401);
  expect(res.body.detail).toMatch(/simple token/);
});

describe('reads that recheck the credentials in their own statement', () => {
  const list = (bearer: string) => app.get('/api/2/attributes/values/?attribute=steps', { bearer });

  async function reader(limit?: number): Promise<{ bearer: string; userId: number }> {
    const { user } = await makeUser(app);
    const { client } = await makeClient(app, user);
    const bearer = (await makeToken(app, user, client, ['activity_read', 'activity_write'])).access_token;
    await addValues(app, user.id, await addAttribute(app, user.id, { name: 'steps' }), { '2026-01-02': 4000 });
    if (limit !== undefined)
      await app.db('rate_limits').insert({ key: `api:person:${user.id}:app:${client.id}`, points: limit, expire: Date.now() + 3_600_000 });
    return { bearer, userId: user.id };
  }

  test('one statement per request, the data as without the check', async () => {
    const { bearer } = await reader();
    // The first use records the token as used (a write: not remembered); the second remembers it.
    expect([(await list(bearer)).status, (await list(bearer)).status]).toEqual([200, 200]);
    const statements: string[] = [];
    const listen = (query: { sql: string }) => statements.push(query.sql);
    app.db.on('query', listen);
    try {
      const res = await list(bearer);
      expect(res.status).toBe(200);
      expect(res.body.results).toEqual([{ date: '2026-01-02', value: 4000 }]);
      expect(statements).toHaveLength(1);
    } finally {
      app.db.off('query', listen);
    }
  });

  test('a person whose row changed (a profile edit) still gets the data, read again with the new row', async () => {
    const { bearer, userId } = await reader();
    expect((await list(bearer)).status).toBe(200);
    await app.db('users').where({ id: userId }).update({ first_name: 'Edited' });
    const res = await list(bearer);
    expect(res.status).toBe(200);
    expect(res.body.results).toEqual([{ date: '2026-01-02', value: 4000 }]);
    expect((await app.get('/api/2/accounts/profile/', { bearer })).body.first_name).toBe('Edited');
  });

  test('a revoked token gets 401 and no data', async () => {
    const { bearer, userId } = await reader();
    expect((await list(bearer)).status).toBe(200);
    await app.db('tokens').where({ user_id: userId }).update({ revoked_at: new Date() });
    const res = await list(bearer);
    expect(res.status).toBe(401);
    expect(res.body.results).toBeUndefined();
  });

  test('past the limit the read is 429, counted exactly under parallel requests', async () => {
    const limit = Number((await app.get('/api/2/accounts/profile/', { bearer: (await reader()).bearer })).headers.get('x-ratelimit-limit'));
    const { bearer } = await reader(limit - 12);
    const statuses = await Promise.all(Array.from({ length: 20 }, () => list(bearer).then((r) => r.status)));
    expect(statuses.filter((s) => s === 200)).toHaveLength(12);
    expect(statuses.filter((s) => s === 429)).toHaveLength(8);
    const refused = await list(bearer);
    expect([refused.status, refused.body.results, refused.headers.get('retry-after') !== null]).toEqual([429, undefined, true]);
  });

  test('an invalid read is still refused with 429 past the limit, and with its 400 within it', async () => {
    const { bearer } = await reader();
    expect((await list(bearer)).status).toBe(200);
    expect((await app.get('/api/2/attributes/values/?attribute=steps&limit=0', { bearer })).status).toBe(400);
  });
});

describe('value writes that recheck the credentials in their own statement', () => {
  /** A service with steps and mood, its token remembered (two batches: the first records its use). */
  async function service(): Promise<{ bearer: string; userId: number; clientPk: number }> {
    const w = await writer(app);
    await acquire(app, w.a, ['steps', 'mood']);
    for (const value of [1, 2]) await app.post('/api/2/attributes/update/', { bearer: w.a, json: [{ name: 'steps', date: '2026-02-01', value }] });
    return { bearer: w.a, userId: w.user.id, clientPk: w.clientA.id };
  }
  const stored = async (userId: number, name: string) =>
    (
      await app
        .db('attribute_values as v')
        .join('attributes as a', 'a.id', 'v.attribute_id')
        .where({ 'v.user_id': userId, 'a.name': name, 'v.date': '2026-02-01' })
        .first('v.value_num')
    )?.value_num;
  const increment = (bearer: string, name: string, value: number) =>
    app.post('/api/2/attributes/increment/', { bearer, json: [{ name, date: '2026-02-01', value }] });

  test('an increment after the person edited their profile is applied once, by the statement run again', async () => {
    const { bearer, userId } = await service();
    await app.db('users').where({ id: userId }).update({ last_name: 'Edited' });
    const res = await increment(bearer, 'steps', 10);
    expect([res.status, res.body.success[0].current]).toEqual([200, 12]);
    expect(await stored(userId, 'steps')).toBe(12);
  });

  test('a revoked token writes nothing, on the one-statement path and on the locked path', async () => {
    const { bearer, userId } = await service();
    await app.db('tokens').where({ user_id: userId }).update({ revoked_at: new Date() });
    expect((await increment(bearer, 'steps', 10)).status).toBe(401);
    expect((await increment(bearer, 'mood', 1)).status).toBe(401); // mood has a range: the locked path
    expect(await stored(userId, 'steps')).toBe(2);
    expect(await stored(userId, 'mood')).toBeUndefined();
  });

  test('past the limit a write is 429 and writes nothing, on either path', async () => {
    const { bearer, userId, clientPk } = await service();
    const limit = Number((await app.get('/api/2/accounts/profile/', { bearer })).headers.get('x-ratelimit-limit'));
    await app
      .db('rate_limits')
      .where({ key: `api:person:${userId}:app:${clientPk}` })
      .update({ points: limit });
    const plain = await increment(bearer, 'steps', 10);
    const locked = await increment(bearer, 'mood', 5);
    expect([plain.status, locked.status]).toEqual([429, 429]);
    expect([plain.body.success, locked.headers.get('retry-after') !== null]).toEqual([undefined, true]);
    expect(await stored(userId, 'steps')).toBe(2);
    expect(await stored(userId, 'mood')).toBeUndefined();
  });
});

describe('a write whose one statement fails and falls back to the locked path', () => {
  /**
   * A service's token, remembered, with `weight` (no range) read into the instance's attribute
   * memory, and `date` holding 1e308: an increment of 1e308 there is sent as the one statement,
   * whose float total overflows, so it is rolled back and the batch runs again on the locked path.
   */
  async function remembered(date: string): Promise<{ bearer: string; userId: number; clientPk: number }> {
    const w = await writer(app, ['health_read', 'health_write']);
    await acquire(app, w.a, ['weight']);
    for (const value of [1, 1e308]) {
      expect((await app.post('/api/2/attributes/update/', { bearer: w.a, json: [{ name: 'weight', date, value }] })).status).toBe(200);
    }
    return { bearer: w.a, userId: w.user.id, clientPk: w.clientA.id };
  }
  /** An increment of 1e308 on `date`, and of 5 on the day before (which has no value yet). */
  const overflowing = (bearer: string, date: string) =>
    app.post('/api/2/attributes/increment/', {
      bearer,
      json: [
        { name: 'weight', date, value: 1e308 },
        { name: 'weight', date: dayBefore(date), value: 5 },
      ],
    });
  const dayBefore = (date: string) => new Date(Date.parse(date) - 86_400_000).toISOString().slice(0, 10);
  const stored = async (userId: number, date: string) => (await app.db('attribute_values').where({ user_id: userId, date }).first('value_num'))?.value_num;

  test('the overflowing item fails alone, the other is applied once, and the request is counted once', async () => {
    const { bearer, userId } = await remembered('2026-03-01');
    const remaining = async () => Number((await app.get('/api/2/accounts/profile/', { bearer })).headers.get('x-ratelimit-remaining'));
    const before = await remaining();
    const res = await overflowing(bearer, '2026-03-01');
    expect([res.status, res.body.success.map((s: { current: number }) => s.current), res.body.failed.length]).toEqual([202, [5], 1]);
    expect([await stored(userId, '2026-03-01'), await stored(userId, '2026-02-28')]).toEqual([1e308, 5]);
    expect(Number(res.headers.get('x-ratelimit-remaining'))).toBe(before - 1);
    expect(await remaining()).toBe(before - 2);
  });

  test('a revoked token is refused and writes nothing', async () => {
    const { bearer, userId } = await remembered('2026-03-02');
    await app.db('tokens').where({ user_id: userId }).update({ revoked_at: new Date() });
    expect((await overflowing(bearer, '2026-03-02')).status).toBe(401);
    expect([await stored(userId, '2026-03-02'), await stored(userId, '2026-03-01')]).toEqual([1e308, undefined]);
  });

  test('past the limit it is refused with 429 and writes nothing', async () => {
    const { bearer, userId, clientPk } = await remembered('2026-03-03');
    const limit = Number((await app.get('/api/2/accounts/profile/', { bearer })).headers.get('x-ratelimit-limit'));
    await app
      .db('rate_limits')
      .where({ key: `api:person:${userId}:app:${clientPk}` })
      .update({ points: limit });
    const res = await overflowing(bearer, '2026-03-03');
    expect([res.status, res.headers.get('retry-after') !== null]).toEqual([429, true]);
    expect([await stored(userId, '2026-03-03'), await stored(userId, '2026-03-02')]).toEqual([1e308, undefined]);
  });
});

import { startTestApp, type TestApp } from '../../support/app';
import { makeClient, makeSession, makeToken, makeUser } from '../../support/fixtures';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
// A test that moves the clock gets the file's clock back, even when one of its assertions fails.
afterEach(() => {
  app.setNow(undefined);
});
afterAll(async () => {
  app.setNow(undefined);
  await app.close();
});

describe('GET /api/2/accounts/profile/', () => {
  test('answers the Profile object for an OAuth token with no particular scope', async () => {
    const { user } = await makeUser(app, { timezone: 'Europe/London' });
    const { client } = await makeClient(app, user);
    const token = await makeToken(app, user, client, ['mood_read']);
    const res = await app.get('/api/2/accounts/profile/', { bearer: token.access_token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      username: user.username,
      first_name: '',
      last_name: '',
      avatar: '',
      timezone: 'Europe/London',
      local_time: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[+-]\d{2}:\d{2}$/),
      imperial_distance: false,
      imperial_weight: false,
      imperial_energy: false,
      imperial_liquid: false,
      imperial_temperature: false,
      trial: false,
      delinquent: false,
    });
  });

  test('computes local_time in the user timezone with its UTC offset, on both sides of the date line', async () => {
    app.setNow(new Date('2026-11-22T11:30:00Z'));
    const east = await makeUser(app, { timezone: 'Pacific/Kiritimati' }); // UTC+14
    const west = await makeUser(app, { timezone: 'Pacific/Niue' }); // UTC-11
    const eastRes = await app.get('/api/2/accounts/profile/', { token: east.simpleToken });
    const westRes = await app.get('/api/2/accounts/profile/', { token: west.simpleToken });
    expect(eastRes.body.local_time).toBe('2026-11-23T01:30:00+14:00');
    expect(westRes.body.local_time).toBe('2026-11-22T00:30:00-11:00');
    app.setNow(undefined);
  });

  test('works with a simple token and with a browser session', async () => {
    const { user, simpleToken } = await makeUser(app);
    const session = await makeSession(app, user);
    expect((await app.get('/api/2/accounts/profile/', { token: simpleToken })).body.username).toBe(user.username);
    expect((await app.get('/api/2/accounts/profile/', { session })).body.username).toBe(user.username);
  });

  test('each token sees only its own user', async () => {
    const a = await makeUser(app);
    const b = await makeUser(app);
    expect((await app.get('/api/2/accounts/profile/', { token: a.simpleToken })).body.username).toBe(a.user.username);
    expect((await app.get('/api/2/accounts/profile/', { token: b.simpleToken })).body.username).toBe(b.user.username);
  });
});

describe('credentials', () => {
  test('no credentials is 401 with a Bearer challenge', async () => {
    const res = await app.get('/api/2/accounts/profile/');
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer realm="daybook"/);
    expect(res.body.detail).toBe('Authentication credentials were not provided.');
  });

  test('an unknown Bearer token is 401 invalid_token', async () => {
    const res = await app.get('/api/2/accounts/profile/', { bearer: 'x'.repeat(43) });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });

  test('a simple token sent as Bearer is 401 and the detail says to use Token', async () => {
    const { simpleToken } = await makeUser(app);
    const res = await app.get('/api/2/accounts/profile/', { bearer: simpleToken });
    expect(res.status).toBe(401);
    expect(res.body.detail).toMatch(/Token <token>/);
  });

  test('an OAuth token sent as Token is 401 and the detail says to use Bearer', async () => {
    const { user } = await makeUser(app);
    const { client } = await makeClient(app, user);
    const token = await makeToken(app, user, client, ['activity_read']);
    const res = await app.get('/api/2/accounts/profile/', { token: token.access_token });
    expect(res.status).toBe(401);
    expect(res.body.detail).toMatch(/Bearer <token>/);
  });

  test('an access token is refused once 365 days have passed', async () => {
    const { user } = await makeUser(app);
    const { client } = await makeClient(app, user);
    const issued = new Date('2026-01-01T00:00:00Z');
    const token = await makeToken(app, user, client, ['activity_read'], issued);
    app.setNow(new Date('2026-12-31T23:59:59Z'));
    expect((await app.get('/api/2/accounts/profile/', { bearer: token.access_token })).status).toBe(200);
    app.setNow(new Date('2027-01-01T00:00:00Z'));
    const res = await app.get('/api/2/accounts/profile/', { bearer: token.access_token });
    expect(res.status).toBe(401);
    expect(res.body.detail).toMatch(/expired/);
    app.setNow(undefined);
  });

  test('a revoked access token is 401', async () => {
    const { user } = await makeUser(app);
    const { client } = await makeClient(app, user);
    const token = await makeToken(app, user, client, ['activity_read']);
    await app.db('tokens').where({ user_id: user.id }).update({ revoked_at: new Date() });
    const res = await app.get('/api/2/accounts/profile/', { bearer: token.access_token });
    expect(res.status).toBe(401);
    expect(res.body.detail).toMatch(/revoked/);
  });

  test('an unknown scheme is 401', async () => {
    const res = await app.get('/api/2/accounts/profile/', { headers: { Authorization: 'Basic dXNlcjpwYXNz' } });
    expect(res.status).toBe(401);
    expect(res.body.detail).toMatch(/Unsupported authorization scheme/);
  });

  test('tokens and passwords are stored only as hashes', async () => {
    const { user, simpleToken, password } = await makeUser(app);
    const { client, secret } = await makeClient(app, user);
    const token = await makeToken(app, user, client, ['activity_read']);
    const dump = JSON.stringify([
      await app.db('users').where({ id: user.id }),
      await app.db('oauth_clients').where({ id: client.id }),
      await app.db('tokens').where({ user_id: user.id }),
    ]);
    for (const secretValue of [simpleToken, password, secret!, token.access_token, token.refresh_token]) {
      expect(dump).not.toContain(secretValue);
    }
  });
});

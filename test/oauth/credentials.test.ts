/**
 * Rule 10 (credentials: at least 128 bits, stored only as hashes, never logged) and rule 11
 * (Bearer tokens carry their scopes; revoked, expired and rotated-away tokens are 401 invalid_token).
 */
import { startTestApp, type TestApp } from '../support/app';
import { makeUser } from '../support/fixtures';
import { PAGE, REDIRECT_URI, anonymousForm, authorizePath, csrfOf, locationQuery, logIn, pkcePair, registerApp, setCookie, tokenRequest } from '../support/web';
import { disconnectApp } from '../../src/domain/apps-and-grants/connected-apps';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({}, { captureLogs: true });
});
// A test that moves the clock gets the file's clock back, even when one of its assertions fails.
afterEach(() => {
  app.setNow(undefined);
});
afterAll(async () => {
  app.setNow(undefined);
  await app.close();
});

/** Everything a person and an app hold after a full flow, obtained over HTTP. */
async function fullFlow(scope = 'mood_read') {
  const { user, password, simpleToken } = await makeUser(app);
  const { client, secret } = await registerApp(app, user);
  const login = await logIn(app, user.username, password);
  const session = setCookie(login, 'daybook_session')!;
  const { verifier, challenge } = pkcePair();
  const params = {
    response_type: 'code',
    client_id: client.client_id,
    redirect_uri: REDIRECT_URI,
    scope,
    state: 'state-1',
    code_challenge: challenge,
    code_challenge_method: 'S256',
  };
  const consent = await app.get(authorizePath(params), { session });
  const allowed = await app.post('/oauth2/authorize', { session, form: { ...params, csrf_token: csrfOf(consent.text), decision: 'allow' } });
  const code = locationQuery(allowed).get('code')!;
  const tokens = (
    await tokenRequest(app, {
      grant_type: 'authorization_code',
      code,
      client_id: client.client_id,
      client_secret: secret!,
      redirect_uri: REDIRECT_URI,
      code_verifier: verifier,
    })
  ).body;
  const refreshed = (
    await tokenRequest(app, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: client.client_id, client_secret: secret! })
  ).body;
  const fetched = (await app.post('/api/1/auth/simple-token/', { form: { username: user.username, password } })).body.token as string;
  await app.get('/api/2/accounts/profile/', { bearer: refreshed.access_token });
  return { user, client, password, secret: secret!, session, code, verifier, tokens, refreshed, simpleToken: fetched, originalSimpleToken: simpleToken };
}

async function dumpDatabase(): Promise<string> {
  const tables = ['users', 'oauth_clients', 'authorisation_codes', 'tokens', 'sessions', 'rate_limits'];
  const rows = await Promise.all(tables.map((table) => app.db(table).select('*')));
  return JSON.stringify(rows);
}

describe('credentials at rest and in logs (rule 10)', () => {
  test('a database dump holds no usable password, token, code, client secret or session id', async () => {
    const flow = await fullFlow();
    const dump = await dumpDatabase();
    const secrets = [
      flow.password,
      flow.secret,
      flow.session,
      flow.code,
      flow.tokens.access_token,
      flow.tokens.refresh_token,
      flow.refreshed.access_token,
      flow.refreshed.refresh_token,
      flow.simpleToken,
    ];
    for (const secret of secrets) expect(dump).not.toContain(secret);
  });

  test('every credential has at least 128 bits of randomness (43 base64url characters = 256 bits)', async () => {
    const flow = await fullFlow();
    for (const credential of [flow.secret, flow.session, flow.code, flow.tokens.access_token, flow.tokens.refresh_token, flow.simpleToken]) {
      expect(credential).toMatch(/^[A-Za-z0-9_-]{43,}$/);
    }
    // and they are all different
    expect(new Set([flow.secret, flow.session, flow.code, flow.tokens.access_token, flow.tokens.refresh_token, flow.simpleToken]).size).toBe(6);
    const { csrf } = await anonymousForm(app, '/login');
    expect(csrf.split('.')[1]).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  test('tokens, codes, secrets and passwords never appear in the logs', async () => {
    app.logs.length = 0;
    const flow = await fullFlow();
    // failures are logged too; make some
    await tokenRequest(app, {
      grant_type: 'authorization_code',
      code: flow.code,
      client_id: flow.client.client_id,
      client_secret: flow.secret,
      redirect_uri: REDIRECT_URI,
    });
    await app.get('/api/2/accounts/profile/', { bearer: flow.tokens.access_token });
    await app.get('/settings/profile', { ...PAGE, session: flow.session });
    const logs = app.logs.join('\n');
    expect(logs.length).toBeGreaterThan(0);
    expect(logs).toContain('/oauth2/access_token');
    for (const secret of [
      flow.password,
      flow.secret,
      flow.session,
      flow.code,
      flow.verifier,
      flow.tokens.access_token,
      flow.tokens.refresh_token,
      flow.refreshed.access_token,
      flow.simpleToken,
    ]) {
      expect(logs).not.toContain(secret);
    }
    expect(logs).not.toContain('state-1');
  });
});

describe('using tokens (rule 11)', () => {
  test('a Bearer token carries its scopes into API requests: only the groups it may read are visible', async () => {
    const flow = await fullFlow('mood_read');
    await app.db('attributes').insert([
      { user_id: flow.user.id, name: 'mood', label: 'Mood', template_name: 'mood', group_name: 'mood', value_type: 0, priority: 1 },
      { user_id: flow.user.id, name: 'sleep', label: 'Sleep', template_name: 'sleep', group_name: 'sleep', value_type: 3, priority: 1 },
    ]);
    const res = await app.get('/api/2/attributes/', { bearer: flow.refreshed.access_token });
    expect(res.status).toBe(200);
    expect(res.body.results.map((a: { name: string }) => a.name)).toEqual(['mood']);
  });

  test('a revoked token is 401 with WWW-Authenticate: Bearer error="invalid_token"', async () => {
    const flow = await fullFlow();
    await disconnectApp(app.db, flow.user.id, flow.client.client_id, new Date());
    const res = await app.get('/api/2/accounts/profile/', { bearer: flow.refreshed.access_token });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer .*error="invalid_token"/);
  });

  test('a rotated-away token (replaced by a refresh) is 401 with error="invalid_token"', async () => {
    const flow = await fullFlow();
    const res = await app.get('/api/2/accounts/profile/', { bearer: flow.tokens.access_token });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer .*error="invalid_token"/);
  });

  test('an expired token (365 days) is 401 with error="invalid_token"', async () => {
    const flow = await fullFlow();
    app.setNow(new Date(Date.now() + 366 * 24 * 60 * 60 * 1000));
    const res = await app.get('/api/2/accounts/profile/', { bearer: flow.refreshed.access_token });
    app.setNow(undefined);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer .*error="invalid_token"/);
  });
});

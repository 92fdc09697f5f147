/** Rule 6 (the authorisation endpoint) and rule 7 (PKCE at the authorisation request). */
import { startTestApp, type TestApp } from '../support/app';
import { makeSession, makeUser } from '../support/fixtures';
import {
  PAGE,
  REDIRECT_URI,
  authorizeCode,
  authorizePath,
  csrfOf,
  decide,
  locationQuery,
  pkcePair,
  registerApp,
  setCookie,
  tokenRequest,
} from '../support/web';
import { authenticateAccessToken } from '../../src/domain/apps-and-grants/tokens';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

async function setUp(options: { confidential?: boolean; scopes?: string[]; redirectUris?: string[] } = {}) {
  const { user, password } = await makeUser(app);
  const session = await makeSession(app, user);
  const { client, secret } = await registerApp(app, user, options);
  const base = { response_type: 'code', client_id: client.client_id, redirect_uri: REDIRECT_URI, scope: 'activity_read' };
  return { user, password, session, client, secret, base };
}

function expectErrorRedirect(res: { status: number; headers: Headers }, error: string, state?: string): URLSearchParams {
  expect(res.status).toBe(303);
  const location = res.headers.get('location')!;
  expect(location.startsWith(`${REDIRECT_URI}?`)).toBe(true);
  const query = locationQuery(res as never);
  expect(query.get('error')).toBe(error);
  expect(query.get('error_description')).toBeTruthy();
  expect(query.get('state')).toBe(state ?? null);
  expect(query.get('code')).toBeNull();
  return query;
}

describe('GET /oauth2/authorize', () => {
  test('asks a logged-out person to log in (303 to /login with the way back), then shows the consent page', async () => {
    const { user, password, base } = await setUp();
    const path = authorizePath({ ...base, state: 's1' });
    const res = await app.get(path);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`/login?next=${encodeURIComponent(path)}`);

    const { cookies, csrf } = await (async () => {
      const page = await app.get(res.headers.get('location')!, PAGE);
      expect(page.text).toContain(`name="next" value="${path.replace(/&/g, '&amp;')}"`);
      return { cookies: { daybook_csrf: setCookie(page, 'daybook_csrf')! }, csrf: csrfOf(page.text) };
    })();
    const login = await app.post('/login', { ...PAGE, cookies, form: { username: user.username, password, csrf_token: csrf, next: path } });
    expect(login.status).toBe(303);
    expect(login.headers.get('location')).toBe(path);
    const session = setCookie(login, 'daybook_session')!;
    const consent = await app.get(path, { session });
    expect(consent.status).toBe(200);
  });

  test('the consent page lists the app and each scope in plain words, cannot be framed and is not cached', async () => {
    const { session, base } = await setUp();
    const res = await app.get(authorizePath({ ...base, scope: 'activity_read sleep_write manual_read' }), { session });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.text).toContain('Allow Step Counter to use your Daybook data?');
    expect(res.text).toContain('Read your activity data');
    expect(res.text).toContain('Add, own and change your sleep data');
    expect(res.text).toContain('Read the attributes you track by hand');
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.text).toMatch(/<button type="submit" name="decision" value="allow">Allow<\/button>/);
  });

  test('the app name and description are escaped on the consent page', async () => {
    const { user } = await makeUser(app);
    const session = await makeSession(app, user);
    const { client } = await registerApp(app, user, { name: '<script>alert(1)</script>' });
    const res = await app.get(authorizePath({ response_type: 'code', client_id: client.client_id, redirect_uri: REDIRECT_URI, scope: 'mood_read' }), {
      session,
    });
    expect(res.text).not.toContain('<script>alert(1)</script>');
    expect(res.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });

  test('Allow redirects (303) to redirect_uri with code and the state exactly as sent', async () => {
    const { session, base } = await setUp();
    const state = 'a b+c/=&ü%20?#';
    const res = await decide(app, session, { ...base, state }, 'allow');
    expect(res.status).toBe(303);
    const query = locationQuery(res);
    expect(query.get('code')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(query.get('state')).toBe(state);
  });

  test('Allow without state sends no state back', async () => {
    const { session, base } = await setUp();
    const res = await decide(app, session, base, 'allow');
    expect(locationQuery(res).has('state')).toBe(false);
  });

  test("the redirect_uri's own query parameters are kept", async () => {
    const withQuery = 'https://client.example.org/callback?from=daybook';
    const { session, base } = await setUp({ redirectUris: [withQuery] });
    const res = await decide(app, session, { ...base, redirect_uri: withQuery, state: 'k' }, 'allow');
    const query = locationQuery(res);
    expect(query.get('from')).toBe('daybook');
    expect(query.get('code')).toBeTruthy();
  });

  test('Deny redirects (303) with error=access_denied and the state', async () => {
    const { session, base } = await setUp();
    const res = await decide(app, session, { ...base, state: 'st-9' }, 'deny');
    expectErrorRedirect(res, 'access_denied', 'st-9');
  });

  test('an unknown client shows an error page (400) and never redirects', async () => {
    const { session, base } = await setUp();
    const res = await app.get(authorizePath({ ...base, client_id: 'no-such-client' }), { session });
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(res.text).toContain('There is no application with the client ID no-such-client');
  });

  test('a missing client_id shows an error page (400)', async () => {
    const { session, base } = await setUp();
    const res = await app.get(authorizePath({ ...base, client_id: undefined }), { session });
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
  });

  test.each([
    ['an unregistered host', 'https://evil.example.net/callback'],
    ['a trailing slash added', `${REDIRECT_URI}/`],
    ['an extra query', `${REDIRECT_URI}?x=1`],
    ['another letter case', REDIRECT_URI.toUpperCase()],
    ['plain http', REDIRECT_URI.replace('https:', 'http:')],
  ])('a redirect_uri that is not registered exactly (%s) shows an error page and never redirects', async (_name, uri) => {
    const { session, base } = await setUp();
    const res = await app.get(authorizePath({ ...base, redirect_uri: uri }), { session });
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
  });

  test('a missing redirect_uri shows an error page and never redirects', async () => {
    const { session, base } = await setUp();
    const res = await app.get(authorizePath({ ...base, redirect_uri: undefined }), { session });
    expect(res.status).toBe(400);
  });

  test('a repeated client_id or redirect_uri shows an error page', async () => {
    const { session, base, client } = await setUp();
    const twiceClient = await app.get(
      authorizePath([
        ['response_type', 'code'],
        ['client_id', client.client_id],
        ['client_id', client.client_id],
        ['redirect_uri', REDIRECT_URI],
        ['scope', 'mood_read'],
      ]),
      { session },
    );
    expect(twiceClient.status).toBe(400);
    const twiceRedirect = await app.get(authorizePath([...Object.entries(base), ['redirect_uri', REDIRECT_URI]] as Array<[string, string]>), { session });
    expect(twiceRedirect.status).toBe(400);
    expect(twiceRedirect.headers.get('location')).toBeNull();
  });

  test('an unknown scope redirects with invalid_scope, error_description and state', async () => {
    const { session, base } = await setUp();
    const res = await app.get(authorizePath({ ...base, scope: 'activity_read steps_read', state: 'q' }), { session });
    const query = expectErrorRedirect(res, 'invalid_scope', 'q');
    expect(query.get('error_description')).toContain('steps_read');
  });

  test('a missing or empty scope redirects with invalid_scope', async () => {
    const { session, base } = await setUp();
    expectErrorRedirect(await app.get(authorizePath({ ...base, scope: undefined, state: 'q' }), { session }), 'invalid_scope', 'q');
    expectErrorRedirect(await app.get(authorizePath({ ...base, scope: ' ', state: 'q' }), { session }), 'invalid_scope', 'q');
  });

  test('a scope the app is not registered for redirects with invalid_scope', async () => {
    const { session, base } = await setUp({ scopes: ['activity_read'] });
    expectErrorRedirect(await app.get(authorizePath({ ...base, scope: 'activity_write' }), { session }), 'invalid_scope');
  });

  test('response_type other than code redirects with unsupported_response_type; a missing one with invalid_request', async () => {
    const { session, base } = await setUp();
    expectErrorRedirect(await app.get(authorizePath({ ...base, response_type: 'token', state: 'z' }), { session }), 'unsupported_response_type', 'z');
    expectErrorRedirect(await app.get(authorizePath({ ...base, response_type: undefined, state: 'z' }), { session }), 'invalid_request', 'z');
  });

  test('a repeated parameter redirects with invalid_request', async () => {
    const { session, base } = await setUp();
    const res = await app.get(authorizePath([...Object.entries(base), ['scope', 'mood_read'], ['state', 'once']] as Array<[string, string]>), { session });
    expectErrorRedirect(res, 'invalid_request', 'once');
    expect(locationQuery(res).get('error_description')).toContain('scope');
  });

  test('errors are redirected even before the person logs in', async () => {
    const { base } = await setUp();
    expectErrorRedirect(await app.get(authorizePath({ ...base, scope: 'nope' })), 'invalid_scope');
  });

  test.each([
    ['plus-separated', 'activity_read+sleep_read', 'activity_read sleep_read'],
    ['space-separated', 'activity_read sleep_read', 'activity_read sleep_read'],
    ["version 1's read", 'read', 'read'],
    ["version 1's read+write (arrives as read write)", 'read+write', 'read write'],
  ])('scope may be %s', async (_name, scope, granted) => {
    const { session, client, secret, base } = await setUp();
    // authorizePath encodes '+' as %2B; send the raw query as a client would write it.
    const page = await app.get(
      `/oauth2/authorize?response_type=code&client_id=${client.client_id}&redirect_uri=${encodeURIComponent(REDIRECT_URI)}&scope=${scope}`,
      { session },
    );
    expect(page.status).toBe(200);
    const code = await authorizeCode(app, session, { ...base, scope: scope.replace(/\+/g, ' ') });
    const res = await tokenRequest(app, {
      grant_type: 'authorization_code',
      code,
      client_id: client.client_id,
      client_secret: secret!,
      redirect_uri: REDIRECT_URI,
    });
    expect(res.body.scope).toBe(granted);
  });

  test('a read+write token carries every read and write scope into API requests', async () => {
    const { session, client, secret, base } = await setUp();
    const code = await authorizeCode(app, session, { ...base, scope: 'read write' });
    const res = await tokenRequest(app, {
      grant_type: 'authorization_code',
      code,
      client_id: client.client_id,
      client_secret: secret!,
      redirect_uri: REDIRECT_URI,
    });
    const check = await authenticateAccessToken(app.db, res.body.access_token, new Date());
    expect('principal' in check && check.principal.scopes.has('sleep_write') && check.principal.scopes.has('mood_read')).toBe(true);
  });
});

describe('PKCE at the authorisation request (rule 7)', () => {
  test('S256 is accepted', async () => {
    const { session, base } = await setUp();
    const res = await app.get(authorizePath({ ...base, code_challenge: pkcePair().challenge, code_challenge_method: 'S256' }), { session });
    expect(res.status).toBe(200);
  });

  test('plain is refused with invalid_request', async () => {
    const { session, base } = await setUp();
    expectErrorRedirect(
      await app.get(authorizePath({ ...base, code_challenge: pkcePair().verifier, code_challenge_method: 'plain', state: 'p' }), { session }),
      'invalid_request',
      'p',
    );
  });

  test('a challenge without code_challenge_method is refused with invalid_request (it would mean plain)', async () => {
    const { session, base } = await setUp();
    expectErrorRedirect(await app.get(authorizePath({ ...base, code_challenge: pkcePair().challenge }), { session }), 'invalid_request');
  });

  test('a malformed challenge is refused with invalid_request', async () => {
    const { session, base } = await setUp();
    expectErrorRedirect(await app.get(authorizePath({ ...base, code_challenge: 'too-short', code_challenge_method: 'S256' }), { session }), 'invalid_request');
  });

  test('PKCE is required for public clients: no challenge is invalid_request', async () => {
    const { session, base } = await setUp({ confidential: false });
    expectErrorRedirect(await app.get(authorizePath(base), { session }), 'invalid_request');
  });

  test('PKCE is optional for confidential clients', async () => {
    const { session, base } = await setUp();
    expect((await app.get(authorizePath(base), { session })).status).toBe(200);
  });
});

describe('POST /oauth2/authorize', () => {
  test('a missing or wrong csrf_token shows the consent page again (200) and grants nothing', async () => {
    const { session, base, user } = await setUp();
    const other = await makeSession(app, user);
    const otherToken = csrfOf((await app.get(authorizePath(base), { session: other })).text);
    for (const csrf of [undefined, 'forged', otherToken]) {
      const form: Record<string, string> = { ...base, decision: 'allow' };
      if (csrf) form.csrf_token = csrf;
      const res = await app.post('/oauth2/authorize', { session, form });
      expect(res.status).toBe(200);
      expect(res.text).toContain('Please confirm your choice again.');
    }
    expect(await app.db('authorisation_codes').where({ user_id: user.id }).count()).toEqual([{ count: 0 }]);
  });

  test('without a session the browser goes to the login page and back to the consent page', async () => {
    const { base } = await setUp();
    const res = await app.post('/oauth2/authorize', { form: { ...base, state: 'x', decision: 'allow', csrf_token: 'whatever' } });
    expect(res.status).toBe(303);
    const next = new URL(res.headers.get('location')!, 'http://x').searchParams.get('next')!;
    expect(next.startsWith('/oauth2/authorize?')).toBe(true);
    expect(Object.fromEntries(new URL(next, 'http://x').searchParams)).toEqual({ ...base, state: 'x' });
  });

  test('an API credential instead of a session is 401', async () => {
    const { base } = await setUp();
    const { simpleToken } = await makeUser(app);
    const res = await app.post('/oauth2/authorize', { token: simpleToken, form: { ...base, decision: 'allow' } });
    expect(res.status).toBe(401);
  });

  test('a missing or unknown decision is a 400 error page', async () => {
    const { session, base } = await setUp();
    const csrf = csrfOf((await app.get(authorizePath(base), { session })).text);
    for (const decision of [undefined, 'maybe']) {
      const form: Record<string, string> = { ...base, csrf_token: csrf };
      if (decision) form.decision = decision;
      const res = await app.post('/oauth2/authorize', { session, form });
      expect(res.status).toBe(400);
      expect(res.headers.get('location')).toBeNull();
    }
  });

  test('the parameters are checked again: an unregistered redirect_uri in the form is a 400 error page', async () => {
    const { session, base } = await setUp();
    const csrf = csrfOf((await app.get(authorizePath(base), { session })).text);
    const res = await app.post('/oauth2/authorize', {
      session,
      form: { ...base, redirect_uri: 'https://evil.example.net/cb', csrf_token: csrf, decision: 'allow' },
    });
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
  });
});

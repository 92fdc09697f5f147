/**
 * CORS over HTTP, as a browser's requests look on the wire: preflights, and which answers another
 * origin may read (those authenticated by an Authorization header, the token endpoint's, never a
 * cookie session's). test/web/cors-browser.test.ts runs the same in Chromium from another origin.
 */
import { startTestApp, type TestApp, type TestResponse } from '../support/app';
import { makeClient, makeSession, makeToken, makeUser } from '../support/fixtures';
import { PAGE } from '../support/web';
import type { OAuthClient } from '../../src/domain/apps-and-grants/clients';

let app: TestApp;
let bearer: string;
let token: string;
let session: string;
let appCredentials: string;

const ORIGIN = 'https://app.example.net';

beforeAll(async () => {
  app = await startTestApp();
  const made = await makeUser(app);
  token = made.simpleToken;
  session = await makeSession(app, made.user);
  const { client, secret } = await makeClient(app, made.user);
  appCredentials = `Basic ${Buffer.from(`${(client as OAuthClient).client_id}:${secret}`).toString('base64')}`;
  bearer = (await makeToken(app, made.user, client, ['activity_read'])).access_token;
});
afterAll(async () => {
  await app.close();
});

function preflight(path: string, method = 'GET', requestHeaders = 'authorization'): Promise<TestResponse> {
  return app.request('OPTIONS', path, {
    headers: { Origin: ORIGIN, 'Access-Control-Request-Method': method, 'Access-Control-Request-Headers': requestHeaders },
    unvalidated: true, // OPTIONS is no operation of the documents
  });
}

const readable = (res: TestResponse) => res.headers.get('access-control-allow-origin');

describe('preflight requests', () => {
  test('the API answers a preflight 204: any origin, its methods, Authorization and Content-Type, cached', async () => {
    for (const path of ['/api/2/attributes/with-values/', '/api/1/users/$self/today/', '/api/2/attributes/update/']) {
      const res = await preflight(path, path.endsWith('update/') ? 'POST' : 'GET', 'authorization, content-type');
      expect([path, res.status, readable(res)]).toEqual([path, 204, '*']);
      expect(res.headers.get('access-control-allow-methods')).toBe('GET, HEAD, POST, DELETE');
      expect(res.headers.get('access-control-allow-headers')).toBe('Authorization, Content-Type, X-Request-Id, Idempotency-Key');
      expect(Number(res.headers.get('access-control-max-age'))).toBeGreaterThan(0);
      expect(res.headers.get('access-control-allow-credentials')).toBeNull();
      expect(res.text).toBe('');
    }
  });

  test('a web page may delete a webhook endpoint: the preflight allows DELETE and the answer is readable', async () => {
    const created = await app.post('/api/2/webhooks/', {
      headers: { Authorization: appCredentials },
      json: { url: 'http://127.0.0.1:9/hooks', events: ['grant.revoked'] },
    });
    expect(created.status).toBe(201);
    const path = `/api/2/webhooks/${created.body.id}/`;
    const res = await preflight(path, 'DELETE');
    expect([res.status, readable(res)]).toEqual([204, '*']);
    expect(res.headers.get('access-control-allow-methods')!.split(', ')).toContain('DELETE');
    const deleted = await app.request('DELETE', path, { headers: { Authorization: appCredentials, Origin: ORIGIN } });
    expect([deleted.status, readable(deleted)]).toEqual([204, '*']);
    expect(deleted.headers.get('access-control-expose-headers')).toContain('X-Request-Id');
  });

  test('the token endpoint answers a preflight; the authorise page and the pages for people do not', async () => {
    const tokenEndpoint = await preflight('/oauth2/access_token', 'POST', 'content-type');
    expect([tokenEndpoint.status, readable(tokenEndpoint)]).toEqual([204, '*']);
    for (const path of ['/oauth2/authorize', '/login', '/settings/profile']) {
      const res = await preflight(path, 'POST', 'content-type');
      expect([path, readable(res)]).toEqual([path, null]);
      expect(res.status).not.toBe(204);
    }
  });

  test('a preflight needs no credentials and uses none of the rate limit', async () => {
    const before = await app.get('/api/2/accounts/profile/', { bearer });
    for (let i = 0; i < 3; i++) expect((await preflight('/api/2/accounts/profile/')).status).toBe(204);
    const after = await app.get('/api/2/accounts/profile/', { bearer });
    expect(Number(after.headers.get('x-ratelimit-remaining'))).toBe(Number(before.headers.get('x-ratelimit-remaining')) - 1);
  });
});

describe('which answers another origin may read', () => {
  test('requests authenticated by an Authorization header: any origin, with the fields clients need exposed, never credentials', async () => {
    for (const auth of [{ bearer }, { token }]) {
      const res = await app.get('/api/2/accounts/profile/', { ...auth, headers: { Origin: ORIGIN } });
      expect([res.status, readable(res)]).toEqual([200, '*']);
      expect(res.headers.get('access-control-allow-credentials')).toBeNull();
      const exposed = res.headers.get('access-control-expose-headers')!.split(', ');
      expect(exposed).toEqual(expect.arrayContaining(['X-RateLimit-Remaining', 'X-RateLimit-Reset', 'Retry-After', 'WWW-Authenticate', 'Deprecation', 'Link']));
    }
    const v1 = await app.get('/api/1/users/$self/profile/', { bearer, headers: { Origin: ORIGIN } });
    expect(readable(v1)).toBe('*');
  });

  test('errors are readable too: missing or bad credentials, validation', async () => {
    expect(readable(await app.get('/api/2/accounts/profile/', { headers: { Origin: ORIGIN } }))).toBe('*');
    expect(readable(await app.get('/api/2/accounts/profile/', { bearer: 'not-a-token', headers: { Origin: ORIGIN } }))).toBe('*');
    const invalid = await app.get('/api/2/attributes/with-values/?days=99', { bearer, headers: { Origin: ORIGIN } });
    expect([invalid.status, readable(invalid)]).toEqual([400, '*']);
  });

  test('a request authenticated by the session cookie gets no CORS fields', async () => {
    const res = await app.get('/api/2/accounts/profile/', { session, headers: { Origin: ORIGIN } });
    expect(res.status).toBe(200);
    expect(readable(res)).toBeNull();
    expect(res.headers.get('access-control-expose-headers')).toBeNull();
    // With an Authorization header as well, the header authenticates it (and the cookie is ignored).
    expect(readable(await app.get('/api/2/accounts/profile/', { session, bearer, headers: { Origin: ORIGIN } }))).toBe('*');
  });

  test('the token endpoint: its answers and its errors are readable', async () => {
    const res = await app.post('/oauth2/access_token', {
      form: { grant_type: 'authorization_code', code: 'nope', client_id: 'nobody', redirect_uri: 'https://app.example.net/' },
      headers: { Origin: ORIGIN },
    });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(readable(res)).toBe('*');
  });

  test('pages for people and the authorise page are not shared', async () => {
    for (const path of ['/login', '/oauth2/authorize?response_type=code&client_id=nobody']) {
      const res = await app.get(path, { ...PAGE, headers: { Origin: ORIGIN } });
      expect([path, readable(res)]).toEqual([path, null]);
    }
  });
});

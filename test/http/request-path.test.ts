/**
 * The request path every endpoint sits in: redirects, unknown paths and methods, body limits and
 * media types, request ids, security headers, health checks and the published documents.
 */
import { startTestApp, type TestApp } from '../support/app';
import { makeClient, makeToken, makeUser } from '../support/fixtures';

let app: TestApp;
let bearer: string;
beforeAll(async () => {
  app = await startTestApp();
  const { user } = await makeUser(app);
  const { client } = await makeClient(app, user);
  bearer = (await makeToken(app, user, client, ['activity_read', 'activity_write'])).access_token;
});
afterAll(async () => {
  await app.close();
});

describe('trailing slashes', () => {
  test('GET of an API path without its trailing slash is a 301 to the slash path, keeping the query', async () => {
    const res = await app.get('/api/2/accounts/profile?x=1');
    expect(res.status).toBe(301);
    expect(res.headers.get('location')).toBe(`${app.baseUrl}/api/2/accounts/profile/?x=1`);
  });

  test('POST of an API path without its trailing slash is a 308, so the method and body are kept', async () => {
    const res = await app.post('/api/2/attributes/update', { json: [] });
    expect(res.status).toBe(308);
    expect(res.headers.get('location')).toBe(`${app.baseUrl}/api/2/attributes/update/`);
  });

  test('redirects use PUBLIC_URL when it is set', async () => {
    const other = await startTestApp({ PUBLIC_URL: 'https://daybook.example.org' });
    try {
      const res = await other.get('/api/1/users/$self/profile');
      expect(res.headers.get('location')).toBe('https://daybook.example.org/api/1/users/$self/profile/');
    } finally {
      await other.close();
    }
  });

  test('with TRUST_PROXY=1 redirects follow X-Forwarded-Proto and X-Forwarded-Host (a host listed in ALLOWED_HOSTS)', async () => {
    const other = await startTestApp({ TRUST_PROXY: '1', ALLOWED_HOSTS: 'data.example.net' });
    try {
      const res = await other.get('/api/2/attributes', { headers: { 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'data.example.net' } });
      expect(res.headers.get('location')).toBe('https://data.example.net/api/2/attributes/');
    } finally {
      await other.close();
    }
  });

  test('without TRUST_PROXY forwarded headers are ignored', async () => {
    const res = await app.get('/api/2/attributes', { headers: { 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'evil.example' } });
    expect(res.headers.get('location')).toBe(`${app.baseUrl}/api/2/attributes/`);
  });
});

describe('unknown paths and methods', () => {
  test('an unknown API path is 404 with the error body', async () => {
    const res = await app.get('/api/2/nothing-here/', { bearer });
    expect(res.status).toBe(404);
    expect(res.body.detail).toMatch(/no API version 2 endpoint at \/api\/2\/nothing-here\//);
  });

  test('a path outside the API is 404 with the error body', async () => {
    const res = await app.get('/no/such/page');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: 'Nothing is served at /no/such/page.' });
  });

  test('a known path with the wrong method is 405 with Allow', async () => {
    const res = await app.request('DELETE', '/api/2/accounts/profile/', { bearer });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD');
    expect(res.body.detail).toBe('Method DELETE is not allowed on /api/2/accounts/profile/.');
  });

  test('query parameters an operation does not declare are ignored', async () => {
    expect((await app.get('/api/2/accounts/profile/?format=json&_=123', { bearer })).status).toBe(200);
  });
});

describe('request bodies', () => {
  test('a body over 1 MiB is 413', async () => {
    const huge = JSON.stringify([{ name: 'steps', date: '2026-11-01', value: 'x'.repeat(1024 * 1024) }]);
    const res = await app.post('/api/2/attributes/update/', { bearer, raw: huge, headers: { 'Content-Type': 'application/json' } });
    expect(res.status).toBe(413);
    expect(res.body.detail).toBe('The request body is larger than 1 MiB.');
  });

  test('an unsupported media type is 415 naming what to send', async () => {
    const res = await app.post('/api/2/attributes/update/', { bearer, raw: 'steps=1', headers: { 'Content-Type': 'text/plain' } });
    expect(res.status).toBe(415);
    expect(res.body.detail).toBe('Unsupported media type text/plain: send application/json.');
  });

  test('malformed JSON is 400', async () => {
    const res = await app.post('/api/2/attributes/update/', { bearer, raw: '[{"name": ', headers: { 'Content-Type': 'application/json' } });
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/^The request body could not be parsed/);
  });

  test('a batch body that is not an array is 400 with the problem listed', async () => {
    const res = await app.post('/api/2/attributes/update/', { bearer, json: { name: 'steps' } });
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toMatchObject({ in: 'body' });
  });

  test('a batch of 36 items is 400', async () => {
    const items = Array.from({ length: 36 }, (_, i) => ({ name: 'steps', date: '2026-11-01', value: i }));
    const res = await app.post('/api/2/attributes/update/', { bearer, json: items });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].message).toMatch(/must NOT have more than 35 items/);
  });
});

describe('request ids and headers', () => {
  test('every response carries a request id, and a sensible incoming one is kept', async () => {
    const res = await app.get('/api/2/accounts/profile/', { bearer });
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const echoed = await app.get('/api/2/accounts/profile/', { bearer, headers: { 'X-Request-Id': 'lb-7f3a.22' } });
    expect(echoed.headers.get('x-request-id')).toBe('lb-7f3a.22');
  });

  test('API responses carry security headers', async () => {
    const res = await app.get('/api/2/accounts/profile/', { bearer });
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  });

  test("every answer carries helmet's headers, the same on every request (http/security-headers.ts)", async () => {
    const expected = {
      'content-security-policy': expect.stringMatching(/^default-src 'none';.*frame-ancestors 'none';/),
      'cross-origin-opener-policy': 'same-origin',
      'cross-origin-resource-policy': 'same-origin',
      'origin-agent-cluster': '?1',
      'referrer-policy': 'no-referrer',
      'strict-transport-security': 'max-age=31536000; includeSubDomains',
      'x-content-type-options': 'nosniff',
      'x-dns-prefetch-control': 'off',
      'x-download-options': 'noopen',
      'x-frame-options': 'SAMEORIGIN',
      'x-permitted-cross-domain-policies': 'none',
      'x-xss-protection': '0',
    };
    const answers = [
      await app.get('/api/2/accounts/profile/', { bearer }),
      await app.get('/api/2/accounts/profile/'), // a 401
      await app.get('/api/2/no-such-thing/', { bearer }), // a 404
    ];
    expect(answers.map((res) => res.status)).toEqual([200, 401, 404]);
    for (const res of answers) {
      const headers = Object.fromEntries(Object.keys(expected).map((name) => [name, res.headers.get(name)]));
      expect(headers).toEqual(expected);
      expect(res.headers.get('x-powered-by')).toBeNull();
    }
  });
});

describe('health and documents', () => {
  test('/healthz answers while the process is up and /readyz when the database answers', async () => {
    const health = await app.get('/healthz', { unvalidated: true });
    expect([health.status, health.body]).toEqual([200, { status: 'ok' }]);
    const ready = await app.get('/readyz', { unvalidated: true });
    expect([ready.status, ready.body]).toEqual([200, { status: 'ready' }]);
  });

  test.each(['v2', 'v1', 'oauth'])('the bundled %s document is served under /openapi/', async (name) => {
    const res = await app.get(`/openapi/${name}.json`, { unvalidated: true });
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    expect(Object.keys(res.body.paths).length).toBeGreaterThan(0);
  });

  test.each(['v2', 'v1', 'oauth'])('the Redoc page of %s is served under /docs/', async (name) => {
    const res = await app.get(`/docs/${name}/`, { unvalidated: true });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.text).toContain('redoc');
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  });

  test('/docs/ lists the three documents', async () => {
    const res = await app.get('/docs/', { unvalidated: true });
    expect(res.text).toContain('href="/docs/v2/"');
    expect(res.text).toContain('href="/docs/v1/"');
    expect(res.text).toContain('href="/docs/oauth/"');
  });
});

describe('query parameters', () => {
  test('a limit too large to be a number is 400, a large one is clamped to 100', async () => {
    const infinite = await app.get('/api/2/attributes/templates/?limit=1e400', { bearer });
    expect(infinite.status).toBe(400);
    expect(infinite.body.detail).toBe('Invalid query parameter limit: must be an integer.');
    const clamped = await app.get('/api/2/attributes/templates/?limit=100000', { bearer });
    expect(clamped.body.results).toHaveLength(Math.min(100, clamped.body.count));
  });

  test('a repeated query parameter is 400', async () => {
    const res = await app.get('/api/2/attributes/values/?attribute=steps&attribute=sleep', { bearer });
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toMatchObject({ in: 'query', name: 'attribute' });
  });

  test('boolean flags accept true/false and 1/0 alike, anything else is 400', async () => {
    const one = await app.get('/api/2/attributes/templates/?include_low_priority=1', { bearer });
    const word = await app.get('/api/2/attributes/templates/?include_low_priority=true', { bearer });
    const zero = await app.get('/api/2/attributes/templates/?include_low_priority=0', { bearer });
    expect(one.body.count).toBe(word.body.count);
    expect(zero.body.count).toBeLessThan(one.body.count);
    expect((await app.get('/api/2/attributes/templates/?include_low_priority=yes', { bearer })).status).toBe(400);
  });
});

describe('bodies sent the way real clients send them', () => {
  // A Buffer body goes out without a Content-Type (a string would be sent as text/plain).
  test('a JSON body without a Content-Type is parsed as JSON', async () => {
    const { user, password, simpleToken } = await makeUser(app);
    const res = await app.post('/api/1/auth/simple-token/', { raw: Buffer.from(JSON.stringify({ username: user.username, password })) });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ token: simpleToken });
  });

  test('a JSON batch without a Content-Type is applied', async () => {
    await app.post('/api/2/attributes/acquire/', { bearer, json: [{ template: 'steps' }] });
    const res = await app.post('/api/2/attributes/update/', { bearer, raw: Buffer.from(JSON.stringify([{ name: 'steps', date: '2026-11-01', value: 5 }])) });
    expect(res.status).toBe(200);
    expect(res.body.success).toEqual([{ name: 'steps', date: '2026-11-01', value: 5 }]);
  });

  test('a body without a Content-Type that is not JSON is 400', async () => {
    const res = await app.post('/api/2/attributes/update/', { bearer, raw: Buffer.from('name=steps') });
    expect(res.status).toBe(400);
  });
});

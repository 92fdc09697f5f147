/**
 * Version 1 is the older interface: its responses say so (RFC 9745 `Deprecation`) and link to the
 * version 2 documentation (`rel="successor-version"`), with no sunset date. Version 2, OAuth and
 * the simple-token endpoint carry neither field.
 */
import { startTestApp, type TestApp, type TestResponse } from '../../support/app';
import { makeClient, makeToken, makeUser } from '../../support/fixtures';
import { loadBundle } from '../../../src/http/backends';

let app: TestApp;
let token: string;
let username: string;
let password: string;
let bearer: string;

/** RFC 9745: the field is a Structured Field Date, `@` followed by an integer of Unix seconds. */
const STRUCTURED_DATE = /^@-?\d{1,15}$/;
/** 2026-11-22T00:00:00Z, Daybook's first release. */
const DEPRECATED_SINCE = '@1795305600';

beforeAll(async () => {
  app = await startTestApp();
  const made = await makeUser(app);
  password = made.password;
  token = made.simpleToken;
  username = made.user.username;
  const { client } = await makeClient(app, made.user);
  bearer = (await makeToken(app, made.user, client, ['activity_read'])).access_token;
});
afterAll(async () => {
  await app.close();
});

function expectDeprecated(res: TestResponse, label: string): void {
  expect([label, res.headers.get('deprecation')]).toEqual([label, DEPRECATED_SINCE]);
  expect([label, res.headers.get('link')]).toEqual([label, `<${app.baseUrl}/docs/v2/>; rel="successor-version"`]);
  expect([label, res.headers.get('sunset')]).toEqual([label, null]);
}

function expectNotDeprecated(res: TestResponse, label: string): void {
  expect([label, res.headers.get('deprecation'), res.headers.get('sunset')]).toEqual([label, null, null]);
  expect([label, res.headers.get('link') ?? '']).not.toEqual([label, expect.stringContaining('successor-version')]);
}

describe('version 1 says it is deprecated', () => {
  test('every version 1 operation answers Deprecation in the RFC 9745 form and a Link to the version 2 documentation', async () => {
    const paths = [
      '/api/1/users/$self/profile/',
      '/api/1/users/$self/today/',
      '/api/1/users/$self/attributes/',
      '/api/1/users/$self/attributes/steps/',
      '/api/1/users/$self/insights/',
      '/api/1/users/$self/insights/attribute/steps/',
      '/api/1/users/$self/averages/',
      '/api/1/users/$self/averages/attribute/steps/',
    ];
    for (const path of paths) {
      const res = await app.get(path, { token });
      expect([path, res.status]).toEqual([path, 200]);
      expect(res.headers.get('deprecation')).toMatch(STRUCTURED_DATE);
      expectDeprecated(res, path);
    }
  });

  test('the deprecation date is in the past: version 1 is deprecated now, not later', async () => {
    const res = await app.get('/api/1/users/$self/profile/', { bearer });
    const seconds = Number(res.headers.get('deprecation')!.slice(1));
    expect(seconds * 1000).toBeLessThanOrEqual(Date.now());
  });

  test('errors and redirects under /api/1/users/ carry the fields too', async () => {
    expectDeprecated(await app.get('/api/1/users/$self/profile/'), '401');
    expectDeprecated(await app.get('/api/1/users/nobody_at_all/attributes/', { token }), '403');
    expectDeprecated(await app.get('/api/1/users/$self/attributes/?limit=99', { token }), '400');
    expectDeprecated(await app.get('/api/1/users/$self/profile', { token }), '301');
  });

  test('the link follows PUBLIC_URL', async () => {
    const other = await startTestApp({ PUBLIC_URL: 'https://daybook.example.org' });
    try {
      const res = await other.get('/api/1/users/$self/profile/');
      expect(res.headers.get('link')).toBe('<https://daybook.example.org/docs/v2/>; rel="successor-version"');
    } finally {
      await other.close();
    }
  });

  test('version 2, OAuth and the simple-token endpoint are not deprecated', async () => {
    expectNotDeprecated(await app.get('/api/2/accounts/profile/', { token }), 'v2 profile');
    expectNotDeprecated(await app.get('/api/2/attributes/', { bearer }), 'v2 attributes');
    expectNotDeprecated(await app.post('/oauth2/access_token', { form: { grant_type: 'refresh_token' } }), 'token endpoint');
    const simple = await app.post('/api/1/auth/simple-token/', { form: { username, password } });
    expect(simple.status).toBe(200);
    expectNotDeprecated(simple, 'v1 simple token');
  });

  test('the version 1 document declares both fields on every operation under /api/1/users/, and no Sunset', () => {
    const document = loadBundle('v1') as unknown as {
      paths: Record<string, Record<string, { responses: Record<string, { headers?: Record<string, unknown> }> }>>;
    };
    const operations = Object.entries(document.paths).filter(([path]) => path.startsWith('/api/1/users/'));
    expect(operations).toHaveLength(8);
    for (const [path, item] of operations) {
      const headers = item.get.responses['200'].headers ?? {};
      expect([path, 'Deprecation' in headers, 'Link' in headers, 'Sunset' in headers]).toEqual([path, true, true, false]);
    }
    const simpleToken = document.paths['/api/1/auth/simple-token/'].post.responses['200'].headers ?? {};
    expect('Deprecation' in simpleToken).toBe(false);
  });
});

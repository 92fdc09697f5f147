/**
 * The bench's baseline is a correct server, not only a fast one (test/bench/README.md, "The
 * baseline"): it checks every Bearer token against the database (a token issued after it started
 * works, a revoked, expired or unknown one gets 401), counts every request on Daybook's shared
 * rate-limit row of the person's connection with the app (the same count as Daybook's, 429 with
 * Retry-After past it, the rate-limit headers on every answer), and writes nothing for a request
 * it refuses.
 */
import { startTestApp, type TestApp } from '../support/app';
import { makeClient, makeToken, makeUser } from '../support/fixtures';
import { startBaselineServer, type Baseline } from './baseline-server';

const LIMIT = 3;

let app: TestApp;
let baseline: Baseline;
beforeAll(async () => {
  app = await startTestApp({ RATE_LIMIT_PER_HOUR: String(LIMIT) });
  baseline = await startBaselineServer({ databaseUrl: app.deps.config.databaseUrl!, poolMax: 2, rateLimit: LIMIT });
});
afterAll(async () => {
  await baseline?.close();
  await app?.close();
});
beforeEach(async () => {
  // Refused tokens count under the client's address, the same for every test here.
  await app.db('rate_limits').where('key', 'like', 'api:ip:%').delete();
});

async function call(bearer: string, method = 'GET', path = '/api/2/accounts/profile/', json?: unknown) {
  const response = await fetch(`http://127.0.0.1:${baseline.port}${path}`, {
    method,
    headers: { authorization: `Bearer ${bearer}`, ...(json === undefined ? {} : { 'content-type': 'application/json' }) },
    body: json === undefined ? undefined : JSON.stringify(json),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as any };
}

/** A new person connected to a new app: a count of their own. */
async function connection() {
  const { user } = await makeUser(app);
  const { client } = await makeClient(app, user);
  const issue = async () => (await makeToken(app, user, client, ['read', 'write'])).access_token;
  return { user, client, issue };
}

function expectRateLimitHeaders(headers: Headers, remaining: number) {
  expect(headers.get('x-ratelimit-limit')).toBe(String(LIMIT));
  expect(headers.get('x-ratelimit-remaining')).toBe(String(remaining));
  expect(Number(headers.get('x-ratelimit-reset'))).toBeGreaterThan(3500);
  expect(headers.get('ratelimit-policy')).toBe(`"default";q=${LIMIT};w=3600`);
  expect(headers.get('ratelimit')).toMatch(new RegExp(`^"default";r=${remaining};t=\\d+$`));
}

test('a token issued after the baseline started works at once, and is refused at the next request once revoked', async () => {
  const { user, issue } = await connection();
  const token = await issue();
  const ok = await call(token);
  expect(ok.status).toBe(200);
  expect(ok.body.username).toBe(user.username);
  expectRateLimitHeaders(ok.headers, LIMIT - 1);

  await app.db('tokens').where({ user_id: user.id }).update({ revoked_at: new Date() });
  const refused = await call(token);
  expect(refused.status).toBe(401);
  expect(refused.body).toEqual({ detail: 'The access token has been revoked or replaced by a refresh.' });
  expect(refused.headers.get('www-authenticate')).toMatch(/^Bearer realm="daybook", error="invalid_token"/);
  expect(refused.headers.get('x-ratelimit-limit')).toBe(String(LIMIT));
});

test('an expired or unknown token gets 401 with the reason, and the rate-limit headers', async () => {
  const { user, issue } = await connection();
  const token = await issue();
  await app
    .db('tokens')
    .where({ user_id: user.id })
    .update({ access_expires_at: new Date(Date.now() - 1000) });
  const expired = await call(token);
  expect(expired.status).toBe(401);
  expect(expired.body).toEqual({ detail: 'The access token has expired: refresh it with the refresh token.' });
  expectRateLimitHeaders(expired.headers, LIMIT - 1);

  const unknown = await call('no-such-token');
  expect(unknown.status).toBe(401);
  expect(unknown.body).toEqual({ detail: 'The access token is invalid.' });
  expectRateLimitHeaders(unknown.headers, LIMIT - 2);
});

test("the count is Daybook's (person and app, across tokens): past the limit 429 with Retry-After, and a write is not made", async () => {
  const { user, issue } = await connection();
  const first = await issue();
  const created = await call(first, 'POST', '/api/2/attributes/create/', [{ label: 'Pushups', group: 'activity', value_type: 0 }]);
  expect(created.status).toBe(200);
  const name = created.body.success[0].name as string;
  expectRateLimitHeaders(created.headers, LIMIT - 1);

  // Daybook counts on the same row: its request is the second of the hour.
  expect((await app.get('/api/2/accounts/profile/', { bearer: first })).headers.get('x-ratelimit-remaining')).toBe(String(LIMIT - 2));
  // A second token of the same app for the same person continues the count.
  const second = await issue();
  const incremented = await call(second, 'POST', '/api/2/attributes/increment/', [{ name, value: 5 }]);
  expect(incremented.status).toBe(200);
  expect(incremented.body.success[0].current).toBe(5);
  expectRateLimitHeaders(incremented.headers, 0);

  const refused = await call(second, 'POST', '/api/2/attributes/increment/', [{ name, value: 5 }]);
  expect(refused.status).toBe(429);
  expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(3500);
  expect(refused.headers.get('retry-after')).toBe(refused.headers.get('x-ratelimit-reset'));
  expectRateLimitHeaders(refused.headers, 0);
  const values = await app
    .db('attribute_values as v')
    .join('attributes as a', (on) => on.on('a.user_id', 'v.user_id').andOn('a.id', 'v.attribute_id'))
    .where({ 'a.user_id': user.id, 'a.name': name });
  expect(values.map((v) => v.value_num)).toEqual([5]);
});

test('a write with a revoked token changes nothing', async () => {
  const { user, issue } = await connection();
  const token = await issue();
  await app.db('tokens').where({ user_id: user.id }).update({ revoked_at: new Date() });
  const refused = await call(token, 'POST', '/api/2/attributes/create/', [{ label: 'Pushups', group: 'activity', value_type: 0 }]);
  expect(refused.status).toBe(401);
  expect(await app.db('attributes').where({ user_id: user.id, label: 'Pushups' })).toEqual([]);
});

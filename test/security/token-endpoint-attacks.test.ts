/**
 * Issue 30, items 4 and 5: the token endpoint's budgets and the refresh leeway
 * (docs/security.md, "Token endpoint limits and the refresh leeway").
 *
 * - A busy app refreshing for many people from its one server address shared one per-address
 *   bucket (the API's, 300/h) with everyone else there, and got 429 in `{detail}` form. Now the
 *   endpoint counts per client (generous), per grant and, for failed client authentication only,
 *   per address, and answers 429 `slow_down` in RFC 6749 form with Retry-After.
 * - Two parallel refreshes of one grant (or a retry after a lost answer) revoked the whole grant.
 *   Now the same client within 30 s is answered the same pair again; after the leeway, a replay
 *   still revokes the grant.
 *
 * Small budgets here (settings), and each test its own client address (TRUST_PROXY=1 and
 * X-Forwarded-For), since the failure budget is per address.
 */
import { startTestApp, type TestApp } from '../support/app';
import { makeClient, makeToken, makeUser } from '../support/fixtures';
import { tokenRequest } from '../support/web';
import { REFRESH_LEEWAY_MS } from '../../src/domain/apps-and-grants/refresh-retry';
import type { OAuthClient } from '../../src/domain/apps-and-grants/clients';
import type { User } from '../../src/domain/identity/users';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({
    TRUST_PROXY: '1',
    RATE_LIMIT_PER_HOUR: '20',
    OAUTH_CLIENT_REQUESTS_PER_HOUR: '60',
    OAUTH_REFRESHES_PER_GRANT_PER_HOUR: '3',
    OAUTH_CLIENT_AUTH_FAILURES_PER_15_MIN: '5',
  });
});
afterEach(() => {
  app.setNow(undefined);
});
afterAll(async () => {
  await app.close();
});

let addresses = 0;
/** A client address of its own for each caller (the budgets of failed authentication are per address). */
const newAddress = () => `198.51.100.${++addresses}`;

interface App {
  owner: User;
  client: OAuthClient;
  credentials: Record<string, string>;
}

async function newApp(): Promise<App> {
  const { user: owner } = await makeUser(app);
  const { client, secret } = await makeClient(app, owner);
  return { owner, client, credentials: { client_id: client.client_id, client_secret: secret! } };
}

let people = 0;
/** A grant of a new person to `of`: its first pair (the person inserted directly: no password hash to compute). */
async function grantOf(of: App) {
  people += 1;
  const [user] = (await app
    .db('users')
    .insert({ username: `busy${people}_${process.pid}`, password_hash: '!', timezone: 'UTC' })
    .returning('id')) as User[];
  return makeToken(app, user, of.client, ['mood_read']);
}

const refresh = (of: App, refreshToken: string, from: string) =>
  tokenRequest(app, { grant_type: 'refresh_token', refresh_token: refreshToken, ...of.credentials }, { 'X-Forwarded-For': from });
const profile = (accessToken: string) => app.get('/api/2/accounts/profile/', { bearer: accessToken });

test('a busy app refreshing for 50 people from its one server address: every refresh succeeds (no shared per-address bucket)', async () => {
  const busy = await newApp();
  const grants = await Promise.all(Array.from({ length: 50 }, () => grantOf(busy)));
  const server = newAddress();
  const answers = await Promise.all(grants.map((g) => refresh(busy, g.refresh_token, server)));
  expect(answers.map((a) => a.status)).toEqual(Array(50).fill(200));
  // The rate-limit headers describe the client's own budget, not an address's.
  expect(answers[0].headers.get('x-ratelimit-limit')).toBe('60');
  expect(answers[0].headers.get('ratelimit-policy')).toBe('"client";q=60;w=3600');
});

test('a runaway app: past its own budget (token and revocation requests together) it gets 429 slow_down, other apps go on', async () => {
  const runaway = await newApp();
  const from = newAddress();
  const revocations = await Promise.all(
    Array.from({ length: 60 }, (_, i) =>
      app.post('/oauth2/revoke', { form: { token: `unknown-${i}`, ...runaway.credentials }, headers: { 'X-Forwarded-For': from } }),
    ),
  );
  expect(revocations.every((r) => r.status === 200)).toBe(true);
  const refused = await refresh(runaway, (await grantOf(runaway)).refresh_token, from);
  expect(refused.status).toBe(429);
  expect(refused.body).toEqual({
    error: 'slow_down',
    error_description: expect.stringMatching(/^This client made 60 token requests in the last hour: try again in \d+ seconds\.$/),
  });
  expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(3500);
  const other = await newApp();
  expect((await refresh(other, (await grantOf(other)).refresh_token, from)).status).toBe(200);
});

test('a refresh token hammered: one grant refreshed past its budget is 429 slow_down with Retry-After, other grants go on', async () => {
  const hammering = await newApp();
  const from = newAddress();
  let pair = await grantOf(hammering);
  for (let i = 0; i < 3; i += 1) {
    const answer = await refresh(hammering, pair.refresh_token, from);
    expect(answer.status).toBe(200);
    pair = answer.body;
  }
  const refused = await refresh(hammering, pair.refresh_token, from);
  expect(refused.status).toBe(429);
  expect(refused.body).toEqual({
    error: 'slow_down',
    error_description: expect.stringMatching(/^This authorisation was refreshed 3 times in the last hour: try again in \d+ seconds\.$/),
  });
  expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(3500);
  expect(refused.headers.get('cache-control')).toBe('no-store');
  // Nothing was changed: the current pair still works, and another person's grant still refreshes.
  expect((await profile(pair.access_token)).status).toBe(200);
  const other = await grantOf(hammering);
  expect((await refresh(hammering, other.refresh_token, from)).status).toBe(200);
});

test('client-secret guessing from one address: 5 failures, then 429 slow_down for every request from it, a right secret too', async () => {
  const victim = await newApp();
  const guesser = newAddress();
  const guesses = await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      tokenRequest(
        app,
        { grant_type: 'refresh_token', refresh_token: 'x', client_id: victim.client.client_id, client_secret: `guess-${i}` },
        { 'X-Forwarded-For': guesser },
      ),
    ),
  );
  // Counting and deciding are one statement: exactly the budget is answered, even in a burst.
  expect(guesses.filter((g) => g.status === 400 && g.body.error === 'invalid_client')).toHaveLength(5);
  const refused = guesses.filter((g) => g.status === 429);
  expect(refused).toHaveLength(15);
  expect(refused[0].body.error).toBe('slow_down');
  expect(Number(refused[0].headers.get('retry-after'))).toBeGreaterThan(800);
  // Past the budget a right guess looks like a wrong one.
  const grant = await grantOf(victim);
  expect((await refresh(victim, grant.refresh_token, guesser)).status).toBe(429);
  // The revocation endpoint shares the budget.
  const revoke = await app.post('/oauth2/revoke', { form: { token: grant.refresh_token, ...victim.credentials }, headers: { 'X-Forwarded-For': guesser } });
  expect([revoke.status, revoke.body.error]).toEqual([429, 'slow_down']);
  // The app's own server, elsewhere, is not held back.
  expect((await refresh(victim, grant.refresh_token, newAddress())).status).toBe(200);
});

test('two parallel refreshes of one grant (two tabs): both answer 200 with the same pair, and the grant lives', async () => {
  const tabs = await newApp();
  const from = newAddress();
  const first = await grantOf(tabs);
  const answers = await Promise.all([refresh(tabs, first.refresh_token, from), refresh(tabs, first.refresh_token, from)]);
  expect(answers.map((a) => a.status)).toEqual([200, 200]);
  expect(new Set(answers.map((a) => a.body.refresh_token)).size).toBe(1);
  expect(new Set(answers.map((a) => a.body.access_token)).size).toBe(1);
  // Whichever answer the client stored last works.
  const stored = answers[1].body;
  expect((await profile(stored.access_token)).status).toBe(200);
  expect((await profile(first.access_token)).status).toBe(401);
  expect((await refresh(tabs, stored.refresh_token, from)).status).toBe(200);
});

test('a retry of the old refresh token within the leeway (a lost answer) gets the same pair, and the grant lives', async () => {
  const retrying = await newApp();
  const from = newAddress();
  const first = await grantOf(retrying);
  const lost = await refresh(retrying, first.refresh_token, from);
  expect(lost.status).toBe(200);
  app.setNow(new Date(Date.now() + REFRESH_LEEWAY_MS - 5000));
  const retry = await refresh(retrying, first.refresh_token, from);
  expect(retry.status).toBe(200);
  expect(retry.body).toEqual({ ...lost.body, expires_in: expect.any(Number) });
  expect(retry.body.expires_in).toBeLessThan(lost.body.expires_in);
  expect((await profile(retry.body.access_token)).status).toBe(200);
  expect((await refresh(retrying, retry.body.refresh_token, from)).status).toBe(200);
});

test('a replay of the old refresh token after the leeway revokes the grant (RFC 9700)', async () => {
  const replaying = await newApp();
  const from = newAddress();
  const first = await grantOf(replaying);
  const second = await refresh(replaying, first.refresh_token, from);
  app.setNow(new Date(Date.now() + REFRESH_LEEWAY_MS + 1000));
  const replay = await refresh(replaying, first.refresh_token, from);
  expect([replay.status, replay.body.error]).toEqual([400, 'invalid_grant']);
  expect((await profile(second.body.access_token)).status).toBe(401);
  expect((await refresh(replaying, second.body.refresh_token, from)).body.error).toBe('invalid_grant');
});

test('a replay within the leeway once the new pair was itself refreshed revokes the grant', async () => {
  const chained = await newApp();
  const from = newAddress();
  const first = await grantOf(chained);
  const second = await refresh(chained, first.refresh_token, from);
  const third = await refresh(chained, second.body.refresh_token, from);
  const replay = await refresh(chained, first.refresh_token, from);
  expect([replay.status, replay.body.error]).toEqual([400, 'invalid_grant']);
  expect((await profile(third.body.access_token)).status).toBe(401);
});

test('another client presenting the refresh token just replaced gets no pair within the leeway, learns nothing, and the grant ends', async () => {
  const victim = await newApp();
  const attacker = await newApp();
  const from = newAddress();
  const first = await grantOf(victim);
  const second = await refresh(victim, first.refresh_token, from);
  const stolen = await refresh(attacker, first.refresh_token, from);
  expect([stolen.status, stolen.body]).toEqual([400, { error: 'invalid_grant', error_description: 'The refresh token is unknown.' }]);
  // A replaced token in another client's hands is a leak: the grant ends (docs/security.md, "The refresh leeway").
  expect((await profile(second.body.access_token)).status).toBe(401);
});

test('the leeway is per request: a retry asking for other scopes is a replay and revokes the grant', async () => {
  const narrowing = await newApp();
  const from = newAddress();
  const { user } = await makeUser(app);
  const first = await makeToken(app, user, narrowing.client, ['mood_read', 'sleep_read']);
  const second = await refresh(narrowing, first.refresh_token, from);
  const other = await tokenRequest(
    app,
    { grant_type: 'refresh_token', refresh_token: first.refresh_token, scope: 'mood_read', ...narrowing.credentials },
    { 'X-Forwarded-For': from },
  );
  expect([other.status, other.body.error]).toEqual([400, 'invalid_grant']);
  expect((await profile(second.body.access_token)).status).toBe(401);
});

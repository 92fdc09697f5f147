/**
 * The typed client against the real service: every v2 operation answers its typed body, lists
 * are walked page by page through `next`, an expired access token is refreshed once and the call
 * sent again, and errors come back as typed values with their status and rate-limit headers.
 */
import { startTestApp, type TestApp } from '../support/app';
import { makeClient, makeToken, makeUser } from '../support/fixtures';
import {
  createDaybookClient,
  createOAuthClient,
  createPkce,
  createV1Client,
  createWebhooksClient,
  isOAuthError,
  type DaybookClient,
  type TokenResponse,
} from '../../client/src';
import { issueAuthorisationCode } from '../../src/domain/apps-and-grants/grants';
import type { User } from '../../src/domain/identity/users';
import type { OAuthClient } from '../../src/domain/apps-and-grants/clients';

const SCOPES = ['activity_read', 'activity_write', 'sleep_read', 'sleep_write', 'custom_read', 'custom_write'];
const REDIRECT_URI = 'https://client.example.org/callback';

let app: TestApp;
let person: User;
let simpleToken: string;
let client: OAuthClient;
let secret: string;
let tokens: TokenResponse;
let api: DaybookClient;

beforeAll(async () => {
  app = await startTestApp();
  ({ user: person, simpleToken } = await makeUser(app, { timezone: 'UTC' }));
  ({ client, secret } = (await makeClient(app, person)) as { client: OAuthClient; secret: string });
  tokens = await makeToken(app, person, client, SCOPES);
  api = createDaybookClient({ baseUrl: app.baseUrl, credentials: { accessToken: tokens.access_token, refreshToken: tokens.refresh_token } });
});
afterAll(async () => {
  await app.close();
});

test('every v2 operation answers its typed body', async () => {
  const today = new Date().toISOString().slice(0, 10);
  const acquired = await api.acquire([{ template: 'steps' }, { template: 'sleep' }]);
  expect(acquired.ok && acquired.data.success.map((s) => s.name)).toEqual(['steps', 'sleep']);
  const created = await api.create([{ label: 'Walked the dog', group: 'custom', value_type: 0 }]);
  expect(created.ok && created.data.success[0].name).toBe('walked_the_dog');
  const updated = await api.update([{ name: 'steps', date: today, value: 4000 }]);
  expect(updated.ok && updated.status).toBe(200);
  const incremented = await api.increment([{ name: 'steps', value: 250 }]);
  expect(incremented.ok && incremented.data.success[0].current).toBe(4250);
  const released = await api.release([{ name: 'sleep' }]);
  expect(released.ok && released.data.success).toEqual([{ name: 'sleep' }]);

  const templates = await api.templates({ groups: 'activity', limit: 5 });
  expect(templates.ok && templates.data.results.every((t) => t.group.name === 'activity')).toBe(true);
  const attributes = await api.attributes({ include_inactive: 'true' });
  expect(attributes.ok && attributes.data.results.map((a) => a.name).sort()).toEqual(['sleep', 'steps', 'walked_the_dog']);
  const withValues = await api.attributesWithValues({ attributes: 'steps' });
  expect(withValues.ok && withValues.data.results[0].values.map((v) => v.value)).toEqual([4250]);
  const values = await api.values({ attribute: 'steps' });
  expect(values.ok && values.data.count).toBe(1);
  const owned = await api.owned();
  expect(owned.ok && owned.data.results.map((a) => a.name).sort()).toEqual(['steps', 'walked_the_dog']);
  for (const result of [await api.correlations(), await api.averages(), await api.insights({ priority: 1 })]) {
    expect(result.ok && result.data.count).toBe(0);
  }
  const combo = await api.correlationCombo({ attribute: 'steps', attribute2: 'sleep' });
  expect(!combo.ok && combo.status).toBe(404);
  const profile = await api.profile();
  expect(profile.ok && profile.data.username).toBe(person.username);
  const token = await createDaybookClient({ baseUrl: app.baseUrl }).simpleToken({ username: person.username, password: 'correct horse battery staple' });
  expect(token.ok && token.data.token).toBe(simpleToken);
});

test('pages() and all() walk a list through next, keeping the query', async () => {
  const days = Array.from({ length: 12 }, (_, i) => new Date(Date.UTC(2026, 0, 1 + i)).toISOString().slice(0, 10));
  await api.acquire([{ template: 'floors' }]);
  await api.update(days.map((date, i) => ({ name: 'floors', date, value: i })));
  const seen: number[] = [];
  for await (const page of api.pages(api.values, { attribute: 'floors', limit: 5, date_max: '2026-01-12' })) {
    expect(page.ok).toBe(true);
    if (page.ok) seen.push(page.data.results.length);
  }
  expect(seen).toEqual([5, 5, 2]);
  const all = await api.all(api.values, { attribute: 'floors', limit: 5, date_max: '2026-01-12' });
  expect(all.ok && all.data.map((v) => v.value)).toEqual([11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
});

test('an expired access token is refreshed once, the call sent again and the new pair reported', async () => {
  const pair = await makeToken(app, person, client, ['activity_read']);
  const stored: TokenResponse[] = [];
  const reader = createDaybookClient({
    baseUrl: app.baseUrl,
    credentials: { accessToken: pair.access_token, refreshToken: pair.refresh_token },
    oauth: { clientId: client.client_id, clientSecret: secret },
    onTokens: (t) => void stored.push(t),
  });
  // The access token expires (its refresh token stays valid, as after a long time offline).
  await app
    .db('tokens')
    .where({ user_id: person.id, client_pk: client.id })
    .whereRaw('scopes = ?', [['activity_read']])
    .update({ access_expires_at: new Date(Date.now() - 1000) });
  const [first, second] = await Promise.all([reader.profile(), reader.attributes()]);
  expect([first.ok, second.ok]).toEqual([true, true]);
  expect(stored).toHaveLength(1);
  expect(reader.tokens()).toEqual({ accessToken: stored[0].access_token, refreshToken: stored[0].refresh_token });
  // The previous refresh token, presented again within the refresh leeway (docs/security.md), is a
  // retry: it answers the very pair the client now holds, never a second one.
  const old = await createOAuthClient({ baseUrl: app.baseUrl, clientId: client.client_id, clientSecret: secret }).refresh(pair.refresh_token);
  expect(old.ok && old.data.refresh_token).toBe(stored[0].refresh_token);
});

test('errors are typed values with the status, the error body and the rate-limit headers', async () => {
  const invalid = await api.attributesWithValues({ days: 40 });
  expect(invalid.ok).toBe(false);
  if (!invalid.ok) {
    expect(invalid.status).toBe(400);
    expect(invalid.error.errors?.[0]).toMatchObject({ in: 'query', name: 'days' });
    expect(invalid.rateLimit.limit).toBe(100000);
    expect(invalid.requestId).toEqual(expect.any(String));
  }
  const forbidden = await createDaybookClient({ baseUrl: app.baseUrl, credentials: { simpleToken } }).update([{ name: 'steps', date: '2026-01-01', value: 1 }]);
  expect(!forbidden.ok && [forbidden.status, forbidden.error.detail]).toEqual([403, expect.stringMatching(/OAuth2/)]);
  const unknown = await createDaybookClient({ baseUrl: app.baseUrl, credentials: { accessToken: 'not-a-token' } }).profile();
  expect(!unknown.ok && unknown.status).toBe(401);
});

test('a rate-limited call answers 429 with Retry-After', async () => {
  const limited = await startTestApp({ RATE_LIMIT_PER_HOUR: '2' });
  try {
    const { simpleToken: token } = await makeUser(limited);
    const reader = createDaybookClient({ baseUrl: limited.baseUrl, credentials: { simpleToken: token } });
    const first = await reader.profile();
    expect(first.rateLimit).toMatchObject({ limit: 2, remaining: 1 });
    await reader.profile();
    const third = await reader.profile();
    expect(third.ok).toBe(false);
    if (!third.ok) {
      expect(third.status).toBe(429);
      expect(third.rateLimit.retryAfter).toBeGreaterThan(0);
      expect(third.error.detail).toMatch(/limit/i);
    }
  } finally {
    await limited.close();
  }
});

test('the OAuth client exchanges a code, and the v1 client reads $self', async () => {
  const code = await issueAuthorisationCode(app.db, {
    userId: person.id,
    clientPk: client.id,
    redirectUri: REDIRECT_URI,
    scopes: ['sleep_read'],
    now: new Date(),
  });
  const oauth = createOAuthClient({ baseUrl: app.baseUrl, clientId: client.client_id, clientSecret: secret });
  const exchanged = await oauth.exchangeCode({ code, redirectUri: REDIRECT_URI });
  expect(exchanged.ok && exchanged.data.scope).toBe('sleep_read');
  const again = await oauth.exchangeCode({ code, redirectUri: REDIRECT_URI });
  expect(!again.ok && isOAuthError(again.error) && again.error.error).toBe('invalid_grant');
  expect(oauth.authorizeUrl({ redirectUri: REDIRECT_URI, scopes: ['sleep_read', 'mood_read'], state: 'xyz' })).toBe(
    `${app.baseUrl}/oauth2/authorize?response_type=code&client_id=${client.client_id}&redirect_uri=https%3A%2F%2Fclient.example.org%2Fcallback&scope=sleep_read+mood_read&state=xyz`,
  );
  const v1 = createV1Client({ baseUrl: app.baseUrl, auth: { simpleToken } });
  const profile = await v1.profile();
  expect(profile.ok && profile.data.username).toBe(person.username);
});

test("the webhooks client manages the app's endpoints with its client credentials", async () => {
  const webhooks = createWebhooksClient({ baseUrl: app.baseUrl, clientId: client.client_id, clientSecret: secret });
  const created = await webhooks.create({ url: 'http://127.0.0.1:9/hooks', events: ['values.updated'] });
  expect(created.ok && created.status).toBe(201);
  if (!created.ok) return;
  const { id, secret: signingSecret } = created.data;
  expect(signingSecret).toMatch(/^whsec_/);
  const listed = await webhooks.list();
  expect(listed.ok && listed.data.results.map((e) => e.id)).toEqual([id]);
  const changed = await webhooks.update(id, { events: ['derived.updated'] });
  expect(changed.ok && changed.data.events).toEqual(['derived.updated']);
  const fetched = await webhooks.get(id);
  expect(fetched.ok && fetched.data.events).toEqual(['derived.updated']);
  const rotated = await webhooks.rotateSecret(id);
  expect(rotated.ok && rotated.data.secret).not.toBe(signingSecret);
  const deliveries = await webhooks.deliveries(id);
  expect(deliveries.ok && deliveries.data.count).toBe(0);
  const deleted = await webhooks.delete(id);
  expect(deleted.status).toBe(204);
  const gone = await webhooks.get(id);
  expect(!gone.ok && gone.status).toBe(404);
  const refused = await createWebhooksClient({ baseUrl: app.baseUrl, clientId: client.client_id, clientSecret: 'wrong' }).list();
  expect(!refused.ok && refused.status).toBe(401);
});

test('a code issued for a PKCE challenge is exchanged with its verifier, and refused with another', async () => {
  const oauth = createOAuthClient({ baseUrl: app.baseUrl, clientId: client.client_id, clientSecret: secret });
  const pkce = createPkce();
  const issue = () =>
    issueAuthorisationCode(app.db, {
      userId: person.id,
      clientPk: client.id,
      redirectUri: REDIRECT_URI,
      scopes: ['sleep_read'],
      codeChallenge: pkce.codeChallenge,
      now: new Date(),
    });
  const url = new URL(oauth.authorizeUrl({ redirectUri: REDIRECT_URI, scopes: ['sleep_read'], codeChallenge: pkce.codeChallenge }));
  expect([url.searchParams.get('code_challenge'), url.searchParams.get('code_challenge_method')]).toEqual([pkce.codeChallenge, 'S256']);
  const exchanged = await oauth.exchangeCode({ code: await issue(), redirectUri: REDIRECT_URI, codeVerifier: pkce.codeVerifier });
  expect(exchanged.ok && exchanged.data.scope).toBe('sleep_read');
  const wrong = await oauth.exchangeCode({ code: await issue(), redirectUri: REDIRECT_URI, codeVerifier: createPkce().codeVerifier });
  expect(!wrong.ok && isOAuthError(wrong.error) && wrong.error.error).toBe('invalid_grant');
});

test("the v1 client reads an attribute's insights and averages", async () => {
  const v1 = createV1Client({ baseUrl: app.baseUrl, auth: { simpleToken } });
  const insights = await v1.attributeInsights('steps');
  expect(insights.ok && insights.status).toBe(200);
  const averages = await v1.attributeAverages('steps');
  expect(averages.ok && averages.status).toBe(200);
});

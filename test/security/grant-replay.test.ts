/**
 * Finding 7: only the right client can burn a code. The client binding is checked before the replay
 * check: another client presenting a used code gets invalid_grant and changes nothing (the victim's
 * tokens keep working, an unused code stays usable), while the rightful client's replay still
 * revokes the grant. Refresh tokens follow issue 30 (docs/security.md, "The refresh leeway"): a
 * replaced refresh token presented by any client revokes the grant (RFC 9700 section 4.14.2); a
 * live one presented by another client changes nothing.
 */
import { startTestApp, type TestApp } from '../support/app';
import { makeSession, makeUser } from '../support/fixtures';
import { REDIRECT_URI, authorizeCode, registerApp, tokenRequest } from '../support/web';
import { REFRESH_LEEWAY_MS } from '../../src/domain/apps-and-grants/refresh-retry';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterEach(() => {
  app.setNow(undefined);
});
afterAll(async () => {
  await app.close();
});

async function setUp() {
  const { user } = await makeUser(app);
  const session = await makeSession(app, user);
  const victim = await registerApp(app, user, { name: 'Victim app' });
  // The attacker's own, properly registered confidential client (any developer can make one).
  const { user: developer } = await makeUser(app);
  const attacker = await registerApp(app, developer, { name: 'Attacker app' });
  const code = await authorizeCode(app, session, { client_id: victim.client.client_id, redirect_uri: REDIRECT_URI, scope: 'mood_read' });
  const as = (who: typeof victim) => ({ client_id: who.client.client_id, client_secret: who.secret! });
  return { victim, attacker, code, as };
}

const exchange = (code: string, credentials: Record<string, string>) =>
  tokenRequest(app, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, ...credentials });
const refresh = (refreshToken: string, credentials: Record<string, string>) =>
  tokenRequest(app, { grant_type: 'refresh_token', refresh_token: refreshToken, ...credentials });
const profile = (token: string) => app.get('/api/2/accounts/profile/', { bearer: token });

test("a used code presented by another client is invalid_grant and the victim's tokens keep working", async () => {
  const { victim, attacker, code, as } = await setUp();
  const tokens = await exchange(code, as(victim));
  expect(tokens.status).toBe(200);
  const replay = await exchange(code, as(attacker));
  expect([replay.status, replay.body.error]).toEqual([400, 'invalid_grant']);
  expect(replay.body.error_description).toBe('The authorisation code is unknown, expired or was already used.');
  expect((await profile(tokens.body.access_token)).status).toBe(200);
  expect((await refresh(tokens.body.refresh_token, as(victim))).status).toBe(200);
});

test('an unused code presented by another client is invalid_grant and stays usable by its own client', async () => {
  const { victim, attacker, code, as } = await setUp();
  expect((await exchange(code, as(attacker))).body.error).toBe('invalid_grant');
  expect((await exchange(code, as(victim))).status).toBe(200);
});

test("the rightful client's replay of a used code still revokes the grant", async () => {
  const { victim, code, as } = await setUp();
  const tokens = await exchange(code, as(victim));
  expect((await exchange(code, as(victim))).body.error).toBe('invalid_grant');
  expect((await profile(tokens.body.access_token)).status).toBe(401);
});

test('an old refresh token presented by another client is invalid_grant, learns nothing, and revokes the grant', async () => {
  const { victim, attacker, code, as } = await setUp();
  const first = await exchange(code, as(victim));
  const second = await refresh(first.body.refresh_token, as(victim));
  expect(second.status).toBe(200);
  const replay = await refresh(first.body.refresh_token, as(attacker));
  expect([replay.status, replay.body.error]).toEqual([400, 'invalid_grant']);
  expect(replay.body.error_description).toBe('The refresh token is unknown.');
  expect((await profile(second.body.access_token)).status).toBe(401);
  expect((await refresh(second.body.refresh_token, as(victim))).body.error).toBe('invalid_grant');
});

test("a live refresh token presented by another client is invalid_grant and the victim's tokens keep working", async () => {
  const { victim, attacker, code, as } = await setUp();
  const tokens = await exchange(code, as(victim));
  const stolen = await refresh(tokens.body.refresh_token, as(attacker));
  expect([stolen.status, stolen.body.error_description]).toEqual([400, 'The refresh token is unknown.']);
  expect((await profile(tokens.body.access_token)).status).toBe(200);
  expect((await refresh(tokens.body.refresh_token, as(victim))).status).toBe(200);
});

test("the rightful client's replay of an old refresh token still revokes the grant", async () => {
  const { victim, code, as } = await setUp();
  const first = await exchange(code, as(victim));
  const second = await refresh(first.body.refresh_token, as(victim));
  // After the refresh leeway (token-endpoint-attacks.test.ts): a replay, not a retry.
  app.setNow(new Date(Date.now() + REFRESH_LEEWAY_MS + 1000));
  expect((await refresh(first.body.refresh_token, as(victim))).body.error).toBe('invalid_grant');
  expect((await profile(second.body.access_token)).status).toBe(401);
});

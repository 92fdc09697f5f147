/**
 * Issue 30, item 3: a password change ends every credential someone who knew the old password
 * could hold (docs/security.md, "A password change ends credentials"). Before the fix, after a
 * change (other sessions ended) the simple token and the apps' OAuth tokens still answered 200.
 * Each credential is used once before the change, so the instance remembers it
 * (recent-credentials.ts): the change must reach a remembered credential too.
 */
import { startTestApp, type TestApp } from '../support/app';
import { makeSession, makeToken, makeUser } from '../support/fixtures';
import { PAGE, csrfOf, registerApp, tokenRequest } from '../support/web';
import { createEndpoint } from '../../src/domain/webhooks/endpoints';
import type { User } from '../../src/domain/identity/users';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

const NEW_PASSWORD = 'a brand new secret';

/** Changes the password on the account page, with the apps box ticked or not. */
async function changePassword(session: string, password: string, disconnectApps: boolean) {
  const page = await app.get('/settings/account', { ...PAGE, session });
  expect(page.text).toMatch(/<input type="checkbox" name="disconnect_apps" value="1" checked>/);
  const form: Record<string, string> = { csrf_token: csrfOf(page.text), current_password: password, new_password: NEW_PASSWORD, repeat_password: NEW_PASSWORD };
  if (disconnectApps) form.disconnect_apps = '1';
  return app.post('/settings/account/password', { ...PAGE, session, form });
}

/** An app the person connected, its tokens, and a webhook endpoint listening for grant.revoked. */
async function connectedApp(user: User, name: string) {
  const { client, secret } = await registerApp(app, user, { name });
  await createEndpoint(app.db, client.id, { url: 'http://127.0.0.1:9/hooks', events: ['grant.revoked'] }, true);
  const tokens = await makeToken(app, user, client, ['activity_read']);
  return { client, secret: secret!, tokens };
}

const profileWith = (headers: Record<string, string>) => app.get('/api/2/accounts/profile/', { headers });
const refresh = (a: Awaited<ReturnType<typeof connectedApp>>) =>
  tokenRequest(app, { grant_type: 'refresh_token', refresh_token: a.tokens.refresh_token, client_id: a.client.client_id, client_secret: a.secret });
const grantRevokedEvents = (user: User) => app.db('webhook_events').where({ user_id: user.id, type: 'grant.revoked' }).select('client_pk');

test('an attacker holding the simple token loses it when the owner changes her password; the new token works', async () => {
  const { user, simpleToken, password } = await makeUser(app);
  const session = await makeSession(app, user);
  expect((await profileWith({ Authorization: `Token ${simpleToken}` })).status).toBe(200);

  const changed = await changePassword(session, password, false);
  expect(changed.status).toBe(200);
  expect(changed.text).toContain('Your simple token has been replaced');
  expect(changed.text).toContain('<a href="/settings/simple-token">Simple token</a>');

  const old = await profileWith({ Authorization: `Token ${simpleToken}` });
  expect(old.status).toBe(401);
  const page = await app.get('/settings/simple-token', { ...PAGE, session });
  const fresh = /<code class="secret" id="simple-token">([^<]+)<\/code>/.exec(page.text)![1];
  expect(fresh).not.toBe(simpleToken);
  expect((await profileWith({ Authorization: `Token ${fresh}` })).body.username).toBe(user.username);
});

test("an attacker's app grant (access and refresh token) ends when the owner ticks the box, with grant.revoked sent, and the page names the apps", async () => {
  const { user, password } = await makeUser(app);
  const session = await makeSession(app, user);
  const first = await connectedApp(user, 'Sneaky Sync');
  const second = await connectedApp(user, 'Step Counter');
  expect((await profileWith({ Authorization: `Bearer ${first.tokens.access_token}` })).status).toBe(200);

  const changed = await changePassword(session, password, true);
  expect(changed.status).toBe(200);
  expect(changed.text).toMatch(/Disconnected 2 apps: (Sneaky Sync, Step Counter|Step Counter, Sneaky Sync)\./);

  for (const connected of [first, second]) {
    expect((await profileWith({ Authorization: `Bearer ${connected.tokens.access_token}` })).status).toBe(401);
    const refused = await refresh(connected);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe('invalid_grant');
  }
  const events = await grantRevokedEvents(user);
  expect(events.map((e) => Number(e.client_pk)).sort()).toEqual([first.client.id, second.client.id].sort());
});

test('with the box unticked the apps stay connected: their access and refresh tokens keep working', async () => {
  const { user, password } = await makeUser(app);
  const session = await makeSession(app, user);
  const connected = await connectedApp(user, 'Kept App');

  const changed = await changePassword(session, password, false);
  expect(changed.status).toBe(200);
  expect(changed.text).toContain('No app was disconnected.');
  expect((await profileWith({ Authorization: `Bearer ${connected.tokens.access_token}` })).status).toBe(200);
  expect((await refresh(connected)).status).toBe(200);
  expect(await grantRevokedEvents(user)).toEqual([]);
});

test("an attacker's browser session ends at the owner's password change; hers stays, and the page counts what ended", async () => {
  const { user, password } = await makeUser(app);
  const here = await makeSession(app, user);
  const attackers = [await makeSession(app, user), await makeSession(app, user)];

  const changed = await changePassword(here, password, true);
  expect(changed.text).toContain('Your password has been changed. Logged out 2 other sessions.');
  expect(changed.text).toContain('No app was disconnected.');
  expect((await app.get('/settings/account', { ...PAGE, session: here })).status).toBe(200);
  for (const session of attackers) {
    expect((await app.get('/settings/account', { ...PAGE, session })).status).toBe(303);
    expect((await app.get('/api/2/accounts/profile/', { session })).status).toBe(401);
  }
});

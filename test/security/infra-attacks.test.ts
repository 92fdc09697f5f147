/**
 * Issue 30, item 6 (the infrastructure findings): a native app's loopback redirect URI on the port
 * its system gave it (RFC 8252 section 7.3), without opening any other door.
 * Webhook URLs and the embedded PostgreSQL's role have files of their own in this folder
 * (webhook-port-scan.test.ts, embedded-superuser.test.ts).
 */
import { startTestApp, type TestApp } from '../support/app';
import { makeSession, makeUser } from '../support/fixtures';
import { PAGE, authorizeCode, authorizePath, decide, locationQuery, registerApp, tokenRequest } from '../support/web';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

async function nativeApp(redirectUris: string[]) {
  const { user } = await makeUser(app);
  const session = await makeSession(app, user);
  const registered = await registerApp(app, user, { redirectUris, name: 'Native app' });
  return { session, clientId: registered.client.client_id, secret: registered.secret! };
}

const REGISTERED = ['http://127.0.0.1/callback', 'http://[::1]:8080/cb', 'http://localhost:3000/done?app=1'];

test('a loopback redirect URI registered without a port (or with another) is accepted on the port the app listens on', async () => {
  const { session, clientId, secret } = await nativeApp(REGISTERED);
  for (const used of ['http://127.0.0.1:51234/callback', 'http://[::1]/cb', 'http://[::1]:49152/cb', 'http://localhost:65535/done?app=1']) {
    const code = await authorizeCode(app, session, { client_id: clientId, redirect_uri: used, scope: 'mood_read', state: 's' });
    // The exchange wants the very URI of the authorisation request, port included.
    const otherPort = used.replace(/(\]|1|t)(:\d+)?\//, '$1:1/');
    const wrong = await tokenRequest(app, { grant_type: 'authorization_code', code, redirect_uri: otherPort, client_id: clientId, client_secret: secret });
    expect([wrong.status, wrong.body.error, wrong.body.error_description]).toEqual([
      400,
      'invalid_grant',
      'The redirect_uri differs from the one in the authorisation request: send that one (the code stays usable until it is exchanged or expires).',
    ]);
    const code2 = await authorizeCode(app, session, { client_id: clientId, redirect_uri: used, scope: 'mood_read' });
    const right = await tokenRequest(app, { grant_type: 'authorization_code', code: code2, redirect_uri: used, client_id: clientId, client_secret: secret });
    expect(right.status).toBe(200);
  }
});

test('the authorisation response, allowed or refused, goes to the port the request named', async () => {
  const { session, clientId } = await nativeApp(REGISTERED);
  const params = { client_id: clientId, redirect_uri: 'http://127.0.0.1:40000/callback', scope: 'mood_read', state: 'x' };
  for (const decision of ['allow', 'deny'] as const) {
    const res = await decide(app, session, params, decision);
    expect(res.status).toBe(303);
    const location = new URL(res.headers.get('location')!);
    expect([location.origin, location.pathname]).toEqual(['http://127.0.0.1:40000', '/callback']);
    expect(locationQuery(res).get(decision === 'allow' ? 'code' : 'error')).toBeTruthy();
  }
});

test('only the port may differ: path, query, scheme, host and non-loopback URIs still match exactly', async () => {
  const { session, clientId } = await nativeApp([...REGISTERED, 'https://app.example.org/cb']);
  for (const refused of [
    'http://127.0.0.1:51234/callback2',
    'http://127.0.0.1:51234/callback/',
    'http://127.0.0.1:51234/callback?x=1',
    'http://127.0.0.1:51234/Callback',
    'https://127.0.0.1:51234/callback',
    'http://127.0.0.2:51234/callback',
    'http://localhost:51234/callback',
    'http://127.0.0.1:51234@evil.example/callback',
    'http://127.0.0.1:0/callback',
    'http://127.0.0.1:99999/callback',
    'http://[::1]:8080/cb#frag',
    'http://localhost:3000/done?app=2',
    'https://app.example.org:8443/cb',
  ]) {
    const res = await app.get(authorizePath({ client_id: clientId, redirect_uri: refused, scope: 'mood_read', response_type: 'code' }), { ...PAGE, session });
    expect([refused, res.status, res.headers.get('location')]).toEqual([refused, 400, null]);
  }
});

/** Rule 8: client credentials in the body or by HTTP Basic, and the errors of a failed client authentication. */
import { startTestApp, type TestApp } from '../support/app';
import { makeSession, makeUser } from '../support/fixtures';
import { REDIRECT_URI, authorizeCode, basicAuth, registerApp, tokenRequest } from '../support/web';
import { rotateClientSecret } from '../../src/domain/apps-and-grants/clients';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

async function codeFor(options: { confidential?: boolean } = {}) {
  const { user } = await makeUser(app);
  const session = await makeSession(app, user);
  const { client, secret } = await registerApp(app, user, options);
  const code = await authorizeCode(app, session, { client_id: client.client_id, redirect_uri: REDIRECT_URI, scope: 'mood_read' });
  return { client, secret, code, grant: { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI } };
}

describe('client authentication at the token endpoint', () => {
  test('a wrong client_secret in the body is invalid_client with 400', async () => {
    const { client, grant } = await codeFor();
    const res = await tokenRequest(app, { ...grant, client_id: client.client_id, client_secret: 'wrong' });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_client');
    expect(res.headers.get('www-authenticate')).toBeNull();
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  test('an unknown client_id in the body is invalid_client with 400', async () => {
    const { grant } = await codeFor();
    const res = await tokenRequest(app, { ...grant, client_id: 'nobody', client_secret: 'x' });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_client');
  });

  test('a confidential client without its secret is invalid_client', async () => {
    const { client, grant } = await codeFor();
    expect((await tokenRequest(app, { ...grant, client_id: client.client_id })).body.error).toBe('invalid_client');
  });

  test('no client identification at all is invalid_client', async () => {
    const { grant } = await codeFor();
    const res = await tokenRequest(app, grant);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_client');
  });

  test('failed HTTP Basic client authentication is 401 with WWW-Authenticate: Basic', async () => {
    const { client, grant } = await codeFor();
    for (const headers of [basicAuth(client.client_id, 'wrong'), basicAuth('nobody', 'x'), { Authorization: 'Basic !!!' }]) {
      const res = await tokenRequest(app, grant, headers);
      expect(res.status).toBe(401);
      expect(res.body.error).toBe('invalid_client');
      expect(res.headers.get('www-authenticate')).toMatch(/^Basic /);
      expect(res.headers.get('cache-control')).toBe('no-store');
    }
  });

  test('HTTP Basic and a client_secret in the body together are invalid_request', async () => {
    const { client, secret, grant } = await codeFor();
    const res = await tokenRequest(app, { ...grant, client_secret: secret! }, basicAuth(client.client_id, secret!));
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_request');
  });

  test('HTTP Basic credentials are form-decoded (RFC 6749 section 2.3.1)', async () => {
    const { client, secret, grant } = await codeFor();
    const encoded = { Authorization: `Basic ${Buffer.from(`${encodeURIComponent(client.client_id)}:${encodeURIComponent(secret!)}`).toString('base64')}` };
    expect((await tokenRequest(app, grant, encoded)).status).toBe(200);
  });

  test('a public client that sends a client_secret is invalid_client', async () => {
    const { user } = await makeUser(app);
    const { client } = await registerApp(app, user, { confidential: false });
    const res = await tokenRequest(app, { grant_type: 'refresh_token', refresh_token: 'x', client_id: client.client_id, client_secret: 'made-up' });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_client');
  });

  test('a built-in service (daybook) may not use OAuth grants: unauthorized_client', async () => {
    const res = await tokenRequest(app, { grant_type: 'refresh_token', refresh_token: 'x', client_id: 'daybook' });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('unauthorized_client');
  });

  test('a rotated-away client secret no longer authenticates', async () => {
    const { client, secret, grant } = await codeFor();
    const fresh = await rotateClientSecret(app.db, client);
    expect((await tokenRequest(app, { ...grant, client_id: client.client_id, client_secret: secret! })).body.error).toBe('invalid_client');
    expect((await tokenRequest(app, { ...grant, client_id: client.client_id, client_secret: fresh })).status).toBe(200);
  });
});

/** RFC 7009 token revocation at POST /oauth2/revoke (docs/security.md, "OAuth2"). */
import { startTestApp, type TestApp } from '../support/app';
import { makeSession, makeUser } from '../support/fixtures';
import { REDIRECT_URI, authorizeCode, basicAuth, pkcePair, registerApp, tokenRequest } from '../support/web';
import type { User } from '../../src/domain/identity/users';
import type { OAuthClient } from '../../src/domain/apps-and-grants/clients';
import { listConnectedApps } from '../../src/domain/apps-and-grants/connected-apps';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

interface Granted {
  user: User;
  client: OAuthClient;
  secret: string | undefined;
  /** client_id (and client_secret) as body parameters. */
  credentials: Record<string, string>;
  tokens: { access_token: string; refresh_token: string };
}

/** A person's consent and the code exchange, over HTTP; `to` reuses a person and an app for a second grant. */
async function grant(options: { confidential?: boolean; to?: Pick<Granted, 'user' | 'client' | 'secret'> } = {}): Promise<Granted> {
  const user = options.to?.user ?? (await makeUser(app)).user;
  const registered = options.to ?? (await registerApp(app, user, { confidential: options.confidential ?? true }));
  const { client, secret } = registered;
  const session = await makeSession(app, user);
  const { verifier, challenge } = pkcePair();
  const code = await authorizeCode(app, session, {
    client_id: client.client_id,
    redirect_uri: REDIRECT_URI,
    scope: 'activity_read activity_write',
    code_challenge: challenge,
    code_challenge_method: 'S256',
  });
  const credentials: Record<string, string> = { client_id: client.client_id, ...(secret ? { client_secret: secret } : {}) };
  const res = await tokenRequest(app, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: verifier, ...credentials });
  expect(res.status).toBe(200);
  return { user, client, secret, credentials, tokens: res.body };
}

const revoke = (form: Record<string, string>, headers: Record<string, string> = {}) => app.post('/oauth2/revoke', { form, headers });
const profile = (token: string) => app.get('/api/2/accounts/profile/', { bearer: token });
const refresh = (g: Granted, refreshToken = g.tokens.refresh_token) =>
  tokenRequest(app, { grant_type: 'refresh_token', refresh_token: refreshToken, ...g.credentials });

/** The token still works: the API answers with it and (for a refresh token) a refresh succeeds. */
async function expectGrantLive(g: Granted): Promise<void> {
  expect((await profile(g.tokens.access_token)).status).toBe(200);
}

async function expectGrantEnded(g: Granted): Promise<void> {
  const api = await profile(g.tokens.access_token);
  expect(api.status).toBe(401);
  expect(api.headers.get('www-authenticate')).toContain('error="invalid_token"');
  const refreshed = await refresh(g);
  expect(refreshed.status).toBe(400);
  expect(refreshed.body.error).toBe('invalid_grant');
}

describe('POST /oauth2/revoke', () => {
  test('revoking a refresh token answers 200 with an empty body, and ends the grant: its access token is 401 and the refresh token invalid_grant', async () => {
    const g = await grant();
    await expectGrantLive(g);
    const res = await revoke({ token: g.tokens.refresh_token, token_type_hint: 'refresh_token', ...g.credentials });
    expect(res.status).toBe(200);
    expect(res.text).toBe('');
    expect(res.headers.get('cache-control')).toBe('no-store');
    await expectGrantEnded(g);
  });

  test('revoking an access token (client authenticated by HTTP Basic) ends the grant too, its refresh token included', async () => {
    const g = await grant();
    const res = await revoke({ token: g.tokens.access_token, token_type_hint: 'access_token' }, basicAuth(g.client.client_id, g.secret!));
    expect(res.status).toBe(200);
    await expectGrantEnded(g);
  });

  test('a token the API remembered from its last requests answers 401 at the very next request after revocation', async () => {
    const g = await grant();
    // The first use records "last used"; the next ones are served from the remembered credential.
    for (let i = 0; i < 3; i += 1) await expectGrantLive(g);
    expect((await revoke({ token: g.tokens.access_token, ...g.credentials })).status).toBe(200);
    expect((await profile(g.tokens.access_token)).status).toBe(401);
  });

  test('the hint is only a hint: a refresh token sent with token_type_hint=access_token, or none, is found and revoked', async () => {
    const wrongHint = await grant();
    expect((await revoke({ token: wrongHint.tokens.refresh_token, token_type_hint: 'access_token', ...wrongHint.credentials })).status).toBe(200);
    await expectGrantEnded(wrongHint);
    const noHint = await grant();
    expect((await revoke({ token: noHint.tokens.refresh_token, ...noHint.credentials })).status).toBe(200);
    await expectGrantEnded(noHint);
  });

  test('the pair a refresh issued belongs to the same grant: revoking the new refresh token ends it', async () => {
    const g = await grant();
    const next = await refresh(g);
    expect(next.status).toBe(200);
    const renewed: Granted = { ...g, tokens: next.body };
    expect((await revoke({ token: renewed.tokens.refresh_token, ...g.credentials })).status).toBe(200);
    await expectGrantEnded(renewed);
  });

  test('a public client revokes with its client_id alone', async () => {
    const g = await grant({ confidential: false });
    expect(g.secret).toBeUndefined();
    expect((await revoke({ token: g.tokens.refresh_token, client_id: g.client.client_id })).status).toBe(200);
    await expectGrantEnded(g);
  });

  test("another app's token answers 200 and is left alone", async () => {
    const victim = await grant();
    const other = await registerApp(app, victim.user, { name: 'Other app' });
    for (const token of [victim.tokens.access_token, victim.tokens.refresh_token]) {
      const res = await revoke({ token, client_id: other.client.client_id, client_secret: other.secret! });
      expect(res.status).toBe(200);
    }
    await expectGrantLive(victim);
    expect((await refresh(victim)).status).toBe(200);
  });

  test('an unknown token, or one already revoked, answers 200', async () => {
    const g = await grant();
    expect((await revoke({ token: 'not-a-token-daybook-ever-issued', ...g.credentials })).status).toBe(200);
    expect((await revoke({ token: g.tokens.access_token, ...g.credentials })).status).toBe(200);
    expect((await revoke({ token: g.tokens.access_token, ...g.credentials })).status).toBe(200);
    expect((await revoke({ token: g.tokens.refresh_token, ...g.credentials })).status).toBe(200);
  });

  test('a wrong client secret by HTTP Basic is 401 invalid_client with a Basic challenge, and revokes nothing', async () => {
    const g = await grant();
    const res = await revoke({ token: g.tokens.refresh_token }, basicAuth(g.client.client_id, 'wrong-secret'));
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Basic realm="daybook"');
    expect(res.body.error).toBe('invalid_client');
    await expectGrantLive(g);
  });

  test('a wrong client secret or an unknown client in the body is 400 invalid_client; no client authentication at all too', async () => {
    const g = await grant();
    const wrong = await revoke({ token: g.tokens.refresh_token, client_id: g.client.client_id, client_secret: 'wrong-secret' });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toBe('invalid_client');
    const unknown = await revoke({ token: g.tokens.refresh_token, client_id: 'nobody-9x', client_secret: 'whatever' });
    expect(unknown.body.error).toBe('invalid_client');
    const none = await revoke({ token: g.tokens.refresh_token });
    expect(none.status).toBe(400);
    expect(none.body.error).toBe('invalid_client');
    await expectGrantLive(g);
  });

  test('a missing token is invalid_request; a repeated one too', async () => {
    const g = await grant();
    const missing = await revoke({ ...g.credentials });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ error: 'invalid_request', error_description: expect.stringContaining('token') });
    const repeated = await app.post('/oauth2/revoke', {
      form: [['token', g.tokens.access_token], ['token', g.tokens.refresh_token], ...Object.entries(g.credentials)],
    });
    expect(repeated.status).toBe(400);
    expect(repeated.body.error).toBe('invalid_request');
    await expectGrantLive(g);
  });

  test('a token_type_hint naming a kind of token Daybook does not issue is unsupported_token_type', async () => {
    const g = await grant();
    const res = await revoke({ token: g.tokens.access_token, token_type_hint: 'id_token', ...g.credentials });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('unsupported_token_type');
    await expectGrantLive(g);
  });

  test('a JSON body is accepted; a body of another media type is 415 invalid_request', async () => {
    const g = await grant();
    expect((await app.post('/oauth2/revoke', { json: { token: g.tokens.refresh_token, ...g.credentials } })).status).toBe(200);
    await expectGrantEnded(g);
    const plain = await app.post('/oauth2/revoke', { raw: 'token=x', headers: { 'Content-Type': 'text/plain' } });
    expect(plain.status).toBe(415);
    expect(plain.body.error).toBe('invalid_request');
  });

  test('a web page on another origin may call it: preflight answered, answers readable', async () => {
    const preflight = await app.request('OPTIONS', '/oauth2/revoke', {
      unvalidated: true,
      headers: { Origin: 'https://app.example.net', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    const g = await grant({ confidential: false });
    const res = await revoke(
      { token: g.tokens.refresh_token, client_id: g.client.client_id },
      { Origin: 'https://app.example.net', 'Sec-Fetch-Site': 'cross-site' },
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    await expectGrantEnded(g);
  });
});

describe("revocation and the person's connected apps", () => {
  const connectedApps = async (user: User) => (await listConnectedApps(app.db, user.id, app.deps.now())).map((connected) => connected.clientId);

  test('the last grant revoked disconnects the app and records grant.revoked for its webhooks; while another grant lives, neither', async () => {
    const first = await grant();
    const auth = basicAuth(first.client.client_id, first.secret!);
    const hook = await app.post('/api/2/webhooks/', { headers: auth, json: { url: 'http://127.0.0.1:9/hooks', events: ['grant.revoked'] } });
    expect(hook.status).toBe(201);
    const second = await grant({ to: first });
    const events = () => app.db('webhook_events').where({ user_id: first.user.id, client_pk: first.client.id, type: 'grant.revoked' });

    expect((await revoke({ token: first.tokens.refresh_token, ...first.credentials })).status).toBe(200);
    await expectGrantEnded(first);
    await expectGrantLive(second);
    expect(await connectedApps(first.user)).toEqual([first.client.client_id]);
    expect(await events()).toHaveLength(0);

    expect((await revoke({ token: second.tokens.access_token, ...second.credentials })).status).toBe(200);
    await expectGrantEnded(second);
    expect(await connectedApps(first.user)).toEqual([]);
    expect(await events()).toHaveLength(1);
  });
});

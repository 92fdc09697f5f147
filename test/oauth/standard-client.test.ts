/**
 * The whole OAuth flow driven by a maintained, standards-strict OAuth client library
 * (oauth4webapi), not by Daybook's own client: discovery from the issuer alone (RFC 8414, the
 * issuer compared exactly), the authorisation code with PKCE, the authorisation response validated
 * with its `iss` (RFC 9207), the code exchange, a v2 call, a refresh and a revocation (RFC 7009).
 * Only the person's consent is given over HTTP the way the other OAuth tests give it.
 *
 * The library refuses plain http unless told otherwise; the test service listens on loopback
 * http, so every request passes its documented `allowInsecureRequests` option.
 */
import * as oauth from 'oauth4webapi';
import { startTestApp, type TestApp } from '../support/app';
import { makeSession, makeUser } from '../support/fixtures';
import { csrfOf, registerApp } from '../support/web';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

/** Loopback redirect URI of a native app (any port, RFC 8252). */
const REDIRECT_URI = 'http://127.0.0.1:53121/callback';
const INSECURE = { [oauth.allowInsecureRequests]: true } as const;

async function discover(): Promise<oauth.AuthorizationServer> {
  const issuer = new URL(app.baseUrl);
  const response = await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...INSECURE });
  return oauth.processDiscoveryResponse(issuer, response);
}

/**
 * The person, logged in, opens the authorisation URL the app built from the metadata and allows
 * it: the consent page's form is posted as a browser would. Returns where Daybook sent the browser back.
 */
async function consent(authorizationUrl: URL, session: string): Promise<URL> {
  const page = await app.get(authorizationUrl.pathname + authorizationUrl.search, { session });
  expect(page.status).toBe(200);
  const form: Record<string, string> = { ...Object.fromEntries(authorizationUrl.searchParams), csrf_token: csrfOf(page.text), decision: 'allow' };
  const answer = await app.post(authorizationUrl.pathname, { session, form });
  expect(answer.status).toBe(303);
  return new URL(answer.headers.get('location')!);
}

/** The authorisation code flow with PKCE up to the token response, as the library runs it. */
async function authorise(as: oauth.AuthorizationServer, client: oauth.Client, auth: oauth.ClientAuth, session: string, scope: string) {
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(as.authorization_endpoint!);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', client.client_id);
  url.searchParams.set('redirect_uri', REDIRECT_URI);
  url.searchParams.set('scope', scope);
  url.searchParams.set('state', state);
  url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(verifier));
  url.searchParams.set('code_challenge_method', 'S256');
  const callback = await consent(url, session);
  // Checks state and that iss is the discovered issuer (the metadata says it is always sent).
  const params = oauth.validateAuthResponse(as, client, callback, state);
  const response = await oauth.authorizationCodeGrantRequest(as, client, auth, params, REDIRECT_URI, verifier, INSECURE);
  return oauth.processAuthorizationCodeResponse(as, client, response);
}

function profile(as: oauth.AuthorizationServer, accessToken: string): Promise<Response> {
  return oauth.protectedResourceRequest(accessToken, 'GET', new URL('/api/2/accounts/profile/', as.issuer), undefined, undefined, INSECURE);
}

/** A call the library refuses because Daybook answered 401 with a Bearer invalid_token challenge. */
async function expectInvalidToken(call: Promise<Response>): Promise<void> {
  const error = await call.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(oauth.WWWAuthenticateChallengeError);
  const challenge = error as oauth.WWWAuthenticateChallengeError;
  expect(challenge.response.status).toBe(401);
  expect(challenge.cause).toEqual([expect.objectContaining({ scheme: 'bearer', parameters: expect.objectContaining({ error: 'invalid_token' }) })]);
}

async function expectInvalidGrant(as: oauth.AuthorizationServer, client: oauth.Client, auth: oauth.ClientAuth, refreshToken: string): Promise<void> {
  const response = await oauth.refreshTokenGrantRequest(as, client, auth, refreshToken, INSECURE);
  await expect(oauth.processRefreshTokenResponse(as, client, response)).rejects.toMatchObject({ error: 'invalid_grant', status: 400 });
}

test('a confidential client (client_secret_basic) discovers, authorises with PKCE, calls v2, refreshes and revokes with oauth4webapi', async () => {
  const { user } = await makeUser(app);
  const session = await makeSession(app, user);
  const registered = await registerApp(app, user, { confidential: true, redirectUris: [REDIRECT_URI] });
  const client: oauth.Client = { client_id: registered.client.client_id };
  const auth = oauth.ClientSecretBasic(registered.secret!);

  const as = await discover();
  expect(as.issuer).toBe(app.baseUrl);
  expect(as.code_challenge_methods_supported).toEqual(['S256']);
  expect(as.revocation_endpoint).toBe(`${app.baseUrl}/oauth2/revoke`);

  const tokens = await authorise(as, client, auth, session, 'activity_read activity_write');
  expect(tokens.token_type).toBe('bearer'); // the library lower-cases it
  expect(tokens.scope).toBe('activity_read activity_write');
  expect(tokens.refresh_token).toEqual(expect.any(String));

  const first = await profile(as, tokens.access_token);
  expect(first.status).toBe(200);
  expect(((await first.json()) as { username: string }).username).toBe(user.username);

  const refreshed = await oauth.processRefreshTokenResponse(
    as,
    client,
    await oauth.refreshTokenGrantRequest(as, client, auth, tokens.refresh_token!, INSECURE),
  );
  expect(refreshed.access_token).not.toBe(tokens.access_token);
  expect((await profile(as, refreshed.access_token)).status).toBe(200);
  await expectInvalidToken(profile(as, tokens.access_token));

  const revoked = await oauth.revocationRequest(as, client, auth, refreshed.refresh_token!, {
    additionalParameters: { token_type_hint: 'refresh_token' },
    ...INSECURE,
  });
  await expect(oauth.processRevocationResponse(revoked)).resolves.toBeUndefined();
  await expectInvalidToken(profile(as, refreshed.access_token));
  await expectInvalidGrant(as, client, auth, refreshed.refresh_token!);
});

test('a public client (auth method none) runs the same flow and revokes its access token, which ends the grant', async () => {
  const { user } = await makeUser(app);
  const session = await makeSession(app, user);
  const registered = await registerApp(app, user, { confidential: false, redirectUris: [REDIRECT_URI] });
  const client: oauth.Client = { client_id: registered.client.client_id, token_endpoint_auth_method: 'none' };
  const auth = oauth.None();

  const as = await discover();
  const tokens = await authorise(as, client, auth, session, 'sleep_read');
  expect((await profile(as, tokens.access_token)).status).toBe(200);

  await expect(oauth.processRevocationResponse(await oauth.revocationRequest(as, client, auth, tokens.access_token, INSECURE))).resolves.toBeUndefined();
  await expectInvalidToken(profile(as, tokens.access_token));
  await expectInvalidGrant(as, client, auth, tokens.refresh_token!);
});

test("the library refuses an authorisation response whose iss is not the discovered issuer's (a mix-up)", async () => {
  const as = await discover();
  const client: oauth.Client = { client_id: 'any-client' };
  const forged = new URL(`${REDIRECT_URI}?code=abc&state=s&iss=${encodeURIComponent('https://other-server.example.net')}`);
  expect(() => oauth.validateAuthResponse(as, client, forged, 's')).toThrow(/iss/);
  const missing = new URL(`${REDIRECT_URI}?code=abc&state=s`);
  expect(() => oauth.validateAuthResponse(as, client, missing, 's')).toThrow(/iss/);
});

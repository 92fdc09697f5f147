/** Rule 8 (authorization_code) and 11: the code exchange, its bindings and what the tokens can do. */
import { startTestApp, type TestApp } from '../support/app';
import { makeSession, makeUser } from '../support/fixtures';
import { REDIRECT_URI, authorizeCode, basicAuth, pkcePair, registerApp, tokenRequest } from '../support/web';
import { updateClient } from '../../src/domain/apps-and-grants/clients';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
// A test that moves the clock gets the file's clock back, even when one of its assertions fails.
afterEach(() => {
  app.setNow(undefined);
});
afterAll(async () => {
  app.setNow(undefined);
  await app.close();
});

async function setUp(options: { confidential?: boolean } = {}) {
  const { user } = await makeUser(app);
  const session = await makeSession(app, user);
  const { client, secret } = await registerApp(app, user, options);
  return { user, session, client, secret };
}

describe('POST /oauth2/access_token, grant_type=authorization_code', () => {
  test('a valid code, client credentials and the same redirect_uri give the Token response (Bearer, space-separated scope, expires_in 31536000, no-store)', async () => {
    const { session, client, secret } = await setUp();
    const code = await authorizeCode(app, session, {
      client_id: client.client_id,
      redirect_uri: REDIRECT_URI,
      scope: 'activity_read+sleep_write',
      state: 'xyz',
    });
    const res = await tokenRequest(app, {
      grant_type: 'authorization_code',
      code,
      client_id: client.client_id,
      client_secret: secret!,
      redirect_uri: REDIRECT_URI,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body).toEqual({
      access_token: expect.any(String),
      refresh_token: expect.any(String),
      token_type: 'Bearer',
      scope: 'activity_read sleep_write',
      expires_in: 31536000,
    });
  });

  test('the token endpoint accepts a JSON body as well as a form', async () => {
    const { session, client, secret } = await setUp();
    const code = await authorizeCode(app, session, { client_id: client.client_id, redirect_uri: REDIRECT_URI, scope: 'mood_read' });
    const res = await app.post('/oauth2/access_token', {
      json: { grant_type: 'authorization_code', code, client_id: client.client_id, client_secret: secret, redirect_uri: REDIRECT_URI },
    });
    expect(res.status).toBe(200);
    expect(res.body.scope).toBe('mood_read');
  });

  test('client credentials may come by HTTP Basic instead of the body', async () => {
    const { session, client, secret } = await setUp();
    const code = await authorizeCode(app, session, { client_id: client.client_id, redirect_uri: REDIRECT_URI, scope: 'mood_read' });
    const res = await tokenRequest(app, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI }, basicAuth(client.client_id, secret!));
    expect(res.status).toBe(200);
  });

  test('an authorisation code used twice is invalid_grant and revokes the tokens issued from it', async () => {
    const { session, client, secret } = await setUp();
    const code = await authorizeCode(app, session, { client_id: client.client_id, redirect_uri: REDIRECT_URI, scope: 'mood_read' });
    const form = { grant_type: 'authorization_code', code, client_id: client.client_id, client_secret: secret!, redirect_uri: REDIRECT_URI };
    const first = await tokenRequest(app, form);
    expect(first.status).toBe(200);
    expect((await app.get('/api/2/accounts/profile/', { bearer: first.body.access_token })).status).toBe(200);
    const second = await tokenRequest(app, form);
    expect(second.status).toBe(400);
    expect(second.body.error).toBe('invalid_grant');
    const after = await app.get('/api/2/accounts/profile/', { bearer: first.body.access_token });
    expect(after.status).toBe(401);
    expect(after.headers.get('www-authenticate')).toContain('error="invalid_token"');
    const refresh = await tokenRequest(app, {
      grant_type: 'refresh_token',
      refresh_token: first.body.refresh_token,
      client_id: client.client_id,
      client_secret: secret!,
    });
    expect(refresh.body.error).toBe('invalid_grant');
  });

  test('an authorisation code expires after 10 minutes (invalid_grant)', async () => {
    const { session, client, secret } = await setUp();
    const issued = new Date('2026-11-22T10:00:00Z');
    app.setNow(issued);
    const early = await authorizeCode(app, session, { client_id: client.client_id, redirect_uri: REDIRECT_URI, scope: 'mood_read' });
    const late = await authorizeCode(app, session, { client_id: client.client_id, redirect_uri: REDIRECT_URI, scope: 'mood_read' });
    const form = (code: string) => ({
      grant_type: 'authorization_code',
      code,
      client_id: client.client_id,
      client_secret: secret!,
      redirect_uri: REDIRECT_URI,
    });
    app.setNow(new Date(issued.getTime() + 10 * 60 * 1000 - 1000));
    expect((await tokenRequest(app, form(early))).status).toBe(200);
    app.setNow(new Date(issued.getTime() + 10 * 60 * 1000));
    const res = await tokenRequest(app, form(late));
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_grant');
    expect(res.body.error_description).toMatch(/expired/);
    app.setNow(undefined);
  });

  test('a code is bound to its client: another client presenting it gets invalid_grant', async () => {
    const { user, session, client } = await setUp();
    const other = await registerApp(app, user, { name: 'Other' });
    const code = await authorizeCode(app, session, { client_id: client.client_id, redirect_uri: REDIRECT_URI, scope: 'mood_read' });
    const res = await tokenRequest(app, {
      grant_type: 'authorization_code',
      code,
      client_id: other.client.client_id,
      client_secret: other.secret!,
      redirect_uri: REDIRECT_URI,
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_grant');
  });

  test('a code is bound to its redirect_uri: a different one is invalid_grant', async () => {
    const { user, session } = await setUp();
    const { client, secret } = await registerApp(app, user, { redirectUris: [REDIRECT_URI, 'https://client.example.org/other'] });
    const code = await authorizeCode(app, session, { client_id: client.client_id, redirect_uri: REDIRECT_URI, scope: 'mood_read' });
    const res = await tokenRequest(app, {
      grant_type: 'authorization_code',
      code,
      client_id: client.client_id,
      client_secret: secret!,
      redirect_uri: 'https://client.example.org/other',
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_grant');
  });

  test('a code exchanged with the wrong redirect_uri stays usable: the corrected retry gets the tokens, once', async () => {
    const { user, session } = await setUp();
    const { client, secret } = await registerApp(app, user);
    const code = await authorizeCode(app, session, { client_id: client.client_id, redirect_uri: REDIRECT_URI, scope: 'mood_read' });
    const exchange = (redirectUri: string) =>
      tokenRequest(app, { grant_type: 'authorization_code', code, client_id: client.client_id, client_secret: secret!, redirect_uri: redirectUri });
    const slip = await exchange(`${REDIRECT_URI}/`);
    expect([slip.status, slip.body.error]).toEqual([400, 'invalid_grant']);
    expect(slip.body.error_description).toContain('the code stays usable');
    const corrected = await exchange(REDIRECT_URI);
    expect(corrected.status).toBe(200);
    expect((await app.get('/api/2/accounts/profile/', { bearer: corrected.body.access_token })).status).toBe(200);
    // Still single use: a second exchange is a reuse and revokes the tokens of the first.
    expect((await exchange(REDIRECT_URI)).body.error).toBe('invalid_grant');
    expect((await app.get('/api/2/accounts/profile/', { bearer: corrected.body.access_token })).status).toBe(401);
  });

  test("a code whose redirect_uri was removed from the client's registration since it was issued is invalid_grant, and stays burned", async () => {
    const { user, session } = await setUp();
    const other = 'https://client.example.org/other';
    const { client, secret } = await registerApp(app, user, { redirectUris: [REDIRECT_URI, other], scopes: ['mood_read'] });
    const code = await authorizeCode(app, session, { client_id: client.client_id, redirect_uri: other, scope: 'mood_read' });
    const kept = await authorizeCode(app, session, { client_id: client.client_id, redirect_uri: REDIRECT_URI, scope: 'mood_read' });
    await updateClient(app.db, client, { name: client.name, redirectUris: [REDIRECT_URI], scopes: ['mood_read'] }, app.deps.now());
    const form = { grant_type: 'authorization_code', code, client_id: client.client_id, client_secret: secret!, redirect_uri: other };
    const res = await tokenRequest(app, form);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_grant');
    expect(res.body.error_description).toMatch(/no longer registered/);
    await updateClient(app.db, client, { name: client.name, redirectUris: [REDIRECT_URI, other], scopes: ['mood_read'] }, app.deps.now());
    expect((await tokenRequest(app, form)).body.error).toBe('invalid_grant');
    const ok = await tokenRequest(app, { ...form, code: kept, redirect_uri: REDIRECT_URI });
    expect(ok.status).toBe(200);
  });

  test('a code granting a scope the client may no longer ask for is invalid_grant', async () => {
    const { user, session } = await setUp();
    const { client, secret } = await registerApp(app, user, { scopes: ['mood_read', 'sleep_read'] });
    const code = await authorizeCode(app, session, { client_id: client.client_id, redirect_uri: REDIRECT_URI, scope: 'mood_read sleep_read' });
    const within = await authorizeCode(app, session, { client_id: client.client_id, redirect_uri: REDIRECT_URI, scope: 'mood_read' });
    await updateClient(app.db, client, { name: client.name, redirectUris: [REDIRECT_URI], scopes: ['mood_read'] }, app.deps.now());
    const form = { grant_type: 'authorization_code', code, client_id: client.client_id, client_secret: secret!, redirect_uri: REDIRECT_URI };
    const res = await tokenRequest(app, form);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_grant');
    expect(res.body.error_description).toMatch(/no longer ask/);
    const ok = await tokenRequest(app, { ...form, code: within });
    expect(ok.status).toBe(200);
    expect(ok.body.scope).toBe('mood_read');
  });

  test('an unknown code is invalid_grant', async () => {
    const { client, secret } = await setUp();
    const res = await tokenRequest(app, {
      grant_type: 'authorization_code',
      code: 'x'.repeat(43),
      client_id: client.client_id,
      client_secret: secret!,
      redirect_uri: REDIRECT_URI,
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_grant');
  });

  test('a missing code or redirect_uri is invalid_request', async () => {
    const { client, secret } = await setUp();
    const noCode = await tokenRequest(app, {
      grant_type: 'authorization_code',
      client_id: client.client_id,
      client_secret: secret!,
      redirect_uri: REDIRECT_URI,
    });
    expect(noCode.status).toBe(400);
    expect(noCode.body.error).toBe('invalid_request');
    const noRedirect = await tokenRequest(app, { grant_type: 'authorization_code', code: 'abc', client_id: client.client_id, client_secret: secret! });
    expect(noRedirect.body.error).toBe('invalid_request');
  });

  test('a repeated parameter is invalid_request', async () => {
    const { client, secret } = await setUp();
    const res = await tokenRequest(app, [
      ['grant_type', 'authorization_code'],
      ['code', 'a'],
      ['code', 'b'],
      ['client_id', client.client_id],
      ['client_secret', secret!],
      ['redirect_uri', REDIRECT_URI],
    ]);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_request');
  });

  test('a missing grant_type is invalid_request and an unknown one unsupported_grant_type', async () => {
    const { client, secret } = await setUp();
    const missing = await tokenRequest(app, { client_id: client.client_id, client_secret: secret! });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toBe('invalid_request');
    const unknown = await tokenRequest(app, { grant_type: 'password', username: 'a', password: 'b', client_id: client.client_id, client_secret: secret! });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toBe('unsupported_grant_type');
    expect(unknown.headers.get('cache-control')).toBe('no-store');
  });

  test('a malformed JSON body is invalid_request in RFC 6749 form', async () => {
    const res = await app.post('/oauth2/access_token', { raw: '{"grant_type":', headers: { 'Content-Type': 'application/json' } });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_request');
    const array = await app.post('/oauth2/access_token', { json: ['grant_type'] });
    expect(array.status).toBe(400);
    expect(array.body.error).toBe('invalid_request');
  });
});

describe('PKCE (rule 7)', () => {
  test('a public client exchanges its code with the right S256 code_verifier and no secret', async () => {
    const { session, client } = await setUp({ confidential: false });
    const { verifier, challenge } = pkcePair();
    const code = await authorizeCode(app, session, {
      client_id: client.client_id,
      redirect_uri: REDIRECT_URI,
      scope: 'mood_read',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    const res = await tokenRequest(app, {
      grant_type: 'authorization_code',
      code,
      client_id: client.client_id,
      redirect_uri: REDIRECT_URI,
      code_verifier: verifier,
    });
    expect(res.status).toBe(200);
  });

  test('a confidential client may use PKCE too', async () => {
    const { session, client, secret } = await setUp();
    const { verifier, challenge } = pkcePair();
    const code = await authorizeCode(app, session, {
      client_id: client.client_id,
      redirect_uri: REDIRECT_URI,
      scope: 'mood_read',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    const res = await tokenRequest(app, {
      grant_type: 'authorization_code',
      code,
      client_id: client.client_id,
      client_secret: secret!,
      redirect_uri: REDIRECT_URI,
      code_verifier: verifier,
    });
    expect(res.status).toBe(200);
  });

  test('a wrong code_verifier is invalid_grant and burns the code', async () => {
    const { session, client } = await setUp({ confidential: false });
    const { verifier, challenge } = pkcePair();
    const code = await authorizeCode(app, session, {
      client_id: client.client_id,
      redirect_uri: REDIRECT_URI,
      scope: 'mood_read',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    const wrong = await tokenRequest(app, {
      grant_type: 'authorization_code',
      code,
      client_id: client.client_id,
      redirect_uri: REDIRECT_URI,
      code_verifier: pkcePair().verifier,
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toBe('invalid_grant');
    const right = await tokenRequest(app, {
      grant_type: 'authorization_code',
      code,
      client_id: client.client_id,
      redirect_uri: REDIRECT_URI,
      code_verifier: verifier,
    });
    expect(right.status).toBe(400);
    expect(right.body.error).toBe('invalid_grant');
  });

  test('a missing code_verifier is invalid_grant and burns the code', async () => {
    const { session, client, secret } = await setUp();
    const { verifier, challenge } = pkcePair();
    const code = await authorizeCode(app, session, {
      client_id: client.client_id,
      redirect_uri: REDIRECT_URI,
      scope: 'mood_read',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    const form = { grant_type: 'authorization_code', code, client_id: client.client_id, client_secret: secret!, redirect_uri: REDIRECT_URI };
    const missing = await tokenRequest(app, form);
    expect(missing.status).toBe(400);
    expect(missing.body.error).toBe('invalid_grant');
    expect((await tokenRequest(app, { ...form, code_verifier: verifier })).body.error).toBe('invalid_grant');
  });

  test('a code_verifier for a code issued without a challenge is invalid_grant (PKCE downgrade)', async () => {
    const { session, client, secret } = await setUp();
    const code = await authorizeCode(app, session, { client_id: client.client_id, redirect_uri: REDIRECT_URI, scope: 'mood_read' });
    const res = await tokenRequest(app, {
      grant_type: 'authorization_code',
      code,
      client_id: client.client_id,
      client_secret: secret!,
      redirect_uri: REDIRECT_URI,
      code_verifier: pkcePair().verifier,
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_grant');
  });

  test('a code_verifier of the wrong form is invalid_request', async () => {
    const { client } = await setUp({ confidential: false });
    const res = await tokenRequest(app, {
      grant_type: 'authorization_code',
      code: 'abc',
      client_id: client.client_id,
      redirect_uri: REDIRECT_URI,
      code_verifier: 'short',
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_request');
  });
});

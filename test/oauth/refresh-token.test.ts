/** Rule 8 (refresh_token), the Token response and the 365-day lifetime, and rule 11 (using tokens). */
import { startTestApp, type TestApp } from '../support/app';
import { makeSession, makeUser } from '../support/fixtures';
import { REDIRECT_URI, authorizeCode, pkcePair, registerApp, tokenRequest } from '../support/web';
import { REFRESH_LEEWAY_MS } from '../../src/domain/apps-and-grants/refresh-retry';
import { hashCredential } from '../../src/domain/identity/credentials';

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

const DAY_MS = 24 * 60 * 60 * 1000;

async function grant(scope = 'activity_read activity_write sleep_read', options: { confidential?: boolean } = {}) {
  const { user } = await makeUser(app);
  const session = await makeSession(app, user);
  const { client, secret } = await registerApp(app, user, options);
  const { verifier, challenge } = pkcePair();
  const code = await authorizeCode(app, session, {
    client_id: client.client_id,
    redirect_uri: REDIRECT_URI,
    scope,
    code_challenge: challenge,
    code_challenge_method: 'S256',
  });
  const form: Record<string, string> = {
    grant_type: 'authorization_code',
    code,
    client_id: client.client_id,
    redirect_uri: REDIRECT_URI,
    code_verifier: verifier,
  };
  if (secret) form.client_secret = secret;
  const res = await tokenRequest(app, form);
  expect(res.status).toBe(200);
  const credentials: Record<string, string> = { client_id: client.client_id };
  if (secret) credentials.client_secret = secret;
  return { user, client, secret, credentials, tokens: res.body as { access_token: string; refresh_token: string; scope: string } };
}

function refresh(credentials: Record<string, string>, refreshToken: string, extra: Record<string, string> = {}) {
  return tokenRequest(app, { grant_type: 'refresh_token', refresh_token: refreshToken, ...credentials, ...extra });
}

const profile = (token: string) => app.get('/api/2/accounts/profile/', { bearer: token });

describe('POST /oauth2/access_token, grant_type=refresh_token', () => {
  test('returns a new access and refresh token in the Token response shape, with no-store', async () => {
    const { credentials, tokens } = await grant();
    const res = await refresh(credentials, tokens.refresh_token);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body).toEqual({
      access_token: expect.any(String),
      refresh_token: expect.any(String),
      token_type: 'Bearer',
      scope: tokens.scope,
      expires_in: 31536000,
    });
    expect(res.body.access_token).not.toBe(tokens.access_token);
    expect(res.body.refresh_token).not.toBe(tokens.refresh_token);
    expect((await profile(res.body.access_token)).status).toBe(200);
  });

  test('refreshing invalidates the previous access token at once (401 invalid_token)', async () => {
    const { credentials, tokens } = await grant();
    expect((await profile(tokens.access_token)).status).toBe(200);
    expect((await refresh(credentials, tokens.refresh_token)).status).toBe(200);
    const res = await profile(tokens.access_token);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });

  test('a replayed old refresh token (after the 30 s leeway) is invalid_grant and revokes the whole grant', async () => {
    const { credentials, tokens } = await grant();
    const next = await refresh(credentials, tokens.refresh_token);
    app.setNow(new Date(Date.now() + REFRESH_LEEWAY_MS + 1000));
    const replay = await refresh(credentials, tokens.refresh_token);
    expect(replay.status).toBe(400);
    expect(replay.body.error).toBe('invalid_grant');
    expect((await profile(next.body.access_token)).status).toBe(401);
    expect((await refresh(credentials, next.body.refresh_token)).body.error).toBe('invalid_grant');
  });

  test('concurrent refreshes with one token are one exchange: every answer is the same new pair (the leeway)', async () => {
    const { credentials, tokens } = await grant();
    const results = await Promise.all([
      refresh(credentials, tokens.refresh_token),
      refresh(credentials, tokens.refresh_token),
      refresh(credentials, tokens.refresh_token),
    ]);
    expect(results.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(new Set(results.map((r) => `${r.body.access_token} ${r.body.refresh_token}`)).size).toBe(1);
    expect(
      await app.db('tokens').whereIn(
        'grant_id',
        app
          .db('tokens')
          .select('grant_id')
          .where({ refresh_hash: hashCredential(tokens.refresh_token) }),
      ),
    ).toHaveLength(2);
  });

  test('a refresh token is bound to its client: another client gets invalid_grant', async () => {
    const { user, tokens } = await grant();
    const other = await registerApp(app, user, { name: 'Other' });
    const res = await refresh({ client_id: other.client.client_id, client_secret: other.secret! }, tokens.refresh_token);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_grant');
  });

  test('scope can narrow the granted scopes', async () => {
    const { credentials, tokens } = await grant();
    const res = await refresh(credentials, tokens.refresh_token, { scope: 'activity_read' });
    expect(res.status).toBe(200);
    expect(res.body.scope).toBe('activity_read');
  });

  test('scope can never widen the granted scopes: invalid_scope, and the token still works', async () => {
    const { credentials, tokens } = await grant();
    const res = await refresh(credentials, tokens.refresh_token, { scope: 'activity_read sleep_write' });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_scope');
    expect(res.body.error_description).toContain('sleep_write');
    expect((await refresh(credentials, tokens.refresh_token)).status).toBe(200);
  });

  test('narrowing a version 1 read grant to one group is allowed', async () => {
    const { credentials, tokens } = await grant('read');
    const res = await refresh(credentials, tokens.refresh_token, { scope: 'sleep_read' });
    expect(res.status).toBe(200);
    expect(res.body.scope).toBe('sleep_read');
  });

  test('an unknown scope on refresh is invalid_scope', async () => {
    const { credentials, tokens } = await grant();
    expect((await refresh(credentials, tokens.refresh_token, { scope: 'activity_read steps_read' })).body.error).toBe('invalid_scope');
  });

  test('a missing refresh_token is invalid_request; an unknown one invalid_grant', async () => {
    const { credentials } = await grant();
    expect((await tokenRequest(app, { grant_type: 'refresh_token', ...credentials })).body.error).toBe('invalid_request');
    expect((await refresh(credentials, 'y'.repeat(43))).body.error).toBe('invalid_grant');
  });

  test("a refresh racing its app owner's narrowing of the scopes waits for it, then finds its grant revoked", async () => {
    const { client, credentials, tokens } = await grant('activity_read sleep_read');
    const grantId: string = (await app.db('tokens').where({ client_pk: client.id }).first('grant_id')).grant_id;
    // The owner's edit (updateClient) in progress: the app row locked, the scopes not yet narrowed.
    const edit = await app.db.transaction();
    await edit('oauth_clients').where({ id: client.id }).forUpdate().first('id');
    const racing = refresh(credentials, tokens.refresh_token);
    const waiting = async () =>
      (await app.db.raw(`select 1 from pg_stat_activity where wait_event_type = 'Lock' and datname = current_database()`)).rows.length > 0;
    for (const deadline = Date.now() + 10_000; !(await waiting());) {
      if (Date.now() > deadline) throw new Error('the refresh did not wait for the edit');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await edit('oauth_clients')
      .where({ id: client.id })
      .update({ allowed_scopes: ['activity_read'] });
    await edit('tokens').where({ grant_id: grantId }).whereNull('revoked_at').update({ revoked_at: new Date() });
    await edit.commit();
    const res = await racing;
    expect([res.status, res.body.error]).toEqual([400, 'invalid_grant']);
    // No token of the grant is left alive with the removed scope.
    expect(await app.db('tokens').where({ grant_id: grantId }).whereNull('revoked_at')).toEqual([]);
  });

  test('a refresh asking for scopes its app may no longer ask for is invalid_grant', async () => {
    const { client, credentials, tokens } = await grant('activity_read sleep_read');
    // Narrowed behind the grant's back (as if the revocation had been missed): the refresh itself refuses.
    await app
      .db('oauth_clients')
      .where({ id: client.id })
      .update({ allowed_scopes: ['activity_read'] });
    const res = await refresh(credentials, tokens.refresh_token);
    expect([res.status, res.body.error, res.body.error_description]).toEqual([
      400,
      'invalid_grant',
      'The client may no longer ask for every scope of this authorisation: authorise again.',
    ]);
    const narrowed = await refresh(credentials, tokens.refresh_token, { scope: 'activity_read' });
    expect([narrowed.status, narrowed.body.scope]).toEqual([200, 'activity_read']);
  });

  test('a public client refreshes with its client_id alone', async () => {
    const { credentials, tokens } = await grant('mood_read', { confidential: false });
    expect(credentials.client_secret).toBeUndefined();
    expect((await refresh(credentials, tokens.refresh_token)).status).toBe(200);
  });
});

describe('token lifetime: 365 days', () => {
  test('tokens are valid for 365 days and refused after: the access token is 401, the refresh token invalid_grant', async () => {
    const issued = new Date('2026-03-01T12:00:00Z');
    app.setNow(issued);
    const first = await grant();
    const second = await grant();
    app.setNow(new Date(issued.getTime() + 365 * DAY_MS - 1000));
    expect((await profile(first.tokens.access_token)).status).toBe(200);
    const refreshed = await refresh(first.credentials, first.tokens.refresh_token);
    expect(refreshed.status).toBe(200);

    app.setNow(new Date(issued.getTime() + 365 * DAY_MS));
    const expired = await profile(second.tokens.access_token);
    expect(expired.status).toBe(401);
    expect(expired.headers.get('www-authenticate')).toContain('error="invalid_token"');
    const late = await refresh(second.credentials, second.tokens.refresh_token);
    expect(late.status).toBe(400);
    expect(late.body.error).toBe('invalid_grant');
    // The pair refreshed just before expiry runs for 365 days from its own issue.
    expect((await profile(refreshed.body.access_token)).status).toBe(200);
    app.setNow(undefined);
  });
});

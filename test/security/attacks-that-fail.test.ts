/**
 * Attacks the audit tried that already failed, kept here so they keep failing: redirect-URI
 * tricks, PKCE downgrade, code replay, cross-person ids, and markup in every field a page shows.
 */
import { startTestApp, type TestApp } from '../support/app';
import { makeClient, makeSession, makeToken, makeUser } from '../support/fixtures';
import { PAGE, REDIRECT_URI, authorizeCode, authorizePath, csrfOf, pkcePair, registerApp, sessionCsrf, tokenRequest } from '../support/web';
import { escapeHtml } from '../../src/web/html';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

async function person() {
  const { user, password } = await makeUser(app, { timezone: 'UTC' });
  return { user, password, session: await makeSession(app, user) };
}

describe('redirect-URI tricks: an unregistered redirect URI is an error page, never a redirect', () => {
  test.each([
    ['another host', 'https://evil.example/callback'],
    ['userinfo naming the registered host', 'https://client.example.org@evil.example/callback'],
    ['a longer host', 'https://client.example.org.evil.example/callback'],
    ['a path below the registered one', `${REDIRECT_URI}/../../evil`],
    ['a different port', 'https://client.example.org:8443/callback'],
    ['an added fragment', `${REDIRECT_URI}#x`],
    ['encoded characters', 'https://client.example.org/%63allback'],
    ['a scheme change', 'javascript://client.example.org/callback'],
  ])('%s', async (_name, redirectUri) => {
    const p = await person();
    const { client } = await registerApp(app, p.user);
    const res = await app.get(
      authorizePath({ response_type: 'code', client_id: client.client_id, redirect_uri: redirectUri, scope: 'mood_read', state: 's' }),
      { session: p.session },
    );
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
  });

  test("the token endpoint refuses a code with a redirect_uri other than the authorisation request's", async () => {
    const p = await person();
    const { client, secret } = await registerApp(app, p.user, { redirectUris: [REDIRECT_URI, 'https://client.example.org/other'] });
    const code = await authorizeCode(app, p.session, { client_id: client.client_id, redirect_uri: REDIRECT_URI, scope: 'mood_read' });
    const res = await tokenRequest(app, {
      grant_type: 'authorization_code',
      code,
      client_id: client.client_id,
      client_secret: secret!,
      redirect_uri: 'https://client.example.org/other',
    });
    expect(res.body.error).toBe('invalid_grant');
  });
});

describe('PKCE downgrade', () => {
  test('a code issued with a challenge cannot be exchanged without its verifier, or with another', async () => {
    const p = await person();
    const { client } = await registerApp(app, p.user, { confidential: false });
    const { challenge } = pkcePair();
    for (const verifier of [undefined, pkcePair().verifier]) {
      const code = await authorizeCode(app, p.session, {
        client_id: client.client_id,
        redirect_uri: REDIRECT_URI,
        scope: 'mood_read',
        code_challenge: challenge,
        code_challenge_method: 'S256',
      });
      const form: Record<string, string> = { grant_type: 'authorization_code', code, client_id: client.client_id, redirect_uri: REDIRECT_URI };
      if (verifier) form.code_verifier = verifier;
      expect((await tokenRequest(app, form)).body.error).toBe('invalid_grant');
    }
  });

  test('a verifier sent for a code issued without a challenge is refused; plain and a missing method are refused at the authorisation page', async () => {
    const p = await person();
    const { client, secret } = await registerApp(app, p.user);
    const code = await authorizeCode(app, p.session, { client_id: client.client_id, redirect_uri: REDIRECT_URI, scope: 'mood_read' });
    const res = await tokenRequest(app, {
      grant_type: 'authorization_code',
      code,
      client_id: client.client_id,
      client_secret: secret!,
      redirect_uri: REDIRECT_URI,
      code_verifier: pkcePair().verifier,
    });
    expect(res.body.error).toBe('invalid_grant');
    for (const method of ['plain', undefined]) {
      const page = await app.get(
        authorizePath({
          response_type: 'code',
          client_id: client.client_id,
          redirect_uri: REDIRECT_URI,
          scope: 'mood_read',
          code_challenge: pkcePair().verifier,
          code_challenge_method: method,
        }),
        { session: p.session },
      );
      expect(new URL(page.headers.get('location')!).searchParams.get('error')).toBe('invalid_request');
    }
  });
});

test('code replay: a code used twice is invalid_grant and revokes what the first use issued', async () => {
  const p = await person();
  const { client, secret } = await registerApp(app, p.user);
  const code = await authorizeCode(app, p.session, { client_id: client.client_id, redirect_uri: REDIRECT_URI, scope: 'mood_read' });
  const form = { grant_type: 'authorization_code', code, client_id: client.client_id, client_secret: secret!, redirect_uri: REDIRECT_URI };
  const first = await tokenRequest(app, form);
  expect((await tokenRequest(app, form)).body.error).toBe('invalid_grant');
  expect((await app.get('/api/2/accounts/profile/', { bearer: first.body.access_token })).status).toBe(401);
});

describe("cross-person ids: another person's app, connection, session or data is out of reach", () => {
  test("another person's app cannot be seen, edited, have its secret rotated or be deleted", async () => {
    const owner = await person();
    const other = await person();
    const { client } = await registerApp(app, owner.user);
    const csrf = await sessionCsrf(app, other.session);
    expect((await app.get(`/settings/apps/${client.client_id}`, { ...PAGE, session: other.session })).status).toBe(404);
    for (const path of [`/settings/apps/${client.client_id}`, `/settings/apps/${client.client_id}/secret`, `/settings/apps/${client.client_id}/delete`]) {
      const res = await app.post(path, {
        ...PAGE,
        session: other.session,
        form: { csrf_token: csrf, name: 'Taken over', redirect_uris: 'https://evil.example/cb', scopes: 'mood_read' },
      });
      expect([path, res.status]).toEqual([path, 404]);
    }
    const row = await app.db('oauth_clients').where({ id: client.id }).first();
    expect([row.name, row.secret_hash, row.redirect_uris]).toEqual([client.name, client.secret_hash, client.redirect_uris]);
  });

  test('revoking an app, or ending a session, of another person changes nothing of theirs', async () => {
    const victim = await person();
    const other = await person();
    const { client } = await makeClient(app, victim.user);
    const token = (await makeToken(app, victim.user, client, ['mood_read'])).access_token;
    const csrf = await sessionCsrf(app, other.session);
    await app.post(`/settings/connected-apps/${client.client_id}/revoke`, { ...PAGE, session: other.session, form: { csrf_token: csrf } });
    expect((await app.get('/api/2/accounts/profile/', { bearer: token })).status).toBe(200);
    const victimSession = await app.db('sessions').where({ user_id: victim.user.id }).first('id_hash');
    await app.post('/settings/account/sessions/end', { ...PAGE, session: other.session, form: { csrf_token: csrf, session: victimSession.id_hash } });
    expect((await app.get('/settings/profile', { ...PAGE, session: victim.session })).status).toBe(200);
  });

  test("a token of one person never reads another's values (version 1 answers 403 for their per-attribute paths)", async () => {
    const victim = await person();
    const reader = await person();
    const { client } = await makeClient(app, reader.user);
    const bearer = (await makeToken(app, reader.user, client, ['mood_read'])).access_token;
    const res = await app.get(`/api/1/users/${victim.user.username}/attributes/mood/`, { bearer });
    expect(res.status).toBe(403);
  });
});

describe('markup in every shown field is shown as text', () => {
  const PAYLOAD = '<img src=x onerror=alert(1)>"\'';
  test('profile, app, attribute label, value note, consent page and echoed form values', async () => {
    const p = await person();
    const csrf = await sessionCsrf(app, p.session);
    expect(
      (
        await app.post('/settings/profile', {
          ...PAGE,
          session: p.session,
          form: { csrf_token: csrf, timezone: 'UTC', first_name: PAYLOAD, last_name: PAYLOAD, bio: PAYLOAD },
        })
      ).status,
    ).toBe(303);
    const { client } = await registerApp(app, p.user, { name: PAYLOAD });
    await app
      .db('oauth_clients')
      .where({ id: client.id })
      .update({ description: PAYLOAD, website: `https://example.org/?${PAYLOAD}` });
    const bearer = (await makeToken(app, p.user, client, ['mood_read', 'mood_write', 'activity_read', 'activity_write'])).access_token;
    expect((await app.post('/api/2/attributes/create/', { bearer, json: [{ label: PAYLOAD, group: 'activity', value_type: 2 }] })).status).toBe(200);
    expect((await app.post('/api/2/attributes/acquire/', { bearer, json: [{ template: 'mood_note' }] })).status).toBe(200);
    const today = new Date().toISOString().slice(0, 10);
    expect((await app.post('/api/2/attributes/update/', { bearer, json: [{ name: 'mood_note', date: today, value: PAYLOAD }] })).status).toBe(200);

    const consent = authorizePath({ response_type: 'code', client_id: client.client_id, redirect_uri: REDIRECT_URI, scope: 'mood_read', state: PAYLOAD });
    const pages = [
      '/settings/profile',
      '/settings/apps',
      `/settings/apps/${client.client_id}`,
      '/settings/connected-apps',
      '/settings/attributes',
      `/data?date=${today}`,
      consent,
    ];
    for (const path of pages) {
      const res = await app.get(path, { ...PAGE, session: p.session });
      expect([path, res.status]).toEqual([path, 200]);
      expect([path, res.text.includes('<img src=x')]).toEqual([path, false]);
      expect([path, res.text.includes(escapeHtml(PAYLOAD))]).toEqual([path, true]);
    }
    // What a form echoes back (the user name on a failed log-in, a `next` that is not local).
    const login = await app.get('/login', PAGE);
    const echoed = await app.post('/login', {
      ...PAGE,
      cookies: { daybook_csrf: login.headers.getSetCookie()[0].split(';')[0].split('=')[1] },
      form: { username: PAYLOAD, password: 'x', csrf_token: csrfOf(login.text), next: `/"><img src=x onerror=alert(2)>` },
    });
    expect(echoed.text).not.toContain('<img src=x');
  });
});

/** Rule 3 (connected apps) and rule 5 (the simple token page). */
import { startTestApp, type TestApp } from '../support/app';
import { makeSession, makeUser } from '../support/fixtures';
import { PAGE, REDIRECT_URI, authorizeCode, registerApp, sessionCsrf, tokenRequest } from '../support/web';

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

async function connect(scope: string) {
  const { user } = await makeUser(app, { timezone: 'Europe/London' });
  const session = await makeSession(app, user);
  const { user: developer } = await makeUser(app);
  const { client, secret } = await registerApp(app, developer, { name: 'Mood Diary' });
  const code = await authorizeCode(app, session, { client_id: client.client_id, redirect_uri: REDIRECT_URI, scope });
  const res = await tokenRequest(app, {
    grant_type: 'authorization_code',
    code,
    client_id: client.client_id,
    client_secret: secret!,
    redirect_uri: REDIRECT_URI,
  });
  return { user, session, client, secret, tokens: res.body as { access_token: string; refresh_token: string } };
}

describe('connected apps page', () => {
  test('lists the apps a person has authorised, with their scopes in words and their last use', async () => {
    app.setNow(new Date('2026-06-01T08:00:00Z'));
    const { session, tokens } = await connect('mood_read mood_write');
    app.setNow(new Date('2026-06-01T09:00:00Z'));
    const before = await app.get('/settings/connected-apps', { ...PAGE, session });
    expect(before.text).toContain('Mood Diary');
    expect(before.text).toContain('Read your mood data');
    expect(before.text).toContain('Add, own and change your mood data');
    expect(before.text).toContain('Not used yet');
    await app.get('/api/2/accounts/profile/', { bearer: tokens.access_token });
    const after = await app.get('/settings/connected-apps', { ...PAGE, session });
    expect(after.text).toContain('Last used 2026-06-01 10:00'); // Europe/London, summer time
    app.setNow(undefined);
  });

  test("apps the person has not authorised are not listed, and another person's page does not show them", async () => {
    const { user: stranger } = await makeUser(app);
    const strangerSession = await makeSession(app, stranger);
    await connect('mood_read');
    const page = await app.get('/settings/connected-apps', { ...PAGE, session: strangerSession });
    expect(page.text).not.toContain('Mood Diary');
    expect(page.text).toContain('No app can use your Daybook data right now.');
  });

  test('revoking an app invalidates its tokens at once: access 401 invalid_token, refresh invalid_grant, and it leaves the list', async () => {
    const { session, client, secret, tokens } = await connect('mood_read');
    expect((await app.get('/api/2/accounts/profile/', { bearer: tokens.access_token })).status).toBe(200);
    const csrf = await sessionCsrf(app, session, '/settings/connected-apps');
    const res = await app.post(`/settings/connected-apps/${client.client_id}/revoke`, { ...PAGE, session, form: { csrf_token: csrf } });
    expect(res.status).toBe(303);
    const api = await app.get('/api/2/accounts/profile/', { bearer: tokens.access_token });
    expect(api.status).toBe(401);
    expect(api.headers.get('www-authenticate')).toContain('error="invalid_token"');
    const refresh = await tokenRequest(app, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: client.client_id,
      client_secret: secret!,
    });
    expect(refresh.body.error).toBe('invalid_grant');
    expect((await app.get('/settings/connected-apps', { ...PAGE, session })).text).not.toContain('Mood Diary');
  });

  test('a refresh racing the disconnect leaves no pair alive', async () => {
    // Ten races of the app refreshing while the person disconnects it: whichever finishes first,
    // every pair the refresh made must be dead once both have answered.
    for (let round = 0; round < 10; round++) {
      const { session, client, secret, tokens } = await connect('mood_read');
      const csrf = await sessionCsrf(app, session, '/settings/connected-apps');
      const [refreshed, disconnected] = await Promise.all([
        tokenRequest(app, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: client.client_id, client_secret: secret! }),
        app.post(`/settings/connected-apps/${client.client_id}/revoke`, { ...PAGE, session, form: { csrf_token: csrf } }),
      ]);
      expect(disconnected.status).toBe(303);
      if (refreshed.status === 200) expect((await app.get('/api/2/accounts/profile/', { bearer: refreshed.body.access_token })).status).toBe(401);
      else expect(refreshed.body.error).toBe('invalid_grant');
    }
  });

  test('revoking also voids a code not yet exchanged', async () => {
    const { session, client, secret } = await connect('mood_read');
    const code = await authorizeCode(app, session, { client_id: client.client_id, redirect_uri: REDIRECT_URI, scope: 'mood_read' });
    const csrf = await sessionCsrf(app, session, '/settings/connected-apps');
    await app.post(`/settings/connected-apps/${client.client_id}/revoke`, { ...PAGE, session, form: { csrf_token: csrf } });
    const res = await tokenRequest(app, {
      grant_type: 'authorization_code',
      code,
      client_id: client.client_id,
      client_secret: secret!,
      redirect_uri: REDIRECT_URI,
    });
    expect(res.body.error).toBe('invalid_grant');
  });

  test('revoking without the anti-forgery token is refused (403) and the tokens keep working', async () => {
    const { session, client, tokens } = await connect('mood_read');
    expect((await app.post(`/settings/connected-apps/${client.client_id}/revoke`, { ...PAGE, session, form: {} })).status).toBe(403);
    expect((await app.get('/api/2/accounts/profile/', { bearer: tokens.access_token })).status).toBe(200);
  });

  test("revoking only touches the person's own tokens", async () => {
    const first = await connect('mood_read');
    const { user: other } = await makeUser(app);
    const otherSession = await makeSession(app, other);
    const code = await authorizeCode(app, otherSession, { client_id: first.client.client_id, redirect_uri: REDIRECT_URI, scope: 'mood_read' });
    const otherTokens = (
      await tokenRequest(app, {
        grant_type: 'authorization_code',
        code,
        client_id: first.client.client_id,
        client_secret: first.secret!,
        redirect_uri: REDIRECT_URI,
      })
    ).body;
    const csrf = await sessionCsrf(app, first.session, '/settings/connected-apps');
    await app.post(`/settings/connected-apps/${first.client.client_id}/revoke`, { ...PAGE, session: first.session, form: { csrf_token: csrf } });
    expect((await app.get('/api/2/accounts/profile/', { bearer: otherTokens.access_token })).status).toBe(200);
  });
});

describe('simple token page', () => {
  test("shows the person's simple token, the same the API returns", async () => {
    const { user, simpleToken, password } = await makeUser(app);
    const session = await makeSession(app, user);
    const page = await app.get('/settings/simple-token', { ...PAGE, session });
    expect(page.status).toBe(200);
    expect(page.text).toContain(`<code class="secret" id="simple-token">${simpleToken}</code>`);
    const api = await app.post('/api/1/auth/simple-token/', { form: { username: user.username, password } });
    expect(api.body.token).toBe(simpleToken);
  });

  test('resetting gives a new token; the old one stops working at once and the API returns the new one', async () => {
    const { user, simpleToken, password } = await makeUser(app);
    const session = await makeSession(app, user);
    const csrf = await sessionCsrf(app, session, '/settings/simple-token');
    const res = await app.post('/settings/simple-token/reset', { ...PAGE, session, form: { csrf_token: csrf } });
    expect(res.status).toBe(303);
    const page = await app.get(res.headers.get('location')!, { ...PAGE, session });
    const fresh = /id="simple-token">([^<]+)</.exec(page.text)![1];
    expect(fresh).not.toBe(simpleToken);
    expect((await app.get('/api/2/accounts/profile/', { token: simpleToken })).status).toBe(401);
    expect((await app.get('/api/2/accounts/profile/', { token: fresh })).status).toBe(200);
    expect((await app.post('/api/2/auth/simple-token/', { form: { username: user.username, password } })).body.token).toBe(fresh);
  });

  test('resetting without the anti-forgery token is refused (403)', async () => {
    const { user, simpleToken } = await makeUser(app);
    const session = await makeSession(app, user);
    expect((await app.post('/settings/simple-token/reset', { ...PAGE, session, form: {} })).status).toBe(403);
    expect((await app.get('/api/2/accounts/profile/', { token: simpleToken })).status).toBe(200);
  });
});

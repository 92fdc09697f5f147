/** Rule 2 (app management) and the redirect URI rules of rule 6. */
import { startTestApp, type TestApp } from '../support/app';
import { makeSession, makeUser } from '../support/fixtures';
import { PAGE, REDIRECT_URI, authorizeCode, sessionCsrf, tokenRequest } from '../support/web';
import type { User } from '../../src/domain/users';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

interface Created {
  clientId: string;
  secret: string | undefined;
  accessToken: string;
  refreshToken: string;
  page: string;
  status: number;
}

function secretOf(page: string, title: string): string | undefined {
  return new RegExp(`data-secret="${title}">([^<]+)<`).exec(page)?.[1];
}

async function createApp(session: string, form: Record<string, string> | Array<[string, string]>): Promise<Created> {
  const csrf = await sessionCsrf(app, session, '/settings/apps');
  const fields = Array.isArray(form) ? [...form, ['csrf_token', csrf]] as Array<[string, string]> : { csrf_token: csrf, ...form };
  const res = await app.post('/settings/apps', { ...PAGE, session, form: fields });
  return {
    status: res.status,
    page: res.text,
    clientId: /<code class="client-id">([^<]+)</.exec(res.text)?.[1] ?? '',
    secret: secretOf(res.text, 'Client secret'),
    accessToken: secretOf(res.text, 'Access token') ?? '',
    refreshToken: secretOf(res.text, 'Refresh token') ?? '',
  };
}

async function person(): Promise<{ user: User; session: string }> {
  const { user } = await makeUser(app);
  return { user, session: await makeSession(app, user) };
}

const BASIC_APP: Array<[string, string]> = [
  ['name', 'Sleep Tracker'],
  ['description', 'Writes your sleep.'],
  ['website', 'https://sleep.example.com/'],
  ['redirect_uris', `${REDIRECT_URI}\nhttp://localhost:8000/`],
  ['client_type', 'confidential'],
  ['scopes', 'sleep_read'],
  ['scopes', 'sleep_write'],
];

describe('app management page', () => {
  test('creating an app shows its client id and, once, its secret; the database keeps only a hash', async () => {
    const { session, user } = await person();
    const created = await createApp(session, BASIC_APP);
    expect(created.status).toBe(200);
    expect(created.clientId).toMatch(/^[A-Za-z0-9_-]{22,}$/);
    expect(created.secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const row = await app.db('oauth_clients').where({ client_id: created.clientId }).first();
    expect(row).toMatchObject({ name: 'Sleep Tracker', owner_user_id: user.id, confidential: true, allowed_scopes: ['sleep_read', 'sleep_write'] });
    expect(row.redirect_uris).toEqual([REDIRECT_URI, 'http://localhost:8000/']);
    expect(JSON.stringify(row)).not.toContain(created.secret);
    const detail = await app.get(`/settings/apps/${created.clientId}`, { ...PAGE, session });
    expect(detail.status).toBe(200);
    expect(detail.text).toContain(created.clientId);
    expect(detail.text).not.toContain(created.secret!);
    const list = await app.get('/settings/apps', { ...PAGE, session });
    expect(list.text).toContain('Sleep Tracker');
    expect(list.text).not.toContain(created.secret!);
  });

  test("creating an app gives its owner a token for their own account with the app's scopes, shown once", async () => {
    const { session, user } = await person();
    const created = await createApp(session, BASIC_APP);
    expect(created.accessToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const profile = await app.get('/api/2/accounts/profile/', { bearer: created.accessToken });
    expect(profile.status).toBe(200);
    expect(profile.body.username).toBe(user.username);
    const token = await app.db('tokens').where({ user_id: user.id }).first();
    expect(token.scopes).toEqual(['sleep_read', 'sleep_write']);
    const refreshed = await tokenRequest(app, { grant_type: 'refresh_token', refresh_token: created.refreshToken, client_id: created.clientId, client_secret: created.secret! });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.scope).toBe('sleep_read sleep_write');
    expect((await app.get(`/settings/apps/${created.clientId}`, { ...PAGE, session })).text).not.toContain(created.accessToken);
  });

  test('the secret and the app can be used for the authorisation code flow', async () => {
    const { session } = await person();
    const created = await createApp(session, BASIC_APP);
    const code = await authorizeCode(app, session, { client_id: created.clientId, redirect_uri: REDIRECT_URI, scope: 'sleep_read' });
    const res = await tokenRequest(app, { grant_type: 'authorization_code', code, client_id: created.clientId, client_secret: created.secret!, redirect_uri: REDIRECT_URI });
    expect(res.status).toBe(200);
  });

  test('a public app has no secret', async () => {
    const { session } = await person();
    const created = await createApp(session, [['name', 'Desktop Diary'], ['redirect_uris', 'http://127.0.0.1:53121/callback'], ['client_type', 'public'], ['scopes', 'mood_read']]);
    expect(created.status).toBe(200);
    expect(created.secret).toBeUndefined();
    expect((await app.db('oauth_clients').where({ client_id: created.clientId }).first()).secret_hash).toBeNull();
  });

  test('rotating the secret shows a new one once; the old one stops working at once', async () => {
    const { session } = await person();
    const created = await createApp(session, BASIC_APP);
    const csrf = await sessionCsrf(app, session, `/settings/apps/${created.clientId}`);
    const res = await app.post(`/settings/apps/${created.clientId}/secret`, { ...PAGE, session, form: { csrf_token: csrf } });
    expect(res.status).toBe(200);
    const fresh = secretOf(res.text, 'Client secret')!;
    expect(fresh).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(fresh).not.toBe(created.secret);
    const old = await tokenRequest(app, { grant_type: 'refresh_token', refresh_token: created.refreshToken, client_id: created.clientId, client_secret: created.secret! });
    expect(old.body.error).toBe('invalid_client');
    const ok = await tokenRequest(app, { grant_type: 'refresh_token', refresh_token: created.refreshToken, client_id: created.clientId, client_secret: fresh });
    expect(ok.status).toBe(200);
  });

  test("deleting the app removes it and its tokens stop working", async () => {
    const { session } = await person();
    const created = await createApp(session, BASIC_APP);
    const csrf = await sessionCsrf(app, session, `/settings/apps/${created.clientId}`);
    const res = await app.post(`/settings/apps/${created.clientId}/delete`, { ...PAGE, session, form: { csrf_token: csrf } });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/settings/apps?deleted=1');
    expect(await app.db('oauth_clients').where({ client_id: created.clientId }).first()).toBeUndefined();
    const profile = await app.get('/api/2/accounts/profile/', { bearer: created.accessToken });
    expect(profile.status).toBe(401);
    expect(profile.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });

  test("another person's app cannot be seen, rotated or deleted (404)", async () => {
    const owner = await person();
    const created = await createApp(owner.session, BASIC_APP);
    const stranger = await person();
    expect((await app.get(`/settings/apps/${created.clientId}`, { ...PAGE, session: stranger.session })).status).toBe(404);
    const csrf = await sessionCsrf(app, stranger.session);
    expect((await app.post(`/settings/apps/${created.clientId}/delete`, { ...PAGE, session: stranger.session, form: { csrf_token: csrf } })).status).toBe(404);
    expect(await app.db('oauth_clients').where({ client_id: created.clientId }).first()).toBeDefined();
  });

  test('changing an app without the anti-forgery token is refused (403)', async () => {
    const { session } = await person();
    const created = await createApp(session, BASIC_APP);
    expect((await app.post(`/settings/apps/${created.clientId}/delete`, { ...PAGE, session, form: {} })).status).toBe(403);
    const before = await app.db('oauth_clients').count();
    expect((await app.post('/settings/apps', { ...PAGE, session, form: BASIC_APP })).status).toBe(403);
    expect(await app.db('oauth_clients').count()).toEqual(before);
  });

  test('app names are escaped on the pages', async () => {
    const { session } = await person();
    await createApp(session, [['name', '<img src=x onerror=alert(1)>'], ['redirect_uris', REDIRECT_URI], ['scopes', 'mood_read']]);
    const list = await app.get('/settings/apps', { ...PAGE, session });
    expect(list.text).not.toContain('<img src=x');
    expect(list.text).toContain('&lt;img src=x onerror=alert(1)&gt;');
  });

  test('an app needs a name, a redirect URI and at least one scope (400)', async () => {
    const { session } = await person();
    expect((await createApp(session, [['name', ''], ['redirect_uris', REDIRECT_URI], ['scopes', 'mood_read']])).status).toBe(400);
    expect((await createApp(session, [['name', 'A'], ['redirect_uris', ''], ['scopes', 'mood_read']])).status).toBe(400);
    const noScope = await createApp(session, [['name', 'A'], ['redirect_uris', REDIRECT_URI]]);
    expect(noScope.status).toBe(400);
    expect(noScope.page).toContain('Choose at least one scope');
  });
});

describe('registered redirect URIs must be HTTPS, except loopback hosts', () => {
  test.each([
    'https://example.com/callback',
    'http://localhost/callback',
    'http://localhost:8000/',
    'http://127.0.0.1:53121/callback',
    'http://[::1]:9000/cb',
  ])('%s is accepted', async (uri) => {
    const { session } = await person();
    expect((await createApp(session, [['name', 'A'], ['redirect_uris', uri], ['scopes', 'mood_read']])).status).toBe(200);
  });

  test.each([
    'http://example.com/callback',
    'http://192.168.1.10/callback',
    'http://localhost.example.com/cb',
    'ftp://example.com/cb',
    'https://example.com/cb#fragment',
    '/relative/callback',
  ])('%s is refused (400)', async (uri) => {
    const { session } = await person();
    const res = await createApp(session, [['name', 'A'], ['redirect_uris', uri], ['scopes', 'mood_read']]);
    expect(res.status).toBe(400);
    expect(res.clientId).toBe('');
  });
});

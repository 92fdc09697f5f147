/** Rule 2 (app management) and the redirect URI rules of rule 6. */
import { startTestApp, type TestApp, type TestResponse } from '../support/app';
import { makeSession, makeUser } from '../support/fixtures';
import { PAGE, REDIRECT_URI, authorizeCode, authorizePath, locationQuery, sessionCsrf, tokenRequest } from '../support/web';
import type { User } from '../../src/domain/identity/users';
import { V2_SCOPE_NAMES } from '../../src/domain/apps-and-grants/scopes';

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
  const fields = Array.isArray(form) ? ([...form, ['csrf_token', csrf]] as Array<[string, string]>) : { csrf_token: csrf, ...form };
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
    const refreshed = await tokenRequest(app, {
      grant_type: 'refresh_token',
      refresh_token: created.refreshToken,
      client_id: created.clientId,
      client_secret: created.secret!,
    });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.scope).toBe('sleep_read sleep_write');
    expect((await app.get(`/settings/apps/${created.clientId}`, { ...PAGE, session })).text).not.toContain(created.accessToken);
  });

  test('the secret and the app can be used for the authorisation code flow', async () => {
    const { session } = await person();
    const created = await createApp(session, BASIC_APP);
    const code = await authorizeCode(app, session, { client_id: created.clientId, redirect_uri: REDIRECT_URI, scope: 'sleep_read' });
    const res = await tokenRequest(app, {
      grant_type: 'authorization_code',
      code,
      client_id: created.clientId,
      client_secret: created.secret!,
      redirect_uri: REDIRECT_URI,
    });
    expect(res.status).toBe(200);
  });

  test('a public app has no secret', async () => {
    const { session } = await person();
    const created = await createApp(session, [
      ['name', 'Desktop Diary'],
      ['redirect_uris', 'http://127.0.0.1:53121/callback'],
      ['client_type', 'public'],
      ['scopes', 'mood_read'],
    ]);
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
    const old = await tokenRequest(app, {
      grant_type: 'refresh_token',
      refresh_token: created.refreshToken,
      client_id: created.clientId,
      client_secret: created.secret!,
    });
    expect(old.body.error).toBe('invalid_client');
    const ok = await tokenRequest(app, { grant_type: 'refresh_token', refresh_token: created.refreshToken, client_id: created.clientId, client_secret: fresh });
    expect(ok.status).toBe(200);
  });

  test('deleting the app removes it and its tokens stop working', async () => {
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
    await createApp(session, [
      ['name', '<img src=x onerror=alert(1)>'],
      ['redirect_uris', REDIRECT_URI],
      ['scopes', 'mood_read'],
    ]);
    const list = await app.get('/settings/apps', { ...PAGE, session });
    expect(list.text).not.toContain('<img src=x');
    expect(list.text).toContain('&lt;img src=x onerror=alert(1)&gt;');
  });

  test('an app needs a name, a redirect URI and at least one scope (400)', async () => {
    const { session } = await person();
    expect(
      (
        await createApp(session, [
          ['name', ''],
          ['redirect_uris', REDIRECT_URI],
          ['scopes', 'mood_read'],
        ])
      ).status,
    ).toBe(400);
    expect(
      (
        await createApp(session, [
          ['name', 'A'],
          ['redirect_uris', ''],
          ['scopes', 'mood_read'],
        ])
      ).status,
    ).toBe(400);
    const noScope = await createApp(session, [
      ['name', 'A'],
      ['redirect_uris', REDIRECT_URI],
    ]);
    expect(noScope.status).toBe(400);
    expect(noScope.page).toContain('Choose at least one scope');
  });
});

/** Posts the edit form of an app (its anti-forgery token read from the app page unless given). */
async function editApp(session: string, clientId: string, form: Array<[string, string]>, csrf?: string): Promise<TestResponse> {
  const token = csrf ?? (await sessionCsrf(app, session, `/settings/apps/${clientId}`));
  return app.post(`/settings/apps/${clientId}`, { ...PAGE, session, form: [...form, ['csrf_token', token]] });
}

describe('a form with a field repeated many times', () => {
  // Body parsers built on qs turn a field repeated more than 20 times into an object by default.
  const EVERY_SCOPE: Array<[string, string]> = V2_SCOPE_NAMES.map((scope) => ['scopes', scope]);

  test('an app registered with all 34 scopes gets all 34', async () => {
    expect(EVERY_SCOPE).toHaveLength(34);
    const { session } = await person();
    const created = await createApp(session, [...BASIC_APP.filter(([name]) => name !== 'scopes'), ...EVERY_SCOPE]);
    expect(created.status).toBe(200);
    expect(created.page).not.toContain('Choose at least one scope');
    expect((await storedApp(created.clientId)).allowed_scopes).toEqual(V2_SCOPE_NAMES);
  });

  test('an app edited to all 34 scopes keeps all 34', async () => {
    const { session } = await person();
    const created = await createApp(session, BASIC_APP);
    const res = await editApp(session, created.clientId, [...BASIC_APP.filter(([name]) => name !== 'scopes'), ...EVERY_SCOPE]);
    expect(res.status).toBe(303);
    expect((await storedApp(created.clientId)).allowed_scopes).toEqual(V2_SCOPE_NAMES);
  });
});

/** The app's row as the tests compare it: everything an edit could change (and the secret's hash, which it must not). */
async function storedApp(clientId: string): Promise<Record<string, unknown>> {
  return app
    .db('oauth_clients')
    .where({ client_id: clientId })
    .first('name', 'description', 'website', 'redirect_uris', 'allowed_scopes', 'confidential', 'secret_hash');
}

/** Exchanges a code for tokens as the app. */
function exchange(created: Created, code: string, redirectUri = REDIRECT_URI): Promise<TestResponse> {
  return tokenRequest(app, { grant_type: 'authorization_code', code, client_id: created.clientId, client_secret: created.secret!, redirect_uri: redirectUri });
}

/** A person who authorises the app for `scope` and gets its tokens. */
async function authorisedBy(created: Created, scope: string): Promise<{ accessToken: string; refreshToken: string }> {
  const { session } = await person();
  const res = await exchange(created, await authorizeCode(app, session, { client_id: created.clientId, redirect_uri: REDIRECT_URI, scope }));
  expect(res.status).toBe(200);
  return { accessToken: res.body.access_token, refreshToken: res.body.refresh_token };
}

async function profileStatus(accessToken: string): Promise<number> {
  return (await app.get('/api/2/accounts/profile/', { bearer: accessToken })).status;
}

const EDITED: Array<[string, string]> = [
  ['name', 'Sleep & Mood Tracker'],
  ['description', 'Writes your sleep and reads your mood.'],
  ['website', 'https://tracker.example.com/about'],
  ['redirect_uris', `${REDIRECT_URI}\nhttps://tracker.example.com/oauth/done`],
  ['scopes', 'sleep_read'],
  ['scopes', 'sleep_write'],
  ['scopes', 'mood_read'],
];

describe('editing an app on its page', () => {
  test('the app page shows an edit form with the current settings and says the client type cannot change', async () => {
    const { session } = await person();
    const created = await createApp(session, BASIC_APP);
    const page = (await app.get(`/settings/apps/${created.clientId}`, { ...PAGE, session })).text;
    expect(page).toContain(`<form method="post" action="/settings/apps/${created.clientId}" class="card">`);
    expect(page).toContain('value="Sleep Tracker"');
    expect(page).toContain(`>${REDIRECT_URI}\nhttp://localhost:8000/</textarea>`);
    expect(page).toMatch(/value="sleep_write" checked/);
    expect(page).not.toMatch(/value="mood_read" checked/);
    expect(page).toContain('The client type cannot be changed after registration');
    expect(page).not.toContain('name="client_type"');
  });

  test('saving changes every field, answers 303 to the app page, which says "Saved." and shows them; the database holds them', async () => {
    const { session } = await person();
    const created = await createApp(session, BASIC_APP);
    const before = await storedApp(created.clientId);
    const res = await editApp(session, created.clientId, EDITED);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`/settings/apps/${created.clientId}?saved=1`);
    const page = await app.get(res.headers.get('location')!, { ...PAGE, session });
    expect(page.status).toBe(200);
    expect(page.text).toContain('<p class="notice" role="status">Saved.</p>');
    expect(page.text).toContain('<h1>Sleep &amp; Mood Tracker</h1>');
    expect(page.text).toContain('<td>Writes your sleep and reads your mood.</td>');
    expect(page.text).toContain('<td>https://tracker.example.com/about</td>');
    expect(page.text).toContain('<code>https://tracker.example.com/oauth/done</code>');
    expect(page.text).not.toContain('<code>http://localhost:8000/</code>');
    expect(page.text).toContain('Read your mood data');
    expect(await storedApp(created.clientId)).toEqual({
      name: 'Sleep & Mood Tracker',
      description: 'Writes your sleep and reads your mood.',
      website: 'https://tracker.example.com/about',
      redirect_uris: [REDIRECT_URI, 'https://tracker.example.com/oauth/done'],
      allowed_scopes: ['sleep_read', 'sleep_write', 'mood_read'],
      confidential: true,
      secret_hash: before.secret_hash,
    });
    expect((await app.get('/settings/apps', { ...PAGE, session })).text).toContain('Sleep &amp; Mood Tracker');
  });

  test('the consent page shows the new name and description', async () => {
    const { session } = await person();
    const created = await createApp(session, BASIC_APP);
    expect((await editApp(session, created.clientId, EDITED)).status).toBe(303);
    const consent = await app.get(authorizePath({ response_type: 'code', client_id: created.clientId, redirect_uri: REDIRECT_URI, scope: 'mood_read' }), {
      session,
    });
    expect(consent.status).toBe(200);
    expect(consent.text).toContain('<title>Allow Sleep &amp; Mood Tracker? · Daybook</title>');
    expect(consent.text).toContain('Writes your sleep and reads your mood.');
    expect(consent.text).not.toContain('Sleep Tracker?');
  });

  test('the client type stays as registered whatever the form says', async () => {
    const { session } = await person();
    const created = await createApp(session, BASIC_APP);
    const before = await storedApp(created.clientId);
    expect((await editApp(session, created.clientId, [...BASIC_APP.filter(([name]) => name !== 'client_type'), ['client_type', 'public']])).status).toBe(303);
    expect(await storedApp(created.clientId)).toEqual(before);
    const refreshed = await tokenRequest(app, {
      grant_type: 'refresh_token',
      refresh_token: created.refreshToken,
      client_id: created.clientId,
      client_secret: created.secret!,
    });
    expect(refreshed.status).toBe(200);
  });

  test.each<[string, Array<[string, string]>, string, string]>([
    ['an empty name', [['name', '   ']], 'An app name is 1 to 100 characters.', 'Writes your sleep.'],
    ['a name over 100 characters', [['name', 'n'.repeat(101)]], 'An app name is 1 to 100 characters.', 'n'.repeat(101)],
    ['no redirect URI', [['redirect_uris', ' \n ']], 'An app needs at least one redirect URI.', 'Writes your sleep.'],
    [
      'plain http to a non-loopback host',
      [['redirect_uris', `${REDIRECT_URI}\nhttp://tracker.example.com/cb`]],
      'http://tracker.example.com/cb must use https',
      'http://tracker.example.com/cb</textarea>',
    ],
    [
      'a redirect URI with a fragment',
      [['redirect_uris', 'https://tracker.example.com/cb#top']],
      'must not contain a fragment',
      'https://tracker.example.com/cb#top</textarea>',
    ],
    ['a relative redirect URI', [['redirect_uris', '/callback']], '/callback is not an absolute URL.', '>/callback</textarea>'],
    [
      'more than 20 redirect URIs',
      [['redirect_uris', Array.from({ length: 21 }, (_, i) => `https://tracker.example.com/cb${i}`).join('\n')]],
      'An app has at most 20 redirect URIs.',
      'https://tracker.example.com/cb20',
    ],
    ['a description over 1000 characters', [['description', 'd'.repeat(1001)]], 'A description is at most 1000 characters.', 'd'.repeat(1001)],
    ['a website that is not a web address', [['website', 'javascript:alert(1)']], 'must be a web address', 'value="javascript:alert(1)"'],
    ['no scope', [['scopes', '']], 'Choose at least one scope the app may ask for.', 'value="Sleep Tracker"'],
    ['an unknown scope', [['scopes', 'secrets_read']], 'Unknown scopes: secrets_read.', 'value="Sleep Tracker"'],
  ])('%s is refused (400): the page names the problem and keeps what was typed; nothing changes', async (_name, change, problem, typed) => {
    const { session } = await person();
    const created = await createApp(session, BASIC_APP);
    const before = await storedApp(created.clientId);
    const changed = new Set(change.map(([name]) => name));
    const form = [...BASIC_APP.filter(([name]) => !changed.has(name)), ...change.filter(([, value]) => value !== '')];
    const res = await editApp(session, created.clientId, form);
    expect(res.status).toBe(400);
    expect(res.text).toContain('<p class="error" role="status">');
    expect(res.text).toContain(problem);
    expect(res.text).toContain(typed);
    expect(res.text).toContain('<h1>Sleep Tracker</h1>');
    expect(await storedApp(created.clientId)).toEqual(before);
    expect(await profileStatus(created.accessToken)).toBe(200);
  });

  test('a refused edit keeps the typed scopes ticked', async () => {
    const { session } = await person();
    const created = await createApp(session, BASIC_APP);
    const res = await editApp(session, created.clientId, [
      ['name', ''],
      ['redirect_uris', REDIRECT_URI],
      ['scopes', 'mood_read'],
    ]);
    expect(res.status).toBe(400);
    expect(res.text).toMatch(/value="mood_read" checked/);
    expect(res.text).not.toMatch(/value="sleep_write" checked/);
  });

  test('an edit without a valid anti-forgery token is refused (403) and changes nothing', async () => {
    const { session } = await person();
    const created = await createApp(session, BASIC_APP);
    const before = await storedApp(created.clientId);
    const missing = await app.post(`/settings/apps/${created.clientId}`, { ...PAGE, session, form: EDITED });
    expect(missing.status).toBe(403);
    const forged = await editApp(session, created.clientId, EDITED, 'not-a-token');
    expect(forged.status).toBe(403);
    const stranger = await person();
    const othersToken = await editApp(session, created.clientId, EDITED, await sessionCsrf(app, stranger.session));
    expect(othersToken.status).toBe(403);
    expect(await storedApp(created.clientId)).toEqual(before);
  });

  test("another person's app cannot be edited (404) and is unchanged", async () => {
    const owner = await person();
    const created = await createApp(owner.session, BASIC_APP);
    const before = await storedApp(created.clientId);
    const stranger = await person();
    const res = await editApp(stranger.session, created.clientId, EDITED, await sessionCsrf(app, stranger.session));
    expect(res.status).toBe(404);
    expect(res.text).toContain('You have no app with this client ID.');
    expect(await storedApp(created.clientId)).toEqual(before);
  });

  test('an edit needs a logged-in person (303 to the login page) and changes nothing', async () => {
    const { session } = await person();
    const created = await createApp(session, BASIC_APP);
    const before = await storedApp(created.clientId);
    const res = await app.post(`/settings/apps/${created.clientId}`, { ...PAGE, form: EDITED });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toMatch(/^\/login/);
    expect(await storedApp(created.clientId)).toEqual(before);
  });
});

describe('narrowing the scopes an app may ask for', () => {
  test('revokes the grants whose tokens carry a removed scope; tokens within the new set keep working', async () => {
    const { session } = await person();
    const created = await createApp(session, BASIC_APP);
    const reader = await authorisedBy(created, 'sleep_read');
    const writer = await authorisedBy(created, 'sleep_write');
    const res = await editApp(session, created.clientId, [...BASIC_APP.filter(([name]) => name !== 'scopes'), ['scopes', 'sleep_read']]);
    expect(res.status).toBe(303);
    // The owner's own token (sleep_read sleep_write) and the writer's grant carried sleep_write.
    expect(res.headers.get('location')).toBe(`/settings/apps/${created.clientId}?saved=1&revoked=2`);
    expect((await app.get(res.headers.get('location')!, { ...PAGE, session })).text).toContain(
      'Saved. 2 authorisations that carried a removed scope were revoked.',
    );
    expect(await profileStatus(reader.accessToken)).toBe(200);
    expect(await profileStatus(writer.accessToken)).toBe(401);
    expect(await profileStatus(created.accessToken)).toBe(401);
    const refresh = (refreshToken: string) =>
      tokenRequest(app, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: created.clientId, client_secret: created.secret! });
    expect((await refresh(writer.refreshToken)).body.error).toBe('invalid_grant');
    expect((await refresh(reader.refreshToken)).status).toBe(200);
  });

  test('the removed scope can no longer be asked for, and a code issued for it before the change cannot be exchanged', async () => {
    const { session } = await person();
    const created = await createApp(session, BASIC_APP);
    const pending = await authorizeCode(app, session, { client_id: created.clientId, redirect_uri: REDIRECT_URI, scope: 'sleep_write' });
    expect((await editApp(session, created.clientId, [...BASIC_APP.filter(([name]) => name !== 'scopes'), ['scopes', 'sleep_read']])).status).toBe(303);
    const ask = await app.get(authorizePath({ response_type: 'code', client_id: created.clientId, redirect_uri: REDIRECT_URI, scope: 'sleep_write' }), {
      session,
    });
    expect(ask.status).toBe(303);
    expect(locationQuery(ask).get('error')).toBe('invalid_scope');
    const res = await exchange(created, pending);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_grant');
  });

  test('widening or keeping the scopes revokes nothing', async () => {
    const { session } = await person();
    const created = await createApp(session, BASIC_APP);
    const writer = await authorisedBy(created, 'sleep_write');
    const res = await editApp(session, created.clientId, EDITED);
    expect(res.headers.get('location')).toBe(`/settings/apps/${created.clientId}?saved=1`);
    expect(await profileStatus(writer.accessToken)).toBe(200);
    expect(await profileStatus(created.accessToken)).toBe(200);
  });
});

describe('removing a redirect URI', () => {
  const LOOPBACK = 'http://localhost:8000/';

  test('the authorise endpoint no longer accepts it (error page, no redirect)', async () => {
    const { session } = await person();
    const created = await createApp(session, BASIC_APP);
    const query = { response_type: 'code', client_id: created.clientId, redirect_uri: LOOPBACK, scope: 'sleep_read' };
    expect((await app.get(authorizePath(query), { session })).status).toBe(200);
    expect(
      (await editApp(session, created.clientId, [...BASIC_APP.filter(([name]) => name !== 'redirect_uris'), ['redirect_uris', REDIRECT_URI]])).status,
    ).toBe(303);
    const res = await app.get(authorizePath(query), { session });
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(res.text).toContain(`The redirect URI ${LOOPBACK} is not registered for Sleep Tracker.`);
  });

  test('a code issued for it before the change cannot be exchanged at the token endpoint; one for a kept URI still can', async () => {
    const { session } = await person();
    const created = await createApp(session, BASIC_APP);
    const removedCode = await authorizeCode(app, session, { client_id: created.clientId, redirect_uri: LOOPBACK, scope: 'sleep_read' });
    const keptCode = await authorizeCode(app, session, { client_id: created.clientId, redirect_uri: REDIRECT_URI, scope: 'sleep_read' });
    expect(
      (await editApp(session, created.clientId, [...BASIC_APP.filter(([name]) => name !== 'redirect_uris'), ['redirect_uris', REDIRECT_URI]])).status,
    ).toBe(303);
    const refused = await exchange(created, removedCode, LOOPBACK);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe('invalid_grant');
    expect(refused.body.error_description).toMatch(/no longer registered/);
    expect((await exchange(created, keptCode)).status).toBe(200);
  });
});

describe('registered redirect URIs must be HTTPS, except loopback hosts', () => {
  test.each(['https://example.com/callback', 'http://localhost/callback', 'http://localhost:8000/', 'http://127.0.0.1:53121/callback', 'http://[::1]:9000/cb'])(
    '%s is accepted',
    async (uri) => {
      const { session } = await person();
      expect(
        (
          await createApp(session, [
            ['name', 'A'],
            ['redirect_uris', uri],
            ['scopes', 'mood_read'],
          ])
        ).status,
      ).toBe(200);
    },
  );

  test.each([
    'http://example.com/callback',
    'http://192.168.1.10/callback',
    'http://localhost.example.com/cb',
    'ftp://example.com/cb',
    'https://example.com/cb#fragment',
    '/relative/callback',
  ])('%s is refused (400)', async (uri) => {
    const { session } = await person();
    const res = await createApp(session, [
      ['name', 'A'],
      ['redirect_uris', uri],
      ['scopes', 'mood_read'],
    ]);
    expect(res.status).toBe(400);
    expect(res.clientId).toBe('');
  });
});

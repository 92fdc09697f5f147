/**
 * Finding 6: a second line behind the anti-forgery token. A state-changing form post that the
 * browser says comes from another site (Sec-Fetch-Site other than same-origin or none, or an Origin
 * that is not this service's) is refused (403) before its token is checked, and changes nothing.
 * Same-origin posts, clients sending neither header, and `Origin: null` with a valid token work.
 */
import { startTestApp, type TestApp } from '../support/app';
import { makeSession, makeUser } from '../support/fixtures';
import { PAGE, REDIRECT_URI, anonymousForm, csrfOf, registerApp, sessionCsrf } from '../support/web';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

async function person() {
  const { user, password } = await makeUser(app);
  const session = await makeSession(app, user);
  return { user, password, session, csrf: await sessionCsrf(app, session) };
}

const firstName = async (id: number) => (await app.db('users').where({ id }).first()).first_name as string;

test.each([
  ['an Origin of another site', { Origin: 'https://evil.example' }],
  ['an Origin of another port of this host', { Origin: 'http://127.0.0.1:1' }],
  ['Sec-Fetch-Site: cross-site', { 'Sec-Fetch-Site': 'cross-site' }],
  ['Sec-Fetch-Site: same-site (a sibling subdomain)', { 'Sec-Fetch-Site': 'same-site' }],
  ['Sec-Fetch-Site: cross-site with a same-origin Origin', { 'Sec-Fetch-Site': 'cross-site', Origin: 'SELF' }],
])('a profile form with a valid token and %s is refused (403) and changes nothing', async (_name, given) => {
  const p = await person();
  const headers = Object.fromEntries(Object.entries(given).map(([k, v]) => [k, v === 'SELF' ? app.baseUrl : v]));
  const res = await app.post('/settings/profile', {
    ...PAGE,
    session: p.session,
    headers,
    form: { csrf_token: p.csrf, timezone: 'UTC', first_name: 'Mallory' },
  });
  expect(res.status).toBe(403);
  expect(res.text).toContain('This form was sent from another site');
  expect(await firstName(p.user.id)).toBe('');
});

test.each([
  ['Origin: this service', { Origin: 'SELF' }],
  ['Sec-Fetch-Site: same-origin', { 'Sec-Fetch-Site': 'same-origin', Origin: 'SELF' }],
  ['Sec-Fetch-Site: none (typed by the person)', { 'Sec-Fetch-Site': 'none' }],
  ['neither header (a script or an older browser)', {}],
  ['Origin: null (the token decides: test/security/web-attacks.test.ts)', { Origin: 'null' }],
])('a profile form with %s is saved', async (_name, given) => {
  const p = await person();
  const headers = Object.fromEntries(Object.entries(given).map(([k, v]) => [k, v === 'SELF' ? app.baseUrl : v]));
  const res = await app.post('/settings/profile', { ...PAGE, session: p.session, headers, form: { csrf_token: p.csrf, timezone: 'UTC', first_name: 'Alice' } });
  expect(res.status).toBe(303);
  expect(await firstName(p.user.id)).toBe('Alice');
});

test('log-in, log-out and account deletion forms from another site are refused too', async () => {
  const p = await person();
  const cross = { Origin: 'https://evil.example' };
  const { cookies, csrf } = await anonymousForm(app, '/login');
  expect(
    (await app.post('/login', { ...PAGE, cookies, headers: cross, form: { username: p.user.username, password: p.password, csrf_token: csrf } })).status,
  ).toBe(403);
  expect((await app.post('/logout', { ...PAGE, session: p.session, headers: cross, form: { csrf_token: p.csrf } })).status).toBe(403);
  const accountCsrf = await sessionCsrf(app, p.session, '/settings/account');
  expect(
    (
      await app.post('/settings/account/delete', {
        ...PAGE,
        session: p.session,
        headers: cross,
        form: { csrf_token: accountCsrf, password: p.password, confirm: p.user.username },
      })
    ).status,
  ).toBe(403);
  expect(await app.db('users').where({ id: p.user.id }).first()).toBeDefined();
  expect((await app.get('/settings/profile', { ...PAGE, session: p.session })).status).toBe(200);
});

test('the consent form from another site grants nothing: 403, no code, no redirect', async () => {
  const p = await person();
  const { client } = await registerApp(app, p.user);
  const params = { response_type: 'code', client_id: client.client_id, redirect_uri: REDIRECT_URI, scope: 'mood_read', state: 's' };
  const page = await app.get(`/oauth2/authorize?${new URLSearchParams(params)}`, { session: p.session });
  const res = await app.post('/oauth2/authorize', {
    session: p.session,
    headers: { 'Sec-Fetch-Site': 'cross-site' },
    form: { ...params, csrf_token: csrfOf(page.text), decision: 'allow' },
  });
  expect(res.status).toBe(403);
  expect(res.headers.get('location')).toBeNull();
  expect(await app.db('authorisation_codes').where({ user_id: p.user.id })).toEqual([]);
});

test('the API is not a form endpoint: a cross-site Origin on the simple-token endpoint is answered as usual', async () => {
  const p = await person();
  const res = await app.post('/api/1/auth/simple-token/', {
    headers: { Origin: 'https://evil.example' },
    form: { username: p.user.username, password: p.password },
  });
  expect(res.status).toBe(200);
});

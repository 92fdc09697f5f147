/** Rule 1: sign up, log in, log out, the login throttle, the profile settings page; and what every page carries. */
import { startTestApp, type TestApp } from '../support/app';
import { makeSession, makeUser } from '../support/fixtures';
import { PAGE, anonymousForm, csrfOf, logIn, sessionCsrf, setCookie, setCookieLine } from '../support/web';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ TRUST_PROXY: '1' });
});
// A test that moves the clock gets the file's clock back, even when one of its assertions fails.
afterEach(() => {
  app.setNow(undefined);
});
afterAll(async () => {
  app.setNow(undefined);
  await app.close();
});

let addressCounter = 0;
function freshAddress(): Record<string, string> {
  addressCounter += 1;
  return { 'X-Forwarded-For': `203.0.113.${addressCounter}` };
}

let nameCounter = 0;
const newName = () => `web_${process.pid}_${(nameCounter += 1)}`;

async function signUp(username: string, password: string, extra: Record<string, string> = {}, headers: Record<string, string> = {}) {
  const { cookies, csrf } = await anonymousForm(app, '/signup');
  return app.post('/signup', { ...PAGE, cookies, headers, form: { username, password, password2: password, csrf_token: csrf, ...extra } });
}

describe('sign up', () => {
  test('creates the account, logs the person in with an HttpOnly SameSite=Lax session cookie and stores the password with scrypt', async () => {
    const username = newName();
    const res = await signUp(username, 'a long enough password', { timezone: 'Europe/Paris' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/data');
    const line = setCookieLine(res, 'daybook_session')!;
    expect(line).toMatch(/HttpOnly/);
    expect(line).toMatch(/SameSite=Lax/);
    expect(line).not.toMatch(/Secure/);
    const row = await app.db('users').where({ username }).first();
    expect(row.password_hash).toMatch(/^scrypt\$/);
    expect(row.password_hash).not.toContain('a long enough password');
    expect(row.timezone).toBe('Europe/Paris');
    const profile = await app.get('/api/2/accounts/profile/', { session: setCookie(res, 'daybook_session') });
    expect(profile.body.username).toBe(username);
  });

  test('behind HTTPS the session cookie is Secure', async () => {
    const res = await signUp(newName(), 'a long enough password', {}, { 'X-Forwarded-Proto': 'https' });
    expect(setCookieLine(res, '__Host-daybook_session')).toMatch(/; Secure/);
  });

  test('a taken user name, a short password or two different passwords re-show the form with the problem (400)', async () => {
    const { user } = await makeUser(app);
    const taken = await signUp(user.username, 'a long enough password');
    expect(taken.status).toBe(400);
    expect(taken.text).toContain('is taken');
    expect((await signUp(newName(), 'short')).status).toBe(400);
    const { cookies, csrf } = await anonymousForm(app, '/signup');
    const differ = await app.post('/signup', {
      ...PAGE,
      cookies,
      form: { username: newName(), password: 'a long enough password', password2: 'another long password', csrf_token: csrf },
    });
    expect(differ.status).toBe(400);
    expect(differ.text).toContain('The two passwords differ.');
  });

  test('the sign-up form without its anti-forgery token is refused (403) and creates nothing', async () => {
    const username = newName();
    const res = await app.post('/signup', { ...PAGE, form: { username, password: 'a long enough password', password2: 'a long enough password' } });
    expect(res.status).toBe(403);
    expect(await app.db('users').where({ username }).first()).toBeUndefined();
  });
});

describe('log in and log out', () => {
  test("correct credentials start a session and go to the person's data", async () => {
    const { user, password } = await makeUser(app);
    const res = await logIn(app, user.username, password, freshAddress());
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/data');
    const session = setCookie(res, 'daybook_session')!;
    expect((await app.get('/settings/profile', { ...PAGE, session })).status).toBe(200);
  });

  test('user names are matched whatever their letter case', async () => {
    const { user, password } = await makeUser(app);
    expect((await logIn(app, user.username.toUpperCase(), password, freshAddress())).status).toBe(303);
  });

  test('wrong credentials never say which part was wrong', async () => {
    const { user, password } = await makeUser(app);
    const wrongPassword = await logIn(app, user.username, `${password}x`, freshAddress());
    const wrongUser = await logIn(app, `${user.username}x`, password, freshAddress());
    for (const res of [wrongPassword, wrongUser]) {
      expect(res.status).toBe(400);
      expect(res.text).toContain('The user name or password is incorrect.');
      expect(setCookie(res, 'daybook_session')).toBeUndefined();
    }
  });

  test('the login form without its anti-forgery token is refused (403)', async () => {
    const { user, password } = await makeUser(app);
    const res = await app.post('/login', { ...PAGE, headers: freshAddress(), form: { username: user.username, password } });
    expect(res.status).toBe(403);
    expect(setCookie(res, 'daybook_session')).toBeUndefined();
  });

  test('the 6th failure in 15 minutes for an account from one address is 429 with Retry-After, even with the correct password; another address still logs in', async () => {
    const { user, password } = await makeUser(app);
    const address = freshAddress();
    for (let i = 0; i < 5; i += 1) expect((await logIn(app, user.username, 'wrong password', address)).status).toBe(400);
    const res = await logIn(app, user.username, password, address);
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(res.text).toContain('Too many failed attempts');
    expect(setCookie(res, 'daybook_session')).toBeUndefined();
    expect((await logIn(app, user.username, password, freshAddress())).status).toBe(303);
  });

  test('the 21st failure in 15 minutes from one address, across accounts, is 429', async () => {
    const address = freshAddress();
    for (let i = 0; i < 20; i += 1) expect((await logIn(app, `nobody_${i}_${process.pid}`, 'guess', address)).status).toBe(400);
    const { user, password } = await makeUser(app);
    expect((await logIn(app, user.username, password, address)).status).toBe(429);
  });

  test('a successful log-in gives the browser an HttpOnly device cookie', async () => {
    const { user, password } = await makeUser(app);
    const res = await logIn(app, user.username, password, freshAddress());
    expect(setCookieLine(res, 'daybook_device')).toMatch(
      /^daybook_device=[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}; Path=\/; Max-Age=15552000; HttpOnly; SameSite=Lax$/,
    );
  });

  test('after logging in, next= leads back to a local page only', async () => {
    const { user, password } = await makeUser(app);
    for (const [next, expected] of [
      ['/settings/apps', '/settings/apps'],
      ['//evil.example.net/x', '/data'],
      ['https://evil.example.net/', '/data'],
      ['/\\evil.example.net', '/data'],
    ]) {
      const { cookies, csrf } = await anonymousForm(app, '/login');
      const res = await app.post('/login', { ...PAGE, cookies, headers: freshAddress(), form: { username: user.username, password, csrf_token: csrf, next } });
      expect(res.headers.get('location')).toBe(expected);
    }
  });

  test('log out ends the session: the cookie no longer opens pages or the API', async () => {
    const { user } = await makeUser(app);
    const session = await makeSession(app, user);
    const csrf = await sessionCsrf(app, session);
    const res = await app.post('/logout', { ...PAGE, session, form: { csrf_token: csrf } });
    expect(res.status).toBe(303);
    expect(setCookieLine(res, 'daybook_session')).toMatch(/Max-Age=0/);
    const page = await app.get('/settings/profile', { ...PAGE, session });
    expect(page.status).toBe(303);
    expect(page.headers.get('location')).toBe('/login?next=%2Fsettings%2Fprofile');
    expect((await app.get('/api/2/accounts/profile/', { session })).status).toBe(401);
  });

  test('log out without the anti-forgery token is refused (403) and keeps the session', async () => {
    const { user } = await makeUser(app);
    const session = await makeSession(app, user);
    expect((await app.post('/logout', { ...PAGE, session, form: {} })).status).toBe(403);
    expect((await app.get('/settings/profile', { ...PAGE, session })).status).toBe(200);
  });
});

describe('every page', () => {
  test.each(['/login', '/signup', '/settings/profile', '/settings/apps', '/settings/connected-apps', '/settings/attributes', '/settings/simple-token'])(
    '%s has a CSP with frame-ancestors none, is not cached, and its forms carry an anti-forgery token',
    async (path) => {
      const { user } = await makeUser(app);
      const session = await makeSession(app, user);
      const res = await app.get(path, { ...PAGE, session: path.startsWith('/settings') ? session : undefined });
      expect(res.status).toBe(200);
      const csp = res.headers.get('content-security-policy')!;
      expect(csp).toContain("default-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain("script-src 'none'");
      expect(res.headers.get('cache-control')).toBe('no-store');
      const forms = res.text.match(/<form /g) ?? [];
      const tokens = res.text.match(/name="csrf_token"/g) ?? [];
      expect(forms.length).toBeGreaterThan(0);
      expect(tokens.length).toBe(forms.length);
    },
  );

  test('settings pages send a logged-out person to the login page and back', async () => {
    const res = await app.get('/settings/apps', PAGE);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/login?next=%2Fsettings%2Fapps');
  });
});

describe('profile settings page', () => {
  test('sets first and last name, avatar URL, timezone, the imperial flags, bio, url and private', async () => {
    const { user } = await makeUser(app);
    const session = await makeSession(app, user);
    const csrf = await sessionCsrf(app, session);
    const res = await app.post('/settings/profile', {
      ...PAGE,
      session,
      form: {
        csrf_token: csrf,
        first_name: 'Ada',
        last_name: 'Lovelace <3',
        avatar: 'https://example.org/ada.png',
        timezone: 'Pacific/Auckland',
        imperial_distance: '1',
        imperial_temperature: '1',
        bio: 'Counts things.',
        url: 'https://ada.example.org/',
        private: '1',
      },
    });
    expect(res.status).toBe(303);
    const profile = await app.get('/api/2/accounts/profile/', { session });
    expect(profile.body).toMatchObject({
      first_name: 'Ada',
      last_name: 'Lovelace <3',
      avatar: 'https://example.org/ada.png',
      timezone: 'Pacific/Auckland',
      imperial_distance: true,
      imperial_weight: false,
      imperial_energy: false,
      imperial_liquid: false,
      imperial_temperature: true,
    });
    const row = await app.db('users').where({ id: user.id }).first();
    expect(row).toMatchObject({ bio: 'Counts things.', url: 'https://ada.example.org/', private: true });
    const page = await app.get('/settings/profile?saved=1', { ...PAGE, session });
    expect(page.text).toContain('Lovelace &lt;3');
    expect(page.text).toContain('<option value="Pacific/Auckland" selected>');
  });

  test('the timezone drives "today": local_time follows the timezone chosen on the page', async () => {
    const { user } = await makeUser(app, { timezone: 'UTC' });
    const session = await makeSession(app, user);
    app.setNow(new Date('2026-11-22T11:30:00Z'));
    const csrf = await sessionCsrf(app, session);
    await app.post('/settings/profile', { ...PAGE, session, form: { csrf_token: csrf, timezone: 'Pacific/Kiritimati' } });
    const profile = await app.get('/api/2/accounts/profile/', { session });
    expect(profile.body.local_time).toBe('2026-11-23T01:30:00+14:00');
    app.setNow(undefined);
  });

  test('an unknown timezone or an avatar that is not a web address is refused (400) and saves nothing', async () => {
    const { user } = await makeUser(app);
    const session = await makeSession(app, user);
    const csrf = await sessionCsrf(app, session);
    const badZone = await app.post('/settings/profile', { ...PAGE, session, form: { csrf_token: csrf, timezone: 'Mars/Olympus', first_name: 'X' } });
    expect(badZone.status).toBe(400);
    expect(badZone.text).toContain('Unknown timezone');
    const badAvatar = await app.post('/settings/profile', { ...PAGE, session, form: { csrf_token: csrf, timezone: 'UTC', avatar: 'javascript:alert(1)' } });
    expect(badAvatar.status).toBe(400);
    expect((await app.db('users').where({ id: user.id }).first()).first_name).toBe('');
  });

  test('a profile form without a valid anti-forgery token is refused (403)', async () => {
    const { user } = await makeUser(app);
    const session = await makeSession(app, user);
    const other = await makeSession(app, user);
    const otherCsrf = csrfOf((await app.get('/settings/profile', { ...PAGE, session: other })).text);
    for (const csrf of ['', 'forged', otherCsrf]) {
      const res = await app.post('/settings/profile', { ...PAGE, session, form: { csrf_token: csrf, timezone: 'UTC', first_name: 'Eve' } });
      expect(res.status).toBe(403);
    }
    expect((await app.db('users').where({ id: user.id }).first()).first_name).toBe('');
  });
});

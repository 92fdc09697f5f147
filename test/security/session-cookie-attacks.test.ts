/**
 * Issue 30, item 6 (sessions): the session cookie is `__Host-`-prefixed over HTTPS, so a sibling
 * subdomain or a plain-HTTP answer cannot plant or overwrite it (cookie tossing, session fixation);
 * sessions from before the prefix survive a deploy, moved to the new name on first use; and a
 * session unused longer than SESSION_IDLE_MINUTES is refused (a browser left logged in on a shared
 * computer), while one in use is extended. docs/security.md, "Session cookies".
 */
import { startTestApp, type TestApp } from '../support/app';
import { makeSession, makeUser } from '../support/fixtures';
import { PAGE, logIn, setCookie, setCookieLine } from '../support/web';

const HOST_COOKIE = '__Host-daybook_session';
const PLAIN_COOKIE = 'daybook_session';
const HTTPS = { 'X-Forwarded-Proto': 'https' };

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ TRUST_PROXY: '1' });
});
afterAll(async () => {
  await app.close();
});

/** Is a page served to this browser (cookies, headers) as logged in? */
async function loggedIn(cookies: Record<string, string>, headers: Record<string, string> = {}): Promise<boolean> {
  const res = await app.get('/settings/account', { ...PAGE, cookies, headers });
  expect([200, 303]).toContain(res.status);
  return res.status === 200;
}

/** A `__Host-` cookie line as browsers require it: Secure, Path=/, no Domain. */
function expectHostCookieLine(line: string | undefined): void {
  expect(line).toBeDefined();
  expect(line).toMatch(/; Secure/);
  expect(line).toMatch(/; Path=\/(;|$)/);
  expect(line).toMatch(/; HttpOnly/);
  expect(line).not.toMatch(/Domain=/i);
}

describe('cookie names', () => {
  test('over HTTPS behind a trusted proxy the session cookie is __Host- (Secure, Path=/, no Domain) and works', async () => {
    const { user, password } = await makeUser(app);
    const res = await logIn(app, user.username, password, HTTPS);
    expect(res.status).toBe(303);
    expectHostCookieLine(setCookieLine(res, HOST_COOKIE));
    expect(setCookie(res, PLAIN_COOKIE)).toBeUndefined();
    const id = setCookie(res, HOST_COOKIE)!;
    expect(await loggedIn({ [HOST_COOKIE]: id }, HTTPS)).toBe(true);
  });

  test('with an https PUBLIC_URL the session cookie is __Host- too', async () => {
    const https = await startTestApp({ PUBLIC_URL: 'https://daybook.example.test' });
    try {
      const { user, password } = await makeUser(https);
      const res = await logIn(https, user.username, password, { Origin: 'https://daybook.example.test' });
      expect(res.status).toBe(303);
      expectHostCookieLine(setCookieLine(res, HOST_COOKIE));
    } finally {
      await https.close();
    }
  });

  test('over plain HTTP (development) the cookie keeps its plain name, without Secure', async () => {
    const { user, password } = await makeUser(app);
    const res = await logIn(app, user.username, password);
    const line = setCookieLine(res, PLAIN_COOKIE);
    expect(line).toBeDefined();
    expect(line).not.toMatch(/Secure/);
    expect(setCookie(res, HOST_COOKIE)).toBeUndefined();
  });
});

describe('cookie tossing', () => {
  test("a session issued as __Host-, planted under the plain name (a sibling subdomain's cookie), is refused over HTTPS", async () => {
    const { user: attacker, password } = await makeUser(app);
    const attackersId = setCookie(await logIn(app, attacker.username, password, HTTPS), HOST_COOKIE)!;
    expect(await loggedIn({ [PLAIN_COOKIE]: attackersId }, HTTPS)).toBe(false);
    const api = await app.get('/api/2/accounts/profile/', { cookies: { [PLAIN_COOKIE]: attackersId }, headers: HTTPS });
    expect(api.status).toBe(401);
  });

  test('a planted plain cookie does not override the __Host- one the browser holds', async () => {
    const { user: owner, password } = await makeUser(app);
    const { user: attacker } = await makeUser(app);
    const ownersId = setCookie(await logIn(app, owner.username, password, HTTPS), HOST_COOKIE)!;
    const planted = await makeSession(app, attacker);
    const res = await app.get('/api/2/accounts/profile/', { cookies: { [PLAIN_COOKIE]: planted, [HOST_COOKIE]: ownersId }, headers: HTTPS });
    expect(res.body.username).toBe(owner.username);
  });
});

describe('the transition', () => {
  test('a session from before the deploy, under the plain name, survives over HTTPS and moves to the __Host- name', async () => {
    const { user } = await makeUser(app);
    const before = await makeSession(app, user);
    const res = await app.get('/settings/account', { ...PAGE, cookies: { [PLAIN_COOKIE]: before }, headers: HTTPS });
    expect(res.status).toBe(200);
    expectHostCookieLine(setCookieLine(res, HOST_COOKIE));
    expect(setCookie(res, HOST_COOKIE)).toBe(before);
    expect(Number(/Max-Age=(\d+)/.exec(setCookieLine(res, HOST_COOKIE)!)![1])).toBeGreaterThan(13 * 24 * 3600);
    expect(setCookieLine(res, PLAIN_COOKIE)).toMatch(/Max-Age=0/);

    expect(await loggedIn({ [HOST_COOKIE]: before }, HTTPS)).toBe(true);
    // Moved: the plain name no longer carries it.
    expect(await loggedIn({ [PLAIN_COOKIE]: before }, HTTPS)).toBe(false);
  });
});

describe('idle timeout', () => {
  const idleMs = () => app.deps.config.sessionIdleMinutes * 60_000;
  const lastSeen = async (id: string) => new Date((await app.db('sessions').where({ user_id: id }).first('last_seen_at')).last_seen_at).getTime();

  test('the default is 7 days, within the 14-day lifetime', () => {
    expect(app.deps.config.sessionIdleMinutes).toBe(7 * 24 * 60);
  });

  test('a session left unused past the idle timeout is refused on the pages and the API', async () => {
    const { user } = await makeUser(app);
    const session = await makeSession(app, user);
    await app
      .db('sessions')
      .where({ user_id: user.id })
      .update({ last_seen_at: new Date(Date.now() - idleMs() - 60_000) });
    expect(await loggedIn({ [PLAIN_COOKIE]: session })).toBe(false);
    expect((await app.get('/api/2/accounts/profile/', { session })).status).toBe(401);
    // Nor is it listed among the person's sessions any more.
    const active = await makeSession(app, user);
    const account = await app.get('/settings/account', { ...PAGE, session: active });
    expect(account.text.match(/<li class="session">/g)).toHaveLength(1);
  });

  test('a session in use is extended: each use past a minute records it, and it lives on past the idle timeout from its start', async () => {
    const { user } = await makeUser(app);
    const session = await makeSession(app, user);
    const almostIdle = new Date(Date.now() - idleMs() + 60 * 60_000);
    await app.db('sessions').where({ user_id: user.id }).update({ last_seen_at: almostIdle });
    expect(await loggedIn({ [PLAIN_COOKIE]: session })).toBe(true);
    expect(await lastSeen(String(user.id))).toBeGreaterThan(Date.now() - 60_000);

    // The API use extends it too.
    await app.db('sessions').where({ user_id: user.id }).update({ last_seen_at: almostIdle });
    expect((await app.get('/api/2/accounts/profile/', { session })).status).toBe(200);
    expect(await lastSeen(String(user.id))).toBeGreaterThan(Date.now() - 60_000);

    // Within the minute nothing is written: reads do not write per request.
    const recent = new Date(Date.now() - 30_000);
    await app.db('sessions').where({ user_id: user.id }).update({ last_seen_at: recent });
    expect(await loggedIn({ [PLAIN_COOKIE]: session })).toBe(true);
    expect(await lastSeen(String(user.id))).toBe(recent.getTime());
  });
});

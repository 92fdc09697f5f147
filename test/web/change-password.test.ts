/**
 * Changing one's password on the account page: the current password is required and checked like
 * a sign-in (throttled), the new one is typed twice, every other session is logged out and this
 * one stays, and the form is protected against forgery like the other pages.
 */
import { startTestApp, type TestApp } from '../support/app';
import { makeSession, makeUser, resetSignInThrottle } from '../support/fixtures';
import { PAGE, csrfOf, logIn } from '../support/web';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

async function changePassword(session: string, form: Record<string, string>) {
  const page = await app.get('/settings/account', { ...PAGE, session });
  return app.post('/settings/account/password', { ...PAGE, session, form: { csrf_token: csrfOf(page.text), ...form } });
}

async function isLoggedIn(session: string): Promise<boolean> {
  return (await app.get('/settings/account', { ...PAGE, session })).status === 200;
}

test('a new password works at once, the old one no more; this session stays and every other one is logged out', async () => {
  const { user, password } = await makeUser(app);
  const here = await makeSession(app, user);
  const elsewhere = await makeSession(app, user);

  const changed = await changePassword(here, { current_password: password, new_password: 'a brand new secret', repeat_password: 'a brand new secret' });
  expect(changed.status).toBe(200);
  expect(changed.text).toContain('Your password has been changed. Logged out 1 other session.');

  expect(await isLoggedIn(here)).toBe(true);
  expect(await isLoggedIn(elsewhere)).toBe(false);
  expect((await logIn(app, user.username, 'a brand new secret')).status).toBe(303);
  expect((await logIn(app, user.username, password)).status).not.toBe(303);
});

test('a wrong current password, two different new ones, a short one or a forged form change nothing', async () => {
  await resetSignInThrottle(app);
  const { user, password } = await makeUser(app);
  const session = await makeSession(app, user);
  const cases: Array<[Record<string, string>, RegExp]> = [
    [
      { current_password: 'not my password', new_password: 'a brand new secret', repeat_password: 'a brand new secret' },
      /Your current password is incorrect\./,
    ],
    [{ current_password: password, new_password: 'a brand new secret', repeat_password: 'a brand new secreT' }, /The two new passwords differ\./],
    [{ current_password: password, new_password: 'short', repeat_password: 'short' }, /A password is 8 to 1024 characters long\./],
  ];
  for (const [form, message] of cases) {
    const res = await changePassword(session, form);
    expect(res.status).toBe(400);
    expect(res.text).toMatch(message);
  }
  const forged = await app.post('/settings/account/password', {
    ...PAGE,
    session,
    form: { current_password: password, new_password: 'a brand new secret', repeat_password: 'a brand new secret' },
  });
  expect(forged.status).toBe(403);
  expect((await logIn(app, user.username, password)).status).toBe(303);
});

test('wrong current passwords are throttled as at the login form, even when the right one follows', async () => {
  await resetSignInThrottle(app);
  const { user, password } = await makeUser(app);
  const session = await makeSession(app, user);
  const form = (current: string) => ({ current_password: current, new_password: 'a brand new secret', repeat_password: 'a brand new secret' });
  for (let i = 0; i < 5; i++) expect((await changePassword(session, form(`wrong ${i}`))).status).toBe(400);
  const throttled = await changePassword(session, form(password));
  expect(throttled.status).toBe(429);
  expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThan(0);
  expect(throttled.text).toMatch(/Too many wrong passwords/);
  await resetSignInThrottle(app);
  expect((await logIn(app, user.username, password)).status).toBe(303);
});

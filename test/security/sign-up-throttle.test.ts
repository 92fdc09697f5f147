/**
 * Finding 3: sign-up is throttled per address (SIGN_UPS_PER_HOUR, 10 by default; each sign-up
 * costs a scrypt hash), with the same clear 429 page as the log-in form. Counted by the app's clock.
 */
import { startTestApp, type TestApp } from '../support/app';
import { makeUser } from '../support/fixtures';
import { PAGE, anonymousForm, logIn, setCookie } from '../support/web';

let app: TestApp;
const start = new Date('2026-11-10T08:00:00Z');
beforeAll(async () => {
  app = await startTestApp({ TRUST_PROXY: '1' });
  app.setNow(start);
});
// A test that moves the clock gets the file's clock back, even when one of its assertions fails.
afterEach(() => {
  app.setNow(start);
});
afterAll(async () => {
  app.setNow(undefined);
  await app.close();
});

let counter = 0;
async function signUp(address: string, password = 'a long enough password') {
  counter += 1;
  const { cookies, csrf } = await anonymousForm(app, '/signup');
  const form = { username: `signup_${process.pid}_${counter}`, password, password2: password, csrf_token: csrf };
  return app.post('/signup', { ...PAGE, cookies, headers: { 'X-Forwarded-For': address }, form });
}

test('ten sign-up attempts an hour from one address; the 11th is a 429 page with Retry-After that makes no account; other addresses go on', async () => {
  const address = '198.51.100.200';
  for (let i = 0; i < 9; i += 1) expect((await signUp(address)).status).toBe(303);
  expect((await signUp(address, 'short')).status).toBe(400); // a refused attempt counts: its hash was paid for
  const refused = await signUp(address);
  expect(refused.status).toBe(429);
  expect(refused.headers.get('content-type')).toMatch(/^text\/html/);
  expect(refused.text).toContain('Too many sign-ups from your address. Try again in 60 minutes.');
  expect(refused.text).toContain('<form method="post" action="/signup">');
  expect(Number(refused.headers.get('retry-after'))).toBe(3600);
  expect(setCookie(refused, 'daybook_session')).toBeUndefined();
  expect(
    await app
      .db('users')
      .where({ username: `signup_${process.pid}_${counter}` })
      .first(),
  ).toBeUndefined();
  expect((await signUp('198.51.100.201')).status).toBe(303);
});

test('the count is of the last hour: an hour after the first attempt, the address may sign up again', async () => {
  const address = '198.51.100.202';
  app.setNow(start);
  for (let i = 0; i < 10; i += 1) await signUp(address);
  app.setNow(new Date(start.getTime() + 59 * 60 * 1000));
  expect((await signUp(address)).status).toBe(429);
  app.setNow(new Date(start.getTime() + 60 * 60 * 1000));
  expect((await signUp(address)).status).toBe(303);
});

test("the 429 page is the same kind as the log-in form's: the form again, the problem in an alert, Retry-After", async () => {
  const address = '198.51.100.203';
  const { user } = await makeUser(app);
  for (let i = 0; i < 5; i += 1) await logIn(app, user.username, 'wrong', { 'X-Forwarded-For': address });
  const login = await logIn(app, user.username, 'wrong', { 'X-Forwarded-For': address });
  for (let i = 0; i < 10; i += 1) await signUp(address);
  const signup = await signUp(address);
  for (const res of [login, signup]) {
    expect(res.status).toBe(429);
    expect(res.text).toMatch(/<p class="error" role="alert">Too many [^<]+ Try again in \d+ minutes?\.<\/p>/);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  }
});

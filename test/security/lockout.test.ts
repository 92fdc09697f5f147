/**
 * Finding 2: nobody can lock another person out. Wrong passwords for dave from somewhere else must
 * not refuse dave's correct password at the log-in form, the simple-token endpoint or account
 * deletion. Failures are throttled per (account, address); many addresses at once only add a
 * growing delay, which a browser holding dave's device cookie passes. One address guessing one
 * account's password is still stopped. Windows are moved with the app's clock, never waited for.
 */
import { startTestApp, type TestApp } from '../support/app';
import { makeSession, makeUser } from '../support/fixtures';
import { PAGE, anonymousForm, logIn, sessionCsrf, setCookie } from '../support/web';

let app: TestApp;
let clock: Date;
let testNumber = 0;
beforeAll(async () => {
  app = await startTestApp({ TRUST_PROXY: '1' });
});
beforeEach(() => {
  // Each test starts on its own day, so no window of one reaches into the next.
  testNumber += 1;
  clock = new Date(Date.UTC(2026, 10, 1) + testNumber * 24 * 3_600_000);
  app.setNow(clock);
});
afterAll(async () => {
  app.setNow(undefined);
  await app.close();
});

let addressCounter = 0;
function address(): Record<string, string> {
  addressCounter += 1;
  return { 'X-Forwarded-For': `10.${process.pid % 250}.${Math.floor(addressCounter / 250)}.${addressCounter % 250}` };
}
function later(seconds: number): void {
  clock = new Date(clock.getTime() + seconds * 1000);
  app.setNow(clock);
}

const simpleToken = (headers: Record<string, string>, username: string, password: string, cookies?: Record<string, string>) =>
  app.post('/api/1/auth/simple-token/', { headers, cookies, form: { username, password } });

async function deleteAccount(session: string, username: string, password: string, headers: Record<string, string>) {
  const csrf = await sessionCsrf(app, session, '/settings/account');
  return app.post('/settings/account/delete', { ...PAGE, session, headers, form: { csrf_token: csrf, password, confirm: username } });
}

test("five wrong passwords for dave from one address do not refuse dave's own log-in, simple token or account deletion from his", async () => {
  const dave = await makeUser(app);
  const attacker = address();
  for (let i = 0; i < 3; i += 1) expect((await logIn(app, dave.user.username, 'wrong', attacker)).status).toBe(400);
  for (let i = 0; i < 2; i += 1) expect((await simpleToken(attacker, dave.user.username, 'wrong')).status).toBe(400);
  expect((await logIn(app, dave.user.username, dave.password, attacker)).status).toBe(429);

  const home = address();
  expect((await logIn(app, dave.user.username, dave.password, home)).status).toBe(303);
  expect((await simpleToken(home, dave.user.username, dave.password)).status).toBe(200);
  const session = await makeSession(app, dave.user);
  const deleted = await deleteAccount(session, dave.user.username, dave.password, home);
  expect(deleted.status).toBe(200);
  expect(deleted.text).toContain('have been deleted');
  expect(await app.db('users').where({ id: dave.user.id }).first()).toBeUndefined();
});

test("one address guessing one account's password is still stopped: the 6th attempt is 429 even when right, until the 15-minute window has passed", async () => {
  const { user, password } = await makeUser(app);
  const guesser = address();
  for (let i = 0; i < 5; i += 1) expect((await logIn(app, user.username, `guess ${i}`, guesser)).status).toBe(400);
  const refused = await logIn(app, user.username, password, guesser);
  expect(refused.status).toBe(429);
  const wait = Number(refused.headers.get('retry-after'));
  expect(wait).toBeGreaterThan(14 * 60);
  expect(wait).toBeLessThanOrEqual(15 * 60);
  expect((await simpleToken(guesser, user.username, password)).status).toBe(429);
  later(wait - 5);
  expect((await logIn(app, user.username, password, guesser)).status).toBe(429);
  later(5);
  expect((await logIn(app, user.username, password, guesser)).status).toBe(303);
});

test('failures from many addresses at once add a growing delay, never a hard lock', async () => {
  const { user, password } = await makeUser(app);
  // Three addresses, two failures each: six failures from many places.
  for (let a = 0; a < 3; a += 1) {
    const from = address();
    for (let i = 0; i < 2; i += 1) expect((await simpleToken(from, user.username, 'wrong')).status).toBe(400);
  }
  const first = await simpleToken(address(), user.username, password);
  expect(first.status).toBe(429);
  const firstWait = Number(first.headers.get('retry-after'));
  expect(firstWait).toBeGreaterThan(0);
  expect(firstWait).toBeLessThanOrEqual(2);
  // Each failure made once the delay is over doubles it, up to five minutes.
  const waits = [firstWait];
  while (waits[waits.length - 1] < 300 && waits.length < 20) {
    later(waits[waits.length - 1]);
    expect((await simpleToken(address(), user.username, 'wrong')).status).toBe(400);
    const held = await simpleToken(address(), user.username, password);
    expect(held.status).toBe(429);
    waits.push(Number(held.headers.get('retry-after')));
  }
  expect(waits).toEqual([2, 4, 8, 16, 32, 64, 128, 256, 300]);
  // After it, the right password works from anywhere: a delay, not a lock.
  later(300);
  expect((await simpleToken(address(), user.username, password)).status).toBe(200);
});

test('a browser holding the device cookie of an earlier log-in to the account passes the account-wide delay', async () => {
  const { user, password } = await makeUser(app);
  const home = address();
  const earlier = await logIn(app, user.username, password, home);
  const device = setCookie(earlier, 'daybook_device')!;
  expect(device).toBeDefined();
  for (let a = 0; a < 4; a += 1) {
    const from = address();
    for (let i = 0; i < 3; i += 1) await logIn(app, user.username, 'wrong', from);
  }
  // A new browser is held back; the known one is not, and neither is a script sending the cookie.
  expect((await logIn(app, user.username, password, address())).status).toBe(429);
  const { cookies, csrf } = await anonymousForm(app, '/login');
  const known = await app.post('/login', {
    ...PAGE,
    headers: home,
    cookies: { ...cookies, daybook_device: device },
    form: { username: user.username, password, csrf_token: csrf },
  });
  expect(known.status).toBe(303);
  expect((await simpleToken(home, user.username, password, { daybook_device: device })).status).toBe(200);
});

test('a device cookie passes only for its own account, and stops passing after five failures of its own', async () => {
  const owner = await makeUser(app);
  const other = await makeUser(app);
  const device = setCookie(await logIn(app, owner.user.username, owner.password, address()), 'daybook_device')!;
  for (const target of [owner, other]) {
    for (let a = 0; a < 3; a += 1) {
      const from = address();
      for (let i = 0; i < 3; i += 1) await simpleToken(from, target.user.username, 'wrong');
    }
  }
  expect((await simpleToken(address(), other.user.username, other.password, { daybook_device: device })).status).toBe(429);
  const forged = `${device.split('.')[0]}.${'A'.repeat(43)}`;
  expect((await simpleToken(address(), owner.user.username, owner.password, { daybook_device: forged })).status).toBe(429);
  // Whoever holds the cookie guesses no faster than anyone: five failures with it, then it is an untrusted browser.
  const thief = address();
  for (let i = 0; i < 5; i += 1) expect((await simpleToken(thief, owner.user.username, 'stolen cookie guess', { daybook_device: device })).status).toBe(400);
  expect((await simpleToken(address(), owner.user.username, owner.password, { daybook_device: device })).status).toBe(429);
});

test('account deletion: wrong passwords in the session are throttled like a log-in, and failures elsewhere do not hold it back', async () => {
  const { user, password } = await makeUser(app);
  for (let a = 0; a < 4; a += 1) {
    const from = address();
    for (let i = 0; i < 5; i += 1) await logIn(app, user.username, 'wrong', from);
  }
  const session = await makeSession(app, user);
  const here = address();
  for (let i = 0; i < 5; i += 1) expect((await deleteAccount(session, user.username, 'wrong', here)).status).toBe(400);
  expect((await deleteAccount(session, user.username, password, here)).status).toBe(429);
  // From the session's own address the pair limit holds too; a fresh session elsewhere deletes.
  const fresh = await makeSession(app, user);
  expect((await deleteAccount(fresh, user.username, password, address())).status).toBe(200);
});

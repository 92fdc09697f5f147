/** Rule 9: POST /api/1/auth/simple-token/ and /api/2/auth/simple-token/, and their throttling. */
import { startTestApp, type TestApp } from '../../support/app';
import { makeUser } from '../../support/fixtures';
import { logIn } from '../../support/web';
import { resetSimpleToken } from '../../../src/domain/identity/users';

let app: TestApp;
beforeAll(async () => {
  // Each test signs in from its own address (X-Forwarded-For through a trusted proxy), so the
  // per-address throttle of one test does not spill into the next.
  app = await startTestApp({ TRUST_PROXY: '1' });
});
afterAll(async () => {
  await app.close();
});

let addressCounter = 0;
function freshAddress(): Record<string, string> {
  addressCounter += 1;
  return { 'X-Forwarded-For': `198.51.100.${addressCounter}` };
}

function multipart(fields: Record<string, string>): { raw: string; headers: Record<string, string> } {
  const boundary = '----daybook-test-boundary';
  const raw =
    Object.entries(fields)
      .map(([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`)
      .join('') + `--${boundary}--\r\n`;
  return { raw, headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}` } };
}

describe.each(['/api/1/auth/simple-token/', '/api/2/auth/simple-token/'])('POST %s', (path) => {
  test('a form with username and password returns {token}, the same token each time, with no-store', async () => {
    const { user, password, simpleToken } = await makeUser(app);
    const headers = freshAddress();
    const first = await app.post(path, { headers, form: { username: user.username, password } });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ token: simpleToken });
    expect(first.headers.get('cache-control')).toBe('no-store');
    const second = await app.post(path, { headers, form: { username: user.username, password } });
    expect(second.body.token).toBe(first.body.token);
    expect((await app.get('/api/2/accounts/profile/', { token: first.body.token })).status).toBe(200);
  });

  test('JSON and multipart bodies are accepted too', async () => {
    const { user, password, simpleToken } = await makeUser(app);
    const json = await app.post(path, { headers: freshAddress(), json: { username: user.username, password } });
    expect(json.body).toEqual({ token: simpleToken });
    const body = multipart({ username: user.username, password });
    const multi = await app.post(path, { raw: body.raw, headers: { ...body.headers, ...freshAddress() } });
    expect(multi.status).toBe(200);
    expect(multi.body).toEqual({ token: simpleToken });
  });

  test('the token changes only when the person resets it; the old one stops working', async () => {
    const { user, password, simpleToken } = await makeUser(app);
    const reset = await resetSimpleToken(app.db, user.id, app.deps.secretKey);
    const res = await app.post(path, { headers: freshAddress(), form: { username: user.username, password } });
    expect(res.body.token).toBe(reset);
    expect(reset).not.toBe(simpleToken);
    expect((await app.get('/api/2/accounts/profile/', { token: simpleToken })).status).toBe(401);
  });

  test('bad credentials are 400 with the error body, never saying which part was wrong', async () => {
    const { user, password } = await makeUser(app);
    const wrongPassword = await app.post(path, { headers: freshAddress(), form: { username: user.username, password: `${password}!` } });
    const wrongUser = await app.post(path, { headers: freshAddress(), form: { username: `${user.username}-nobody`, password } });
    expect(wrongPassword.status).toBe(400);
    expect(wrongUser.status).toBe(400);
    expect(wrongPassword.body).toEqual({ detail: 'Unable to log in with the provided credentials.' });
    expect(wrongUser.body).toEqual(wrongPassword.body);
  });

  test('a missing field is 400 naming it', async () => {
    const res = await app.post(path, { headers: freshAddress(), form: { username: 'someone' } });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].name).toBe('/password');
  });
});

describe('sign-in throttling of the simple-token endpoint', () => {
  const attempt = (headers: Record<string, string>, username: string, password: string) =>
    app.post('/api/1/auth/simple-token/', { headers, form: { username, password } });

  test('the 6th failure in 15 minutes for one account from one address is 429 with Retry-After, even with the correct password', async () => {
    const { user, password } = await makeUser(app);
    const address = freshAddress();
    for (let i = 0; i < 5; i += 1) expect((await attempt(address, user.username, 'wrong password')).status).toBe(400);
    const res = await attempt(address, user.username, password);
    expect(res.status).toBe(429);
    const retryAfter = Number(res.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(15 * 60);
    expect(res.body.detail).toMatch(/Too many failed sign-in attempts/);
    expect((await attempt(freshAddress(), user.username, password)).status).toBe(200);
  });

  test('the 21st failure in 15 minutes from one address is 429, whichever accounts were tried; other addresses are not held back', async () => {
    const address = freshAddress();
    for (let i = 0; i < 20; i += 1) {
      expect((await app.post('/api/2/auth/simple-token/', { headers: address, form: { username: `nobody-${i}`, password: 'guess' } })).status).toBe(400);
    }
    const { user, password } = await makeUser(app);
    expect((await app.post('/api/2/auth/simple-token/', { headers: address, form: { username: user.username, password } })).status).toBe(429);
    expect((await app.post('/api/2/auth/simple-token/', { headers: freshAddress(), form: { username: user.username, password } })).status).toBe(200);
  });

  test('failures at the login form and the simple-token endpoint count together', async () => {
    const { user, password } = await makeUser(app);
    const address = freshAddress();
    for (let i = 0; i < 3; i += 1) expect((await logIn(app, user.username, 'nope', address)).status).toBe(400);
    for (let i = 0; i < 2; i += 1) expect((await attempt(address, user.username, 'nope')).status).toBe(400);
    expect((await logIn(app, user.username, password, address)).status).toBe(429);
  });

  test('five failures are still allowed: the 5th failure is 400 and a correct attempt after four failures succeeds', async () => {
    const { user, password } = await makeUser(app);
    const address = freshAddress();
    for (let i = 0; i < 4; i += 1) await attempt(address, user.username, 'no');
    expect((await attempt(address, user.username, password)).status).toBe(200);
    expect((await attempt(address, user.username, 'no')).status).toBe(400);
    expect((await attempt(address, user.username, password)).status).toBe(429);
  });

  test('the answer is never cached: Cache-Control no-store and Pragma no-cache', async () => {
    const { user, password } = await makeUser(app);
    const res = await attempt(freshAddress(), user.username, password);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('pragma')).toBe('no-cache');
  });
});

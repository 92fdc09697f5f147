/** The operator CLI, run as operators run it (compiled, one JSON object on stdout). */
import { startTestApp, type TestApp } from '../support/app';
import { runAdmin } from '../support/admin-cli';

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

const admin = (...args: string[]) => runAdmin(app, args);
/** Runs the CLI with `input` piped to its standard input. */
const adminWithInput = (input: string | undefined, ...args: string[]) => runAdmin(app, args, { input });

test('create-user, create-client and issue-token provision a working token', async () => {
  const user = await admin('create-user', '--username', 'operator_alice', '--password', 'a long password', '--timezone', 'Europe/Paris');
  expect(user.code).toBe(0);
  const created = JSON.parse(user.stdout);
  expect(created).toEqual({ id: expect.any(Number), username: 'operator_alice', simple_token: expect.stringMatching(/^[\w-]{43}$/) });

  const client = JSON.parse(
    (await admin('create-client', '--owner', 'operator_alice', '--name', 'Scale sync', '--redirect-uri', 'https://scale.example.org/cb')).stdout,
  );
  expect(client).toEqual({ client_id: expect.any(String), client_secret: expect.any(String) });
  const publicClient = JSON.parse(
    (await admin('create-client', '--owner', 'operator_alice', '--name', 'Phone', '--redirect-uri', 'http://localhost:8000/', '--public')).stdout,
  );
  expect(Object.keys(publicClient)).toEqual(['client_id']);

  const issued = await admin('issue-token', '--username', 'operator_alice', '--client', client.client_id, '--scope', 'mood_read activity_write');
  const token = JSON.parse(issued.stdout);
  expect(token).toEqual({
    access_token: expect.any(String),
    refresh_token: expect.any(String),
    token_type: 'Bearer',
    scope: 'mood_read activity_write',
    expires_in: 31536000,
  });

  const profile = await app.get('/api/2/accounts/profile/', { bearer: token.access_token });
  expect(profile.body).toMatchObject({ username: 'operator_alice', timezone: 'Europe/Paris' });
  expect((await app.get('/api/2/accounts/profile/', { token: created.simple_token })).status).toBe(200);
});

test('demo loads the generator data for a user and prints counts', async () => {
  await admin('create-user', '--username', 'operator_demo', '--password', 'a long password');
  const result = await admin('demo', '--username', 'operator_demo', '--days', '30', '--seed', '7');
  expect(result.code).toBe(0);
  const counts = JSON.parse(result.stdout);
  expect(counts.attributes).toBeGreaterThan(0);
  expect(counts.values).toBeGreaterThan(counts.attributes);
  const [{ n }] = await app.db('attribute_values as v').join('users as u', 'u.id', 'v.user_id').where('u.username', 'operator_demo').count({ n: '*' });
  expect(Number(n)).toBe(counts.values);
});

test.each([
  [['frobnicate'], /Usage/],
  [['create-user', '--username', 'x'], /--password is required/],
  [['create-user', '--username', 'bob', '--password', 'long enough', '--colour', 'red'], /Unknown option --colour/],
  [['create-client', '--owner', 'nobody_here', '--name', 'N', '--redirect-uri', 'https://a.example/'], /No user named nobody_here/],
  [['create-user', '--username', 'carol', '--password', 'long enough', '--timezone', 'Mars/Olympus'], /Unknown timezone/],
  [['housekeeping', '--force'], /Unknown option --force; this command takes no options/],
])('bad arguments %j exit 2 with a clear message and print nothing on stdout', async (args, message) => {
  const result = await admin(...(args as string[]));
  expect(result.code).toBe(2);
  expect(result.stdout).toBe('');
  expect(result.stderr).toMatch(message as RegExp);
});

test('an http redirect URI that is not loopback is refused', async () => {
  await admin('create-user', '--username', 'operator_dave', '--password', 'a long password');
  const result = await admin('create-client', '--owner', 'operator_dave', '--name', 'N', '--redirect-uri', 'http://app.example.org/cb');
  expect(result.code).toBe(2);
  expect(result.stderr).toMatch(/must use https/);
});

test('housekeeping deletes expired sessions (and the rest of domain/housekeeping.ts) and prints what it deleted', async () => {
  const user = JSON.parse((await admin('create-user', '--username', 'operator_erin', '--password', 'a long password')).stdout);
  await app.db('sessions').insert({ user_id: user.id, id_hash: 'expired-session-hash', csrf_secret: 'x', expires_at: new Date(Date.now() - 1000) });
  const result = await admin('housekeeping');
  expect(result.code).toBe(0);
  expect(JSON.parse(result.stdout)).toEqual({ sessions: 1, rateLimits: 0, throttleEvents: 0, tokens: 0, codes: 0, idempotencyKeys: 0, webhookDeliveries: 0 });
  expect(await app.db('sessions').where({ user_id: user.id })).toEqual([]);
});

/** Whether these credentials sign in (the simple-token endpoint checks the password). */
async function signsIn(username: string, password: string): Promise<boolean> {
  return (await app.post('/api/1/auth/simple-token/', { form: { username, password } })).status === 200;
}

test('set-password takes the new password from standard input, ends every session, replaces the simple token, and never prints it', async () => {
  const user = JSON.parse((await admin('create-user', '--username', 'operator_frank', '--password', 'the old password')).stdout);
  await app.db('sessions').insert({ user_id: user.id, id_hash: 'frank-session-hash', csrf_secret: 'x', expires_at: new Date(Date.now() + 3_600_000) });

  const result = await adminWithInput('the new password\n', 'set-password', '--username', 'operator_frank');
  expect(result.code).toBe(0);
  expect(JSON.parse(result.stdout)).toEqual({ username: 'operator_frank', sessions_ended: 1, simple_token_replaced: true, apps_disconnected: [] });
  expect((await app.get('/api/2/accounts/profile/', { headers: { Authorization: `Token ${user.simple_token}` } })).status).toBe(401);
  expect(result.stdout + result.stderr).not.toContain('the new password');
  expect(await signsIn('operator_frank', 'the new password')).toBe(true);
  expect(await signsIn('operator_frank', 'the old password')).toBe(false);
  expect(await app.db('sessions').where({ user_id: user.id })).toEqual([]);
});

test('set-password --disconnect-apps also ends every app grant and names the apps; without it they keep working', async () => {
  await admin('create-user', '--username', 'operator_hal', '--password', 'the old password');
  const client = JSON.parse(
    (await admin('create-client', '--owner', 'operator_hal', '--name', 'Hal sync', '--redirect-uri', 'https://hal.example.org/cb')).stdout,
  );
  const token = JSON.parse((await admin('issue-token', '--username', 'operator_hal', '--client', client.client_id, '--scope', 'mood_read')).stdout);

  const kept = await adminWithInput('a second password\n', 'set-password', '--username', 'operator_hal');
  expect(JSON.parse(kept.stdout).apps_disconnected).toEqual([]);
  expect((await app.get('/api/2/accounts/profile/', { bearer: token.access_token })).status).toBe(200);

  const ended = await adminWithInput('a third password\n', 'set-password', '--username', 'operator_hal', '--disconnect-apps');
  expect(ended.code).toBe(0);
  expect(JSON.parse(ended.stdout)).toMatchObject({ simple_token_replaced: true, apps_disconnected: ['Hal sync'] });
  expect((await app.get('/api/2/accounts/profile/', { bearer: token.access_token })).status).toBe(401);
});

test('set-password with nothing on standard input generates a password and prints it once', async () => {
  await admin('create-user', '--username', 'operator_gina', '--password', 'the old password');
  const result = await adminWithInput('', 'set-password', '--username', 'operator_gina');
  expect(result.code).toBe(0);
  const printed = JSON.parse(result.stdout) as { password: string; sessions_ended: number };
  expect(printed).toEqual({
    username: 'operator_gina',
    sessions_ended: 0,
    simple_token_replaced: true,
    apps_disconnected: [],
    password: expect.stringMatching(/^[\w-]{16}$/),
  });
  expect(await signsIn('operator_gina', printed.password)).toBe(true);
});

test.each([
  ['short\n', ['set-password', '--username', 'operator_gina'], /8 to 1024 characters/],
  ['long enough password\n', ['set-password', '--username', 'nobody_at_all'], /No user named nobody_at_all/],
  ['long enough password\n', ['set-password'], /--username is required/],
])('set-password refuses %j %j with exit 2', async (input, args, message) => {
  const result = await adminWithInput(input, ...args);
  expect(result.code).toBe(2);
  expect(result.stdout).toBe('');
  expect(result.stderr).toMatch(message);
});

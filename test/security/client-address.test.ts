/**
 * Finding 1: behind a proxy, the client cannot choose its own address. The proxy appends the
 * address it saw to X-Forwarded-For, so with TRUST_PROXY=N the N-th entry from the right is the
 * client's; whatever the client wrote to the left of it is ignored by every limit and log line.
 */
import { startTestApp, type TestApp } from '../support/app';
import { makeUser } from '../support/fixtures';
import { logIn } from '../support/web';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ TRUST_PROXY: '1' }, { captureLogs: true });
});
afterAll(async () => {
  await app.close();
});

/** The address field of the request log line of the request with this id. */
function loggedAddress(requestId: string): unknown {
  const line = app.logs.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.requestId === requestId && l.msg === 'request');
  return line?.address;
}

test('the log line records the address the proxy added (right-most), not the one the client wrote', async () => {
  const res = await app.get('/healthz', { unvalidated: true, headers: { 'X-Forwarded-For': '6.6.6.6, 203.0.113.70', 'X-Request-Id': 'security-address-1' } });
  expect(res.status).toBe(200);
  expect(loggedAddress('security-address-1')).toBe('203.0.113.70');
});

test('password spraying with a new client-written address each time is still counted against the proxy-added address', async () => {
  const proxied = '203.0.113.71';
  for (let i = 0; i < 20; i += 1) {
    const res = await logIn(app, `sprayed_${i}_${process.pid}`, 'Winter2026!', { 'X-Forwarded-For': `6.6.6.${i}, ${proxied}` });
    expect(res.status).toBe(400);
  }
  const { user, password } = await makeUser(app);
  const blocked = await logIn(app, user.username, password, { 'X-Forwarded-For': `7.7.7.7, ${proxied}` });
  expect(blocked.status).toBe(429);
  expect((await logIn(app, user.username, password, { 'X-Forwarded-For': '203.0.113.72' })).status).toBe(303);
});

test('one account guessed from one proxied address with rotating client-written entries is stopped after five failures', async () => {
  const { user, password } = await makeUser(app);
  for (let i = 0; i < 5; i += 1) {
    const res = await app.post('/api/1/auth/simple-token/', {
      headers: { 'X-Forwarded-For': `9.9.9.${i}, 203.0.113.73` },
      form: { username: user.username, password: 'guess' },
    });
    expect(res.status).toBe(400);
  }
  const res = await app.post('/api/1/auth/simple-token/', {
    headers: { 'X-Forwarded-For': '9.9.9.99, 203.0.113.73' },
    form: { username: user.username, password },
  });
  expect(res.status).toBe(429);
});

test('unauthenticated requests count against the proxy-added address in the API rate limit', async () => {
  const limited = await startTestApp({ TRUST_PROXY: '1', RATE_LIMIT_PER_HOUR: '3' });
  try {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i += 1) {
      statuses.push((await limited.get('/api/2/attributes/', { headers: { 'X-Forwarded-For': `6.6.${i}.6, 203.0.113.74` } })).status);
    }
    expect(statuses).toEqual([401, 401, 401, 429]);
  } finally {
    await limited.close();
  }
});

test("with TRUST_PROXY=2 the client address is the second entry from the right (the outer proxy's)", async () => {
  const twoHops = await startTestApp({ TRUST_PROXY: '2' }, { captureLogs: true });
  try {
    await twoHops.get('/healthz', {
      unvalidated: true,
      headers: { 'X-Forwarded-For': '6.6.6.6, 198.51.100.7, 10.0.0.2', 'X-Request-Id': 'security-address-2' },
    });
    const line = twoHops.logs.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.requestId === 'security-address-2' && l.msg === 'request');
    expect(line?.address).toBe('198.51.100.7');
  } finally {
    await twoHops.close();
  }
});

test("without TRUST_PROXY, X-Forwarded-For is ignored: the address is the connection's", async () => {
  const direct = await startTestApp({}, { captureLogs: true });
  try {
    await direct.get('/healthz', { unvalidated: true, headers: { 'X-Forwarded-For': '6.6.6.6', 'X-Request-Id': 'security-address-3' } });
    const line = direct.logs.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.requestId === 'security-address-3' && l.msg === 'request');
    expect(line?.address).toBe('127.0.0.1');
  } finally {
    await direct.close();
  }
});

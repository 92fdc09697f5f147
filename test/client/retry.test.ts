/**
 * The client's retries (client/README.md, "Retries"): a 429, a 503 or a network error is asked
 * again after Retry-After (seconds or an HTTP date) or a backoff, within the attempts and waiting
 * budget; a write is retried only with its Idempotency-Key, the same on each attempt; a POST
 * without one is never sent twice. The transport cases run against a local HTTP server that
 * misbehaves on purpose; the rate limit's 429 comes from the real service.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createDaybookClient, createOAuthClient, createV1Client, retryAfterMs } from '../../client/src';
import { startTestApp } from '../support/app';
import { makeUser } from '../support/fixtures';

interface Hit {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
}

type Reply = (hit: Hit, res: http.ServerResponse, req: http.IncomingMessage) => void;

/** A server that answers the n-th request with replies[n] (the last reply repeats). */
async function scriptedServer(...replies: Reply[]) {
  const hits: Hit[] = [];
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const hit = { method: req.method!, url: req.url!, headers: req.headers };
      hits.push(hit);
      replies[Math.min(hits.length, replies.length) - 1](hit, res, req);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const json =
  (status: number, body: unknown, headers: Record<string, string> = {}): Reply =>
  (_hit, res) => {
    res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };
const unavailable = (retryAfter?: string) => json(503, { detail: 'Down for a moment.' }, retryAfter === undefined ? {} : { 'Retry-After': retryAfter });
const dropConnection: Reply = (_hit, _res, req) => req.socket.destroy();
const PROFILE = { username: 'alice', date_joined: '2026-01-01T00:00:00Z' };
const BATCH = { success: [{ name: 'steps', current: 1 }], failed: [] };

test('Retry-After is read as seconds or as an HTTP date', () => {
  const now = Date.parse('2026-11-26T12:00:00Z');
  expect(retryAfterMs('120', now)).toBe(120_000);
  expect(retryAfterMs('Thu, 26 Nov 2026 12:00:05 GMT', now)).toBe(5000);
  expect(retryAfterMs('Thu, 26 Nov 2026 11:00:00 GMT', now)).toBe(0);
  expect(retryAfterMs('soon', now)).toBeUndefined();
  expect(retryAfterMs(null, now)).toBeUndefined();
});

test('a read that met a 503 is sent again after its Retry-After, in seconds or as a date', async () => {
  const server = await scriptedServer(unavailable('1'), unavailable(new Date(Date.now() + 2000).toUTCString()), json(200, PROFILE));
  try {
    const started = Date.now();
    const result = await createDaybookClient({ baseUrl: server.baseUrl, credentials: { simpleToken: 'token' } }).profile();
    expect(result.ok && result.data.username).toBe('alice');
    expect(server.hits.map((h) => h.url)).toEqual(['/api/2/accounts/profile/', '/api/2/accounts/profile/', '/api/2/accounts/profile/']);
    // One second, then up to the date (at least a little: the date has whole seconds).
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
  } finally {
    await server.close();
  }
});

test('a dropped connection is retried with a backoff; when every attempt fails the error is thrown', async () => {
  const flaky = await scriptedServer(dropConnection, json(200, PROFILE));
  const down = await scriptedServer(dropConnection);
  try {
    const result = await createDaybookClient({ baseUrl: flaky.baseUrl, retry: { baseDelayMs: 10 } }).profile();
    expect(result.ok).toBe(true);
    expect(flaky.hits).toHaveLength(2);
    await expect(createDaybookClient({ baseUrl: down.baseUrl, retry: { maxAttempts: 3, baseDelayMs: 10 } }).profile()).rejects.toThrow(/fetch failed/);
    expect(down.hits).toHaveLength(3);
  } finally {
    await flaky.close();
    await down.close();
  }
});

test('a write is retried with one Idempotency-Key per call, the same on every attempt', async () => {
  const server = await scriptedServer(unavailable('0'), dropConnection, json(200, BATCH));
  try {
    const daybook = createDaybookClient({ baseUrl: server.baseUrl, credentials: { accessToken: 'token' }, retry: { baseDelayMs: 10 } });
    const result = await daybook.increment([{ name: 'steps', value: 1 }]);
    expect(result.ok && result.data.success).toEqual([{ name: 'steps', current: 1 }]);
    const keys = server.hits.map((h) => h.headers['idempotency-key']);
    expect(keys).toHaveLength(3);
    expect(new Set(keys).size).toBe(1);
    expect(keys[0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);

    // The next call has a key of its own; a caller's own key is sent as given.
    await daybook.update([{ name: 'steps', date: '2026-11-21', value: 3 }]);
    await daybook.acquire([{ template: 'steps' }], { idempotencyKey: 'sync-2026-11-21-steps', successObjects: true });
    expect(server.hits[3].headers['idempotency-key']).not.toBe(keys[0]);
    expect(server.hits[4].headers['idempotency-key']).toBe('sync-2026-11-21-steps');
    expect(server.hits[4].url).toBe('/api/2/attributes/acquire/?success_objects=true');
  } finally {
    await server.close();
  }
});

test('a POST without an Idempotency-Key is never sent twice', async () => {
  const busy = await scriptedServer(unavailable('0'));
  const dropping = await scriptedServer(dropConnection);
  try {
    const exchanged = await createOAuthClient({ baseUrl: busy.baseUrl, clientId: 'app', clientSecret: 'secret' }).exchangeCode({
      code: 'c',
      redirectUri: 'https://a.example/cb',
    });
    expect(exchanged.status).toBe(503);
    const token = await createV1Client({ baseUrl: busy.baseUrl }).simpleToken({ username: 'alice', password: 'pw' });
    expect(token.status).toBe(503);
    expect(busy.hits.map((h) => h.method + ' ' + h.url)).toEqual(['POST /oauth2/access_token', 'POST /api/1/auth/simple-token/']);
    await expect(createDaybookClient({ baseUrl: dropping.baseUrl }).simpleToken({ username: 'alice', password: 'pw' })).rejects.toThrow();
    expect(dropping.hits).toHaveLength(1);
  } finally {
    await busy.close();
    await dropping.close();
  }
});

test('the budget bounds the attempts and the waiting; retry: false sends once', async () => {
  const server = await scriptedServer(unavailable());
  try {
    const limited = await createDaybookClient({ baseUrl: server.baseUrl, retry: { maxAttempts: 3, baseDelayMs: 10 } }).profile();
    expect(limited.status).toBe(503);
    expect(server.hits).toHaveLength(3);
    const once = await createDaybookClient({ baseUrl: server.baseUrl, retry: false }).profile();
    expect(once.status).toBe(503);
    expect(server.hits).toHaveLength(4);
  } finally {
    await server.close();
  }
  // A Retry-After past the waiting budget is answered at once, not waited for.
  const later = await scriptedServer(unavailable('120'));
  try {
    const started = Date.now();
    const result = await createDaybookClient({ baseUrl: later.baseUrl, retry: { maxTotalWaitMs: 5000 } }).profile();
    expect(!result.ok && [result.status, result.rateLimit.retryAfter]).toEqual([503, 120]);
    expect(later.hits).toHaveLength(1);
    expect(Date.now() - started).toBeLessThan(2000);
  } finally {
    await later.close();
  }
});

test("the service's own 429 is waited out as its Retry-After says, and the call then succeeds", async () => {
  const app = await startTestApp({ RATE_LIMIT_PER_HOUR: '1' });
  try {
    const { simpleToken, user } = await makeUser(app);
    const statuses: number[] = [];
    const counting: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      statuses.push(response.status);
      return response;
    };
    const reader = createDaybookClient({ baseUrl: app.baseUrl, credentials: { simpleToken }, fetch: counting });
    expect((await reader.profile()).ok).toBe(true);
    // The hour's window is made to end a second from now: the next request is refused with a
    // Retry-After of a second or two, and the same request after it is inside a new window.
    await app.db('rate_limits').update({ expire: Date.now() + 1000 });
    const started = Date.now();
    const profile = await reader.profile();
    expect(profile.ok && profile.data.username).toBe(user.username);
    expect(statuses).toEqual([200, 429, 200]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);

    // Past the limit for the hour, the Retry-After is beyond the budget: answered at once.
    const refused = await reader.profile();
    expect(!refused.ok && refused.status).toBe(429);
    expect(statuses).toEqual([200, 429, 200, 429]);
  } finally {
    await app.close();
  }
});

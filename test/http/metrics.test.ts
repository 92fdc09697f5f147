/**
 * GET /metrics for operators: only with METRICS_TOKEN set and only for that bearer token; requests
 * counted and timed by route template (never the raw URL), 429s, the database pool, and the job
 * queues where this process runs the workers; Prometheus text format.
 */
import { startTestApp, type TestApp } from '../support/app';
import { makeClient, makeToken, makeUser } from '../support/fixtures';

const TOKEN = 'metrics-token-0123456789abcdef';
const SCRAPE = { unvalidated: true, headers: { Authorization: `Bearer ${TOKEN}` } };

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/**
 * Parses Prometheus text format; throws on a line that is neither a comment nor a sample. Values
 * are read as Prometheus reads them (Go's ParseFloat: NaN and Inf in any case; prom-client writes
 * `Nan` for a gauge with nothing measured yet, such as the event-loop lag right after start).
 */
function parseMetrics(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || /^# (HELP|TYPE) [a-zA-Z_:][a-zA-Z0-9_:]* .+$/.test(line)) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{((?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\]|\\.)*",?)*)\})? (-?[0-9.e+-]+|(?:NaN|[+-]?Inf))$/i.exec(line);
    if (!match) throw new Error(`not Prometheus text format: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[key] = value;
    samples.push({ name: match[1], labels, value: Number(match[3]) });
  }
  return samples;
}

/** The value of the sample with exactly these labels, or undefined. */
function valueOf(samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  const wanted = JSON.stringify(Object.entries(labels).sort());
  return samples.find((s) => s.name === name && JSON.stringify(Object.entries(s.labels).sort()) === wanted)?.value;
}

async function scrape(app: TestApp): Promise<Sample[]> {
  const res = await app.get('/metrics', SCRAPE);
  expect(res.status).toBe(200);
  return parseMetrics(res.text);
}

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ METRICS_TOKEN: TOKEN, RATE_LIMIT_PER_HOUR: '3' }, { captureLogs: true });
});
afterAll(async () => {
  await app.close();
});

test('without METRICS_TOKEN /metrics is 404 like any unknown page', async () => {
  const other = await startTestApp();
  try {
    const res = await other.get('/metrics', SCRAPE);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: 'Nothing is served at /metrics.' });
  } finally {
    await other.close();
  }
});

describe('access', () => {
  test.each([
    ['no Authorization header', undefined],
    ['a wrong token', `Bearer ${TOKEN}x`],
    ['a prefix of the token', `Bearer ${TOKEN.slice(0, -1)}`],
    ['the token under another scheme', `Token ${TOKEN}`],
    ['an empty bearer', 'Bearer '],
  ])('%s is 401 with a Bearer challenge for the metrics realm', async (_name, authorization) => {
    const res = await app.get('/metrics', { unvalidated: true, headers: authorization === undefined ? {} : { Authorization: authorization } });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="metrics"');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body.detail).toMatch(/metrics token/);
    expect(res.text).not.toContain('daybook_');
  });

  test('the token answers Prometheus text format, never cached and not rate-limited', async () => {
    for (let i = 0; i < 5; i++) {
      const res = await app.get('/metrics', SCRAPE);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4(; charset=utf-8)?$/);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.headers.get('x-ratelimit-limit')).toBeNull();
      expect(() => parseMetrics(res.text)).not.toThrow();
      expect(res.text).toMatch(/^# HELP daybook_http_requests_total /m);
    }
  });

  test('the token never reaches the log, and scrapes are logged as plain requests without credentials', async () => {
    await app.get('/metrics', SCRAPE);
    expect(app.logs.join('\n')).not.toContain(TOKEN);
    const scrapes = app.logs.map((line) => JSON.parse(line)).filter((line) => line.path === '/metrics' && line.status === 200);
    expect(scrapes.length).toBeGreaterThan(0);
    for (const line of scrapes) {
      expect(line.auth).toBeUndefined();
      expect(line.level).toBe(20); // debug: a scrape every few seconds is not an info line each
    }
  });
});

describe('what is measured', () => {
  let samples: Sample[];
  let username: string;

  beforeAll(async () => {
    const { user, simpleToken } = await makeUser(app);
    username = user.username;
    const { client } = await makeClient(app, user);
    const bearer = (await makeToken(app, user, client, ['mood_read'])).access_token;
    // The token's 3 requests of the hour, then a refusal.
    expect((await app.get('/api/2/attributes/', { bearer })).status).toBe(200);
    expect((await app.get('/api/2/attributes/?page=2', { bearer })).status).toBe(404);
    expect((await app.get('/api/2/attributes/', { bearer })).status).toBe(200);
    expect((await app.get('/api/2/attributes/', { bearer })).status).toBe(429);
    // Counted per address: 2 of its 3.
    expect((await app.get('/api/2/accounts/profile/')).status).toBe(401);
    expect((await app.get('/api/2/nothing-here/')).status).toBe(404);
    // The simple token has a count of its own.
    expect((await app.get(`/api/1/users/${username}/profile/`, { token: simpleToken })).status).toBe(200);
    expect((await app.get('/healthz', { unvalidated: true })).status).toBe(200);
    expect((await app.get('/no/such/page')).status).toBe(404);
    samples = await scrape(app);
  });

  test('requests are counted by method, route template and status, exactly', () => {
    const count = (route: string, status: number) => valueOf(samples, 'daybook_http_requests_total', { method: 'GET', route, status: String(status) });
    expect(count('/api/2/attributes/', 200)).toBe(2);
    expect(count('/api/2/attributes/', 404)).toBe(1);
    expect(count('/api/2/attributes/', 429)).toBe(1);
    expect(count('/api/2/accounts/profile/', 401)).toBe(1);
    expect(count('/api/1/users/{username}/profile/', 200)).toBe(1);
    expect(count('/healthz', 200)).toBe(1);
    expect(count('unmatched', 404)).toBe(2);
    const requests = samples.filter((s) => s.name === 'daybook_http_requests_total' && s.labels.route !== '/metrics');
    expect(requests.reduce((sum, s) => sum + s.value, 0)).toBe(9);
  });

  test('the route label is the template, never the raw URL with a name in it', () => {
    const routes = new Set(samples.filter((s) => s.name === 'daybook_http_requests_total').map((s) => s.labels.route));
    expect([...routes].sort()).toEqual([
      '/api/1/users/{username}/profile/',
      '/api/2/accounts/profile/',
      '/api/2/attributes/',
      '/healthz',
      '/metrics',
      'unmatched',
    ]);
    expect(samples.some((s) => Object.values(s.labels).some((value) => value.includes(username)))).toBe(false);
  });

  test('request durations are a histogram with the same labels', () => {
    const labels = { method: 'GET', route: '/api/2/attributes/', status: '200' };
    expect(valueOf(samples, 'daybook_http_request_duration_seconds_count', labels)).toBe(2);
    expect(valueOf(samples, 'daybook_http_request_duration_seconds_sum', labels)).toBeGreaterThan(0);
    expect(valueOf(samples, 'daybook_http_request_duration_seconds_bucket', { ...labels, le: '+Inf' })).toBe(2);
  });

  test('429 answers are counted', () => {
    expect(valueOf(samples, 'daybook_rate_limited_total')).toBe(1);
  });

  test('the database pool is reported by state', () => {
    for (const state of ['used', 'free', 'pending']) {
      const value = valueOf(samples, 'daybook_db_pool_connections', { state });
      expect(Number.isInteger(value)).toBe(true);
      expect(value).toBeGreaterThanOrEqual(0);
    }
    const open = valueOf(samples, 'daybook_db_pool_connections', { state: 'used' })! + valueOf(samples, 'daybook_db_pool_connections', { state: 'free' })!;
    expect(open).toBeGreaterThan(0);
  });

  test('process metrics carry the daybook_ prefix', () => {
    expect(valueOf(samples, 'daybook_process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(samples.some((s) => s.name === 'daybook_nodejs_heap_size_used_bytes')).toBe(true);
    expect(samples.some((s) => s.name.startsWith('process_') || s.name.startsWith('nodejs_'))).toBe(false);
  });

  test('without job workers in this process there are no queue sizes', () => {
    expect(samples.some((s) => s.name === 'daybook_job_queue_size')).toBe(false);
  });
});

test('with the job workers in this process each queue has its size, and each app its own registry', async () => {
  const workers = await startTestApp({ METRICS_TOKEN: TOKEN, WORKERS: '1' });
  try {
    const samples = await scrape(workers);
    for (const queue of ['derive-user', 'insights-user', 'derive-sweep', 'value-changes-sweep', 'housekeeping']) {
      const size = valueOf(samples, 'daybook_job_queue_size', { queue });
      expect(Number.isInteger(size)).toBe(true);
      expect(size).toBeGreaterThanOrEqual(0);
    }
    // The first app's requests are not counted here.
    expect(samples.filter((s) => s.name === 'daybook_http_requests_total').map((s) => s.labels.route)).toEqual([]);
  } finally {
    await workers.close();
  }
});

/**
 * Starts the real app for one test file: its own database cloned from the template on the worker's
 * cluster, an HTTP server on an ephemeral port, and a client whose every response is validated
 * against the OpenAPI documents (see contract.ts).
 */
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Knex } from 'knex';
import pino from 'pino';
import { loadConfig, type Config } from '../../src/config';
import { createKnex } from '../../src/db/knex';
import { poolDatabase } from '../../src/db/database';
import { createApp } from '../../src/app';
import type { Deps } from '../../src/deps';
import { TEMPLATE_DATABASE, databaseUrl, withAdmin, workerAdminUrl } from './clusters';
import { assertDocumented } from './contract';
import { startJobs, type Jobs } from '../../src/jobs/queues';
import { Replicas } from '../../src/db/replicas';

export const TEST_SECRET_KEY = 'test-secret-key-0123456789abcdefghijklmnopqrstuvwxyz';

export interface CallOptions {
  /** OAuth2 access token, sent as Bearer. */
  bearer?: string;
  /** Simple token, sent as Token. */
  token?: string;
  /** Session cookie value. */
  session?: string;
  /** Other cookies to send (name -> value). */
  cookies?: Record<string, string>;
  headers?: Record<string, string>;
  /** JSON body (serialised, Content-Type application/json). */
  json?: unknown;
  /** Form body (application/x-www-form-urlencoded); a list of pairs may repeat a field. */
  form?: Record<string, string> | Array<[string, string]>;
  /** Raw body with the headers given. */
  raw?: string | Buffer;
  /** Skip response validation (only for responses from outside every document, e.g. /healthz). */
  unvalidated?: boolean;
}

export interface TestResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/**
 * One HTTP call to a Daybook at `baseUrl` (this process's test app, or a service run as a process):
 * credentials, cookies and body as `options` say, redirects not followed, and the answer checked
 * against its OpenAPI document unless `unvalidated`. Rejects when no answer comes within `timeoutMs`.
 */
export async function sendTestRequest<T = any>(
  baseUrl: string,
  method: string,
  path: string,
  options: CallOptions & { timeoutMs?: number } = {},
): Promise<TestResponse<T>> {
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (options.bearer) headers.Authorization = `Bearer ${options.bearer}`;
  if (options.token) headers.Authorization = `Token ${options.token}`;
  const cookies = { ...(options.session ? { daybook_session: options.session } : {}), ...(options.cookies ?? {}) };
  if (Object.keys(cookies).length > 0)
    headers.Cookie = Object.entries(cookies)
      .map(([name, value]) => `${name}=${value}`)
      .join('; ');
  let body: string | Buffer | undefined = options.raw;
  if (options.json !== undefined) {
    headers['Content-Type'] ??= 'application/json';
    body = JSON.stringify(options.json);
  }
  if (options.form) {
    headers['Content-Type'] ??= 'application/x-www-form-urlencoded';
    body = new URLSearchParams(options.form).toString();
  }
  const signal = options.timeoutMs ? AbortSignal.timeout(options.timeoutMs) : undefined;
  const response = await fetch(baseUrl + path, { method, headers, body, redirect: 'manual', signal });
  const text = await response.text();
  const contentType = response.headers.get('content-type') ?? '';
  let parsed: unknown = text;
  if (contentType.startsWith('application/json') && text.length > 0) parsed = JSON.parse(text);
  if (!options.unvalidated) {
    await assertDocumented({
      method,
      path: new URL(baseUrl + path).pathname,
      status: response.status,
      contentType,
      body: parsed,
      location: response.headers.get('location'),
    });
  }
  return { status: response.status, headers: response.headers, body: parsed as T, text };
}

export interface TestApp {
  baseUrl: string;
  db: Knex;
  deps: Deps;
  /** Every log line the app wrote (JSON strings), when started with `captureLogs`. */
  logs: string[];
  /** The derived-data job workers, when the test started the app with WORKERS=1 (off by default). */
  jobs?: Jobs;
  /** Moves the app's clock; `undefined` returns to real time. */
  setNow(date: Date | undefined): void;
  request<T = any>(method: string, path: string, options?: CallOptions): Promise<TestResponse<T>>;
  get<T = any>(path: string, options?: CallOptions): Promise<TestResponse<T>>;
  post<T = any>(path: string, options?: CallOptions): Promise<TestResponse<T>>;
  close(): Promise<void>;
}

export interface StartOptions {
  /** Keep every log line (level trace) in `app.logs`, e.g. to check that no secret is logged. */
  captureLogs?: boolean;
  /** The app's database on a streaming replica (test/support/standby.ts): set as DATABASE_REPLICA_URLS. */
  replicaOf?: (url: string) => string;
}

export async function startTestApp(env: Record<string, string> = {}, options: StartOptions = {}): Promise<TestApp> {
  const adminUrl = workerAdminUrl();
  const database = `daybook_test_${crypto.randomBytes(6).toString('hex')}`;
  await withAdmin(adminUrl, (client) => client.query(`CREATE DATABASE "${database}" TEMPLATE "${TEMPLATE_DATABASE}"`));
  const config: Config = loadConfig({
    DATABASE_URL: databaseUrl(adminUrl, database),
    RATE_LIMIT_PER_HOUR: '100000',
    // Tests make many failed client authentications and refreshes on purpose; the budgets' own tests set small ones.
    OAUTH_CLIENT_AUTH_FAILURES_PER_15_MIN: '100000',
    OAUTH_REFRESHES_PER_GRANT_PER_HOUR: '100000',
    LOG_LEVEL: 'silent',
    WORKERS: '0',
    // The test receivers (webhook-receiver.ts) listen on loopback; test/security/webhook-port-scan.test.ts turns it off.
    WEBHOOK_ALLOW_PRIVATE_URLS: '1',
    ...(options.replicaOf ? { DATABASE_REPLICA_URLS: options.replicaOf(databaseUrl(adminUrl, database)) } : {}),
    ...env,
  });
  const db = createKnex(config.databaseUrl!, { pool: { min: 0, max: 10 } });
  // DATABASE_REPLICA_URLS (test/db/replica*.test.ts): the replicas, checked once before the app serves.
  const replicas =
    config.databaseReplicaUrls.length > 0
      ? new Replicas(db, config.databaseReplicaUrls, { maxLagMs: config.databaseReplicaMaxLagMs, poolMax: 10, timeouts: {} })
      : undefined;
  await replicas?.start();
  let fixedNow: Date | undefined;
  const logs: string[] = [];
  const deps: Deps = {
    config,
    db,
    database: poolDatabase(db),
    logger: options.captureLogs
      ? pino({ level: 'trace' }, { write: (line: string) => void logs.push(line) })
      : pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }),
    secretKey: TEST_SECRET_KEY,
    now: () => fixedNow ?? new Date(),
    replicas,
  };
  const jobs = config.workers
    ? await startJobs({
        connectionString: config.databaseUrl!,
        db,
        logger: deps.logger,
        now: deps.now,
        pollingIntervalSeconds: 0.5,
        webhooks: config.webhooks,
        importDir: config.importDir,
      })
    : undefined;
  deps.jobs = jobs;
  const { app } = await createApp(deps);
  const server = http.createServer(app.callback());
  // Client and server share this process: a long synchronous step in a test (compiling a
  // document's validators on first use) can outlast Node's 5 s keep-alive, and the server then
  // closes an idle socket the client is just reusing (ECONNRESET). Keep idle sockets longer.
  server.keepAliveTimeout = 60_000;
  server.headersTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const request = <T>(method: string, path: string, options: CallOptions = {}) => sendTestRequest<T>(baseUrl, method, path, options);

  return {
    baseUrl,
    db,
    deps,
    jobs,
    logs,
    setNow(date) {
      fixedNow = date;
    },
    request,
    get: (path, options) => request('GET', path, options),
    post: (path, options) => request('POST', path, options),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await jobs?.stop(5000);
      await replicas?.close();
      await db.destroy();
      await withAdmin(adminUrl, (client) => client.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`));
    },
  };
}

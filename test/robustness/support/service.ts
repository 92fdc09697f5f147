/**
 * For the robustness tests that run the compiled service as a process: a fresh database on the
 * worker's cluster, people and credentials made through the domain functions, and an HTTP client
 * with a deadline that checks every answer against the OpenAPI documents.
 */
import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { createKnex } from '../../../src/db/knex';
import { createUser, type User } from '../../../src/domain/users';
import { createClient, type OAuthClient } from '../../../src/domain/clients';
import { issueTokens } from '../../../src/domain/tokens';
import { createSession } from '../../../src/domain/sessions';
import { TEMPLATE_DATABASE, databaseUrl, withAdmin, workerAdminUrl } from '../../support/clusters';
import { assertDocumented } from '../../support/contract';
import type { CallOptions as TestCallOptions, TestApp, TestResponse } from '../../support/app';

export const SERVICE_SECRET_KEY = 'robustness-secret-key-0123456789abcdefghijklmnopqrstuvwxyz';

export interface FreshDatabase {
  url: string;
  db: Knex;
  drop(): Promise<void>;
}

/** A database of its own, cloned from the migrated template of the worker's cluster. */
export async function freshDatabase(): Promise<FreshDatabase> {
  const adminUrl = workerAdminUrl();
  const name = `daybook_test_${crypto.randomBytes(6).toString('hex')}`;
  await withAdmin(adminUrl, (client) => client.query(`CREATE DATABASE "${name}" TEMPLATE "${TEMPLATE_DATABASE}"`));
  const url = databaseUrl(adminUrl, name);
  const db = createKnex(url, { pool: { min: 0, max: 4 } });
  return {
    url,
    db,
    async drop() {
      await db.destroy();
      await withAdmin(adminUrl, (client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
    },
  };
}

export interface Person {
  user: User;
  simpleToken: string;
  password: string;
  client: OAuthClient;
  clientSecret: string;
  /** An access token of `client` for the person with `scopes`. */
  bearer: string;
  refreshToken: string;
  session: string;
}

let made = 0;

/** A person with an app, an access token of it and a browser session. */
export async function makePerson(db: Knex, scopes: string[], options: { username?: string } = {}): Promise<Person> {
  made += 1;
  const password = 'correct horse battery staple';
  const { user, simpleToken } = await createUser(db, { username: options.username ?? `robust${made}_${process.pid}`, password }, SERVICE_SECRET_KEY);
  const { client, clientSecret } = await createClient(db, { ownerUserId: user.id, name: 'Storm Writer', redirectUris: ['https://client.example.org/callback'] });
  const tokens = await issueTokens(db, { userId: user.id, clientPk: client.id, scopes, now: new Date() });
  const session = await createSession(db, user.id, new Date());
  return { user, simpleToken, password, client, clientSecret: clientSecret!, bearer: tokens.access_token, refreshToken: tokens.refresh_token, session };
}

export interface Answer<T = any> {
  status: number;
  headers: Headers;
  body: T;
  ms: number;
}

export interface CallOptions {
  bearer?: string;
  token?: string;
  session?: string;
  json?: unknown;
  form?: Record<string, string>;
  headers?: Record<string, string>;
  /** Fail the call (and so the test) when the answer takes longer. */
  deadlineMs?: number;
  /** Skip the check against the documents (pages, /readyz). */
  unvalidated?: boolean;
}

/** One HTTP call to a running service; rejects when no answer comes within the deadline. */
export async function call<T = any>(baseUrl: string, method: string, path: string, options: CallOptions = {}): Promise<Answer<T>> {
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (options.bearer) headers.Authorization = `Bearer ${options.bearer}`;
  if (options.token) headers.Authorization = `Token ${options.token}`;
  if (options.session) headers.Cookie = `daybook_session=${options.session}`;
  let body: string | undefined;
  if (options.json !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(options.json);
  }
  if (options.form) {
    headers['Content-Type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(options.form).toString();
  }
  const started = Date.now();
  const response = await fetch(baseUrl + path, { method, headers, body, redirect: 'manual', signal: AbortSignal.timeout(options.deadlineMs ?? 30_000) });
  const text = await response.text();
  const ms = Date.now() - started;
  const contentType = response.headers.get('content-type') ?? '';
  const parsed: unknown = contentType.startsWith('application/json') && text ? JSON.parse(text) : text;
  if (!options.unvalidated) {
    await assertDocumented({ method, path: new URL(baseUrl + path).pathname, status: response.status, contentType, body: parsed, location: response.headers.get('location') });
  }
  return { status: response.status, headers: response.headers, body: parsed as T, ms };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` until it is true; throws after `timeoutMs`. */
export async function until(check: () => Promise<boolean> | boolean, timeoutMs = 20_000, what = 'the condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(100);
  }
}

/**
 * The request half of a TestApp for a service running as a process, so the page and OAuth helpers
 * of test/support/web.ts work against it (they only call get and post).
 */
export function remoteApp(baseUrl: string): Pick<TestApp, 'baseUrl' | 'request' | 'get' | 'post'> {
  async function request<T>(method: string, path: string, options: TestCallOptions = {}): Promise<TestResponse<T>> {
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    if (options.bearer) headers.Authorization = `Bearer ${options.bearer}`;
    if (options.token) headers.Authorization = `Token ${options.token}`;
    const cookies = { ...(options.session ? { daybook_session: options.session } : {}), ...(options.cookies ?? {}) };
    if (Object.keys(cookies).length > 0) headers.Cookie = Object.entries(cookies).map(([name, value]) => `${name}=${value}`).join('; ');
    let body: string | Buffer | undefined = options.raw;
    if (options.json !== undefined) {
      headers['Content-Type'] ??= 'application/json';
      body = JSON.stringify(options.json);
    }
    if (options.form) {
      headers['Content-Type'] ??= 'application/x-www-form-urlencoded';
      body = new URLSearchParams(options.form).toString();
    }
    const response = await fetch(baseUrl + path, { method, headers, body, redirect: 'manual', signal: AbortSignal.timeout(30_000) });
    const text = await response.text();
    const contentType = response.headers.get('content-type') ?? '';
    const parsed: unknown = contentType.startsWith('application/json') && text.length > 0 ? JSON.parse(text) : text;
    if (!options.unvalidated) {
      await assertDocumented({ method, path: new URL(baseUrl + path).pathname, status: response.status, contentType, body: parsed, location: response.headers.get('location') });
    }
    return { status: response.status, headers: response.headers, body: parsed as T, text };
  }
  return {
    baseUrl,
    request,
    get: (path, options) => request('GET', path, options),
    post: (path, options) => request('POST', path, options),
  };
}

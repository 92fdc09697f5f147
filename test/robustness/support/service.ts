/**
 * For the robustness tests that run the compiled service as a process: a fresh database on the
 * worker's cluster, people and credentials made through the domain functions, and an HTTP client
 * with a deadline that checks every answer against the OpenAPI documents.
 */
import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { createKnex } from '../../../src/db/knex';
import { createUser, type User } from '../../../src/domain/identity/users';
import { createClient, type OAuthClient } from '../../../src/domain/apps-and-grants/clients';
import { issueTokens } from '../../../src/domain/apps-and-grants/tokens';
import { createSession } from '../../../src/domain/identity/sessions';
import { TEMPLATE_DATABASE, databaseUrl, withAdmin, workerAdminUrl } from '../../support/clusters';
import { sendTestRequest, type CallOptions as TestCallOptions, type TestApp } from '../../support/app';

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
  const { client, clientSecret } = await createClient(db, {
    ownerUserId: user.id,
    name: 'Storm Writer',
    redirectUris: ['https://client.example.org/callback'],
  });
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

/** A test app call's options, and a deadline after which the call (and so the test) fails. */
export type CallOptions = TestCallOptions & { deadlineMs?: number };

/** One HTTP call to a running service, timed; rejects when no answer comes within the deadline. */
export async function call<T = any>(baseUrl: string, method: string, path: string, options: CallOptions = {}): Promise<Answer<T>> {
  const { deadlineMs, ...request } = options;
  const started = Date.now();
  const answer = await sendTestRequest<T>(baseUrl, method, path, { ...request, timeoutMs: deadlineMs ?? 30_000 });
  return { status: answer.status, headers: answer.headers, body: answer.body, ms: Date.now() - started };
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
  const request = <T>(method: string, path: string, options: TestCallOptions = {}) =>
    sendTestRequest<T>(baseUrl, method, path, { ...options, timeoutMs: 30_000 });
  return {
    baseUrl,
    request,
    get: (path, options) => request('GET', path, options),
    post: (path, options) => request('POST', path, options),
  };
}

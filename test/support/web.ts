/** Helpers for the pages and the OAuth flow over HTTP: cookies, anti-forgery tokens, PKCE, codes. */
import crypto from 'node:crypto';
import type { TestApp, TestResponse } from './app';
import type { OAuthClient } from '../../src/domain/apps-and-grants/clients';
import { createClient } from '../../src/domain/apps-and-grants/clients';
import type { User } from '../../src/domain/identity/users';

/** Pages are outside the API documents. */
export const PAGE = { unvalidated: true } as const;

/** The value of a cookie the response sets, or undefined. */
export function setCookie(res: TestResponse, name: string): string | undefined {
  for (const line of res.headers.getSetCookie()) {
    const [pair] = line.split(';');
    const eq = pair.indexOf('=');
    if (pair.slice(0, eq) === name) return pair.slice(eq + 1);
  }
  return undefined;
}

/** The full Set-Cookie line for a cookie (to check its attributes). */
export function setCookieLine(res: TestResponse, name: string): string | undefined {
  return res.headers.getSetCookie().find((line) => line.startsWith(`${name}=`));
}

/** The anti-forgery token of the first form of a page. */
export function csrfOf(html: string): string {
  const match = /name="csrf_token" value="([^"]+)"/.exec(html);
  if (!match) throw new Error(`no csrf_token in page: ${html.slice(0, 500)}`);
  return match[1];
}

/** A logged-out form (login, sign-up): its anti-forgery cookie and token. */
export async function anonymousForm(app: TestApp, path: string): Promise<{ cookies: Record<string, string>; csrf: string }> {
  const res = await app.get(path, PAGE);
  const cookie = setCookie(res, 'daybook_csrf');
  if (!cookie) throw new Error('no daybook_csrf cookie');
  return { cookies: { daybook_csrf: cookie }, csrf: csrfOf(res.text) };
}

/** The anti-forgery token of a logged-in page. */
export async function sessionCsrf(app: TestApp, session: string, path = '/settings/profile'): Promise<string> {
  const res = await app.get(path, { ...PAGE, session });
  if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}`);
  return csrfOf(res.text);
}

/** Logs in through the login form; returns the response (303 with the session cookie on success). */
export async function logIn(app: TestApp, username: string, password: string, headers: Record<string, string> = {}): Promise<TestResponse> {
  const { cookies, csrf } = await anonymousForm(app, '/login');
  return app.post('/login', { ...PAGE, cookies, headers, form: { username, password, csrf_token: csrf } });
}

export const REDIRECT_URI = 'https://client.example.org/callback';

/** A registered app with chosen settings (through the domain, as the app page does). */
export async function registerApp(
  app: TestApp,
  owner: User,
  options: { confidential?: boolean; redirectUris?: string[]; scopes?: string[]; name?: string } = {},
): Promise<{ client: OAuthClient; secret: string | undefined }> {
  const { client, clientSecret } = await createClient(app.db, {
    ownerUserId: owner.id,
    name: options.name ?? 'Step Counter',
    redirectUris: options.redirectUris ?? [REDIRECT_URI],
    confidential: options.confidential ?? true,
    scopes: options.scopes,
  });
  return { client, secret: clientSecret };
}

/** A PKCE verifier and its S256 challenge. */
export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = crypto.randomBytes(32).toString('base64url');
  return { verifier, challenge: crypto.createHash('sha256').update(verifier).digest('base64url') };
}

export interface AuthorizeParams {
  client_id?: string;
  redirect_uri?: string;
  scope?: string;
  state?: string;
  response_type?: string;
  code_challenge?: string;
  code_challenge_method?: string;
}

export function authorizePath(params: AuthorizeParams | Array<[string, string]>): string {
  const entries = Array.isArray(params) ? params : Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined);
  return `/oauth2/authorize?${new URLSearchParams(entries).toString()}`;
}

/** The query of a redirect's Location. */
export function locationQuery(res: TestResponse): URLSearchParams {
  const location = res.headers.get('location');
  if (!location) throw new Error(`no Location (status ${res.status}): ${res.text.slice(0, 300)}`);
  return new URL(location, 'http://daybook.test').searchParams;
}

/** Shows the consent page and posts a decision; returns the POST's response. */
export async function decide(app: TestApp, session: string, given: AuthorizeParams, decision: 'allow' | 'deny'): Promise<TestResponse> {
  const params: AuthorizeParams = { response_type: 'code', ...given };
  const page = await app.get(authorizePath(params), { session });
  if (page.status !== 200) throw new Error(`consent page answered ${page.status}: ${page.headers.get('location') ?? page.text.slice(0, 300)}`);
  const form: Record<string, string> = { csrf_token: csrfOf(page.text), decision };
  for (const [name, value] of Object.entries(params)) if (value !== undefined) form[name] = value;
  return app.post('/oauth2/authorize', { session, form });
}

/** Runs consent with Allow and returns the code. */
export async function authorizeCode(app: TestApp, session: string, params: AuthorizeParams): Promise<string> {
  const res = await decide(app, session, params, 'allow');
  const code = locationQuery(res).get('code');
  if (res.status !== 303 || !code) throw new Error(`no code: ${res.status} ${res.headers.get('location')}`);
  return code;
}

/** POST /oauth2/access_token with a form body. */
export function tokenRequest(
  app: TestApp,
  form: Record<string, string> | Array<[string, string]>,
  headers: Record<string, string> = {},
): Promise<TestResponse> {
  return app.post('/oauth2/access_token', { form, headers });
}

export function basicAuth(id: string, secret: string): Record<string, string> {
  const encode = (s: string) => encodeURIComponent(s).replace(/%20/g, '+');
  return { Authorization: `Basic ${Buffer.from(`${encode(id)}:${encode(secret)}`).toString('base64')}` };
}

/**
 * The person behind a page request: their session (from the `daybook_session` cookie), starting
 * and ending sessions, and sending logged-out people to the login page and back.
 */
import type Koa from 'koa';
import type { Deps } from '../deps';
import { createSession, endSession, findSession, SESSION_COOKIE, SESSION_LIFETIME_MS, type Session } from '../domain/identity/sessions';
import { clearCookie, setCookie } from './cookies';
import { csrfToken } from './csrf';
import type { NavInfo } from './layout';

declare module 'koa' {
  interface DefaultState {
    /** The page request's session, once looked up (undefined: none). */
    webSession?: Session;
  }
}

/** The live session of this request, or undefined; looked up once per request. */
export async function currentSession(ctx: Koa.Context, deps: Deps): Promise<Session | undefined> {
  if ('webSession' in ctx.state) return ctx.state.webSession;
  const id = ctx.cookies.get(SESSION_COOKIE);
  const session = id && /^[A-Za-z0-9_-]{20,100}$/.test(id) ? await findSession(deps.db, id, deps.now()) : undefined;
  ctx.state.webSession = session;
  return session;
}

/** Logs the person in: a new session (never one chosen by the browser) in a fresh cookie. */
export async function startSession(ctx: Koa.Context, deps: Deps, userId: number): Promise<void> {
  const old = ctx.cookies.get(SESSION_COOKIE);
  if (old) await endSession(deps.db, old);
  const id = await createSession(deps.db, userId, deps.now(), ctx.get('User-Agent'));
  setCookie(ctx, SESSION_COOKIE, id, { maxAgeSeconds: SESSION_LIFETIME_MS / 1000 });
}

export async function endCurrentSession(ctx: Koa.Context, deps: Deps): Promise<void> {
  const id = ctx.cookies.get(SESSION_COOKIE);
  if (id) await endSession(deps.db, id);
  clearCookie(ctx, SESSION_COOKIE);
}

/** A `next` that stays on this site: a local path, never `//host` or `/\host`. */
export function safeNext(next: unknown): string | undefined {
  if (typeof next !== 'string' || next.length > 4000) return undefined;
  if (!next.startsWith('/') || next.startsWith('//') || next.startsWith('/\\')) return undefined;
  // eslint-disable-next-line no-control-regex -- control characters are what is refused
  if (/[\u0000-\u001f]/.test(next)) return undefined;
  return next;
}

export function loginUrl(next: string): string {
  return `/login?next=${encodeURIComponent(next)}`;
}

/** 303 to the login page, coming back to `next` (this page by default) afterwards. */
export function redirectToLogin(ctx: Koa.Context, next: string = ctx.originalUrl): void {
  ctx.status = 303;
  ctx.redirect(loginUrl(next));
}

/** The navigation of a logged-in page (its log-out form needs the session's anti-forgery token). */
export function navFor(session: Session, now: Date): NavInfo {
  return { username: session.username, csrf: csrfToken(session.csrfSecret, now) };
}

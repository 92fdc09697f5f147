/**
 * The person behind a page request: their session (from the session cookie, `__Host-daybook_session`
 * over HTTPS: http/session-cookie.ts), starting and ending sessions, and sending logged-out people
 * to the login page and back.
 */
import type Koa from 'koa';
import type { Deps } from '../deps';
import { createSession, endSession, findSession, markHostCookie, SESSION_LIFETIME_MS, type Session } from '../domain/identity/sessions';
import { readSessionCookie, servedOverHttps, SESSION_COOKIE, sessionCookieName } from '../http/session-cookie';
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
  const cookie = readSessionCookie(ctx);
  const now = deps.now();
  const session = cookie
    ? await findSession(deps.db, cookie.id, now, { idleMs: deps.config.sessionIdleMinutes * 60_000, legacyCookie: cookie.legacy })
    : undefined;
  if (session && cookie?.legacy) await moveToHostCookie(ctx, deps, cookie.id, session, now);
  ctx.state.webSession = session;
  return session;
}

/**
 * A session from before the `__Host-` name, used over HTTPS: the same session goes on under the new
 * name (for the rest of its lifetime), the plain cookie is removed, and the plain name no longer
 * carries it (docs/security.md, "Session cookies").
 */
async function moveToHostCookie(ctx: Koa.Context, deps: Deps, id: string, session: Session, now: Date): Promise<void> {
  await markHostCookie(deps.db, session.idHash);
  const remainingSeconds = Math.max(1, Math.floor((session.expiresAt.getTime() - now.getTime()) / 1000));
  setCookie(ctx, sessionCookieName(ctx), id, { maxAgeSeconds: remainingSeconds });
  clearCookie(ctx, SESSION_COOKIE);
}

/** Logs the person in: a new session (never one chosen by the browser) in a fresh cookie. */
export async function startSession(ctx: Koa.Context, deps: Deps, userId: number): Promise<void> {
  const old = readSessionCookie(ctx);
  if (old) await endSession(deps.db, old.id);
  const overHttps = servedOverHttps(ctx);
  const id = await createSession(deps.db, userId, deps.now(), ctx.get('User-Agent'), overHttps);
  setCookie(ctx, sessionCookieName(ctx), id, { maxAgeSeconds: SESSION_LIFETIME_MS / 1000 });
  if (old?.legacy) clearCookie(ctx, SESSION_COOKIE);
}

export async function endCurrentSession(ctx: Koa.Context, deps: Deps): Promise<void> {
  const cookie = readSessionCookie(ctx);
  if (cookie) await endSession(deps.db, cookie.id);
  clearCookie(ctx, sessionCookieName(ctx));
  if (cookie?.legacy) clearCookie(ctx, SESSION_COOKIE);
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

/**
 * The session cookie's name (docs/security.md, "Session cookies"). Over HTTPS it is
 * `__Host-daybook_session`: browsers keep such a cookie only when it is Secure, has Path=/ and no
 * Domain, so neither a sibling subdomain nor a plain-HTTP answer can set or overwrite it. Over
 * plain HTTP (development) browsers refuse the prefix, so the cookie is `daybook_session`.
 *
 * During the transition, an HTTPS request without the `__Host-` cookie is still read under the
 * plain name (`legacy`), so the sessions started before the deploy survive it; such a session is
 * accepted only when it was never issued under the `__Host-` name (sessions.ts), and the pages move
 * it to the new name on its first use (web/session.ts).
 */
import type Koa from 'koa';

export const SESSION_COOKIE = 'daybook_session';
export const HOST_SESSION_COOKIE = `__Host-${SESSION_COOKIE}`;

/** Is the service reached over HTTPS (the request says so through a trusted proxy, or PUBLIC_URL is https)? */
export function servedOverHttps(ctx: Koa.Context): boolean {
  const publicUrl = ctx.state.publicUrl;
  return ctx.secure || Boolean(publicUrl?.startsWith('https:'));
}

/** The name a session cookie is issued under for this request. */
export function sessionCookieName(ctx: Koa.Context): string {
  return servedOverHttps(ctx) ? HOST_SESSION_COOKIE : SESSION_COOKIE;
}

/** A session cookie a request carries; `legacy`: the plain name, read over HTTPS during the transition. */
export interface SessionCookie {
  id: string;
  legacy: boolean;
}

/** The shape of a session id (newSecret's base64url); anything else is not looked up. */
const SESSION_ID = /^[A-Za-z0-9_-]{20,100}$/;

export function readSessionCookie(ctx: Koa.Context): SessionCookie | undefined {
  const read = (name: string) => {
    const id = ctx.cookies.get(name);
    return id !== undefined && SESSION_ID.test(id) ? id : undefined;
  };
  if (!servedOverHttps(ctx)) {
    const id = read(SESSION_COOKIE);
    return id === undefined ? undefined : { id, legacy: false };
  }
  const id = read(HOST_SESSION_COOKIE);
  if (id !== undefined) return { id, legacy: false };
  const old = read(SESSION_COOKIE);
  return old === undefined ? undefined : { id: old, legacy: true };
}

/**
 * Anti-forgery tokens for every form. A token is `<issued-at>.<HMAC(secret, issued-at)>`, valid for
 * a day. The secret is the session's own random csrf_secret; before there is a session (the login
 * and sign-up forms) it is a random value in the `daybook_csrf` cookie, so a cross-site page can
 * neither read nor forge a valid pair.
 */
import crypto from 'node:crypto';
import type Koa from 'koa';
import { newSecret } from '../domain/identity/credentials';
import { setCookie } from './cookies';

const LIFETIME_SECONDS = 24 * 60 * 60;
export const ANONYMOUS_CSRF_COOKIE = 'daybook_csrf';

function mac(secret: string, issuedAt: number): string {
  return crypto.createHmac('sha256', secret).update(`csrf:${issuedAt}`).digest('base64url');
}

export function csrfToken(secret: string, now: Date): string {
  const issuedAt = Math.floor(now.getTime() / 1000);
  return `${issuedAt}.${mac(secret, issuedAt)}`;
}

export function csrfTokenValid(secret: string, token: unknown, now: Date): boolean {
  if (typeof token !== 'string') return false;
  const match = /^(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (!match) return false;
  const issuedAt = Number(match[1]);
  const age = now.getTime() / 1000 - issuedAt;
  if (age < -300 || age > LIFETIME_SECONDS) return false;
  const expected = Buffer.from(mac(secret, issuedAt));
  const actual = Buffer.from(match[2]);
  return expected.length === actual.length && crypto.timingSafeEqual(expected, actual);
}

/** The secret of a logged-out form, creating its cookie when missing. */
export function anonymousCsrfSecret(ctx: Koa.Context): string {
  const existing = ctx.cookies.get(ANONYMOUS_CSRF_COOKIE);
  if (existing && /^[A-Za-z0-9_-]{43}$/.test(existing)) return existing;
  const secret = newSecret();
  setCookie(ctx, ANONYMOUS_CSRF_COOKIE, secret, { maxAgeSeconds: LIFETIME_SECONDS });
  return secret;
}

/** Checks a logged-out form's token against its cookie. */
export function anonymousCsrfValid(ctx: Koa.Context, token: unknown, now: Date): boolean {
  const secret = ctx.cookies.get(ANONYMOUS_CSRF_COOKIE);
  return Boolean(secret) && csrfTokenValid(secret!, token, now);
}

/**
 * Cookies of the web pages: always HttpOnly, SameSite=Lax and Path=/, and Secure whenever the
 * service is reached over HTTPS (the request says so through a trusted proxy, or PUBLIC_URL is
 * https). Written by hand because Koa's cookie helper refuses Secure on the plain-HTTP hop behind
 * a TLS-terminating proxy that is not trusted for X-Forwarded-Proto.
 */
import type Koa from 'koa';
import { servedOverHttps } from '../http/session-cookie';

export function setCookie(ctx: Koa.Context, name: string, value: string, options: { maxAgeSeconds: number }): void {
  const parts = [`${name}=${value}`, 'Path=/', `Max-Age=${options.maxAgeSeconds}`, 'HttpOnly', 'SameSite=Lax'];
  if (servedOverHttps(ctx)) parts.push('Secure');
  ctx.append('Set-Cookie', parts.join('; '));
}

export function clearCookie(ctx: Koa.Context, name: string): void {
  setCookie(ctx, name, '', { maxAgeSeconds: 0 });
}

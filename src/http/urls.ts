/**
 * Absolute URLs (paging links, redirects): from PUBLIC_URL when set, else from the request, which
 * with TRUST_PROXY=1 means the X-Forwarded-Proto / X-Forwarded-Host a TLS-terminating proxy sends
 * (Koa's `app.proxy`). The host is checked first (./host-check.ts). The scheme is `https` only
 * when the request says `https` (any case); anything else a client or a proxy writes in
 * X-Forwarded-Proto (`javascript`, `data`, `ftp`…) is ignored and the scheme is `http`, what the
 * service itself speaks, so no other scheme can ever reach a `Location` or a link.
 */
import type Koa from 'koa';

/** `https` or `http`, never anything else (the request's protocol, see above). */
export function requestScheme(ctx: Koa.Context): 'http' | 'https' {
  return ctx.protocol.trim().toLowerCase() === 'https' ? 'https' : 'http';
}

export function publicBaseUrl(ctx: Koa.Context): string {
  const configured = ctx.state.publicUrl;
  return configured ?? `${requestScheme(ctx)}://${ctx.host}`;
}

/**
 * Absolute URLs (paging links, redirects): from PUBLIC_URL when set, else from the request, which
 * with TRUST_PROXY=1 means the X-Forwarded-Proto / X-Forwarded-Host a TLS-terminating proxy sends
 * (Koa's `app.proxy`).
 */
import type Koa from 'koa';

export function publicBaseUrl(ctx: Koa.Context): string {
  const configured = ctx.state.publicUrl;
  return configured ?? `${ctx.protocol}://${ctx.host}`;
}

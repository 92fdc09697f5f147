/**
 * Every API path ends with a slash (as the OpenAPI documents write them; docs/decisions.md,
 * "Trailing slashes"). Under /api/ a path without its
 * trailing slash is redirected to the slash path: 301 for GET and HEAD, 308 (method and body kept)
 * for the rest. The OAuth paths have no trailing slash and are never redirected.
 */
import type Koa from 'koa';
import { publicBaseUrl } from './urls';

export function trailingSlashRedirect(): Koa.Middleware {
  return async (ctx, next) => {
    if (!ctx.path.startsWith('/api/') || ctx.path.endsWith('/')) return next();
    const target = `${publicBaseUrl(ctx)}${ctx.path}/${ctx.querystring ? `?${ctx.querystring}` : ''}`;
    ctx.status = ctx.method === 'GET' || ctx.method === 'HEAD' ? 301 : 308;
    ctx.set('Location', target);
    ctx.body = { detail: `This path ends with a slash: ${target}` };
  };
}

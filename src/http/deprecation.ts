/**
 * Version 1 is the older interface (the v1 document, "Deprecation"): every response under
 * `/api/1/users/` says it is deprecated (RFC 9745 `Deprecation`) and where its successor is
 * documented (RFC 8288 `Link`, relation `successor-version` of RFC 5829). No `Sunset` is sent:
 * no retirement date has been decided, and a client may act on one.
 *
 * The simple-token endpoint, though under /api/1/, is not part of it: it serves both versions (the
 * v1 document, "Deprecation"; docs/decisions.md, "Simple-token path").
 */
import type Koa from 'koa';
import { publicBaseUrl } from './urls';

const V1_PREFIX = '/api/1/';
const SIMPLE_TOKEN_PATH = '/api/1/auth/simple-token';

/**
 * 2026-11-22T00:00:00Z, Daybook's first release, which served version 2 as the current interface:
 * version 1 has been deprecated since then. A Structured Field Date is `@` and Unix seconds.
 */
export const V1_DEPRECATED_AT = Date.UTC(2026, 10, 22) / 1000;
export const V1_DEPRECATION = `@${V1_DEPRECATED_AT}`;

/** Whether `path` is a version 1 path that carries the deprecation fields. */
function isDeprecatedPath(path: string): boolean {
  return path.startsWith(V1_PREFIX) && !path.startsWith(SIMPLE_TOKEN_PATH);
}

/**
 * Sets the fields before the rest of the chain runs, so that every answer carries them: errors
 * (the error mapper keeps headers set earlier), redirects and rate-limit refusals alike.
 */
export function v1Deprecation(): Koa.Middleware {
  return async (ctx, next) => {
    if (isDeprecatedPath(ctx.path)) {
      ctx.set('Deprecation', V1_DEPRECATION);
      ctx.set('Link', `<${publicBaseUrl(ctx)}/docs/v2/>; rel="successor-version"`);
    }
    await next();
  };
}

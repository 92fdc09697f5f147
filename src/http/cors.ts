/**
 * Cross-origin requests (CORS) for API clients that run in a web page, such as a public OAuth2
 * client using PKCE: the API under /api/ and the OAuth endpoints apps call (metadata, token,
 * revocation) answer preflight requests and allow any origin to read their answers, but only for
 * requests authenticated by an `Authorization` header (or, at the OAuth endpoints, by the client's
 * own parameters: they never read a cookie).
 *
 * Cookie sessions are never shared with other origins: `Access-Control-Allow-Origin` is `*`,
 * which browsers refuse for credentialed requests, no `Access-Control-Allow-Credentials` is ever
 * sent, and an answer to a request a session cookie authenticated has no CORS fields at all. So a
 * page on another origin cannot read a logged-in person's data through their cookie.
 *
 * Written here rather than with @koa/cors: its rules are per origin and per credentials mode, and
 * ours depend on how the request was authenticated, which only this chain knows after the fact.
 */
import type Koa from 'koa';
import { OAUTH_APP_PATHS, loadBundle, type ApiName } from './documents';

/** Request headers a cross-origin client may send: credentials, a JSON or form body, its own request id. */
const ALLOWED_HEADERS = 'Authorization, Content-Type, X-Request-Id, Idempotency-Key';
/** HTTP methods an OpenAPI path item may hold, in the order the preflight lists them. */
const HTTP_METHODS = ['get', 'head', 'post', 'put', 'patch', 'delete'];
const CROSS_ORIGIN_APIS: ApiName[] = ['v2', 'v1', 'oauth'];

/**
 * Every method an operation of the bundled documents uses (HEAD with GET, which answers it), so
 * that a method added to a document (DELETE of a webhook endpoint) is allowed across origins
 * without a second list to keep in step.
 */
function documentedMethods(): string {
  const used = new Set<string>();
  for (const name of CROSS_ORIGIN_APIS) {
    for (const item of Object.values(loadBundle(name).paths ?? {})) {
      for (const method of Object.keys(item ?? {})) if (HTTP_METHODS.includes(method)) used.add(method);
    }
  }
  if (used.has('get')) used.add('head');
  return HTTP_METHODS.filter((method) => used.has(method))
    .map((method) => method.toUpperCase())
    .join(', ');
}
/** Response fields beyond the CORS-safelisted ones that clients need: pacing, errors, paging by redirect, deprecation. */
const EXPOSED_HEADERS = [
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'RateLimit',
  'RateLimit-Policy',
  'Retry-After',
  'WWW-Authenticate',
  'X-Request-Id',
  'Location',
  'Deprecation',
  'Link',
  'Idempotent-Replayed',
].join(', ');
/** How long a browser may reuse a preflight answer (Chromium caps it at 2 hours). */
const PREFLIGHT_MAX_AGE_SECONDS = 7200;

/** Paths open to other origins: the API, and the OAuth endpoints apps call (never the authorise page or the pages for people). */
function isCrossOriginPath(path: string): boolean {
  return path.startsWith('/api/') || OAUTH_APP_PATHS.has(path);
}

function isPreflight(ctx: Koa.Context): boolean {
  return ctx.method === 'OPTIONS' && ctx.get('Origin') !== '' && ctx.get('Access-Control-Request-Method') !== '';
}

/** True when a session cookie, not an Authorization header, authenticated the request (set by http/auth.ts). */
function sessionAuthenticated(ctx: Koa.Context): boolean {
  return ctx.state.principal?.kind === 'session';
}

export function cors(): Koa.Middleware {
  const allowedMethods = documentedMethods();
  return async (ctx, next) => {
    if (!isCrossOriginPath(ctx.path)) return next();
    if (isPreflight(ctx)) {
      // Answered before authentication and the rate limit: a preflight carries no credentials.
      ctx.set('Access-Control-Allow-Origin', '*');
      ctx.set('Access-Control-Allow-Methods', allowedMethods);
      ctx.set('Access-Control-Allow-Headers', ALLOWED_HEADERS);
      ctx.set('Access-Control-Max-Age', String(PREFLIGHT_MAX_AGE_SECONDS));
      ctx.status = 204;
      return;
    }
    try {
      await next();
    } finally {
      // After the chain, errors included (the error mapper keeps headers set here): only then is
      // it known whether a session cookie authenticated the request.
      if (OAUTH_APP_PATHS.has(ctx.path) || !sessionAuthenticated(ctx)) {
        ctx.set('Access-Control-Allow-Origin', '*');
        ctx.set('Access-Control-Expose-Headers', EXPOSED_HEADERS);
      }
    }
  };
}

/**
 * The one place that says whether an API answer may be stored by a cache (docs/security.md, "Pages,
 * exports and headers"). Every answer of the API documents (v2, v1, OAuth) carries
 * `Cache-Control: no-store`: they hold a person's data, credentials or the state of their grants,
 * and no browser, proxy or disk cache may keep a copy (RFC 9111 section 5.2.2.5; RFC 6749 section
 * 5.1 requires it of token answers). It is set before the request is served, so error answers
 * carry it too. The exceptions are the answers that are the same for everyone: the RFC 8414
 * metadata sets its own `public, max-age` (oauth/metadata.ts). Pages set `no-store` themselves
 * (web/layout.ts); the API documentation (/docs/) and the bundled documents are not under the API
 * paths and keep their own caching.
 */
import type Koa from 'koa';
import { apiFor, OAUTH_METADATA_PATH } from './documents';

/** API paths whose answers are public, the same for everyone, and set their own caching. */
const PUBLIC_API_PATHS: ReadonlySet<string> = new Set([OAUTH_METADATA_PATH]);

/** Whether an answer to this path may carry a person's data (and so is never stored). */
export function answersArePrivate(pathname: string): boolean {
  return apiFor(pathname) !== undefined && !PUBLIC_API_PATHS.has(pathname);
}

export function noStoreForApiAnswers(): Koa.Middleware {
  return async (ctx, next) => {
    if (answersArePrivate(ctx.path)) ctx.set('Cache-Control', 'no-store');
    await next();
  };
}

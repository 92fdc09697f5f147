/**
 * The paged list envelope: default 20 per page, at most 100 (more is clamped), `page` from 1.
 * `next`/`previous` are absolute URLs that keep every other query parameter. Page 1 of an empty
 * result is an empty list; a later page past the end is 404 "Invalid page.".
 */
import type Koa from 'koa';
import type { Context as ApiContext } from 'openapi-backend';
import { badRequest, invalidPage } from './errors';
import { queryInt } from './query';
import { publicBaseUrl } from './urls';

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

export interface Paging {
  page: number;
  limit: number;
  offset: number;
}

/**
 * The validator lets a number too large for a double, such as `1e400`, through as Infinity; that
 * is no page number. (A large finite page is simply past the end; a large limit is clamped.)
 */
function wholeNumber(name: string, value: number): number {
  if (!Number.isFinite(value)) throw badRequest(`Invalid query parameter ${name}: must be an integer.`, [{ in: 'query', name, message: 'must be an integer' }]);
  return value;
}

export function paging(c: ApiContext, maxLimit = MAX_PAGE_SIZE, defaultLimit = DEFAULT_PAGE_SIZE): Paging {
  const page = wholeNumber('page', queryInt(c, 'page', 1));
  const limit = Math.min(wholeNumber('limit', queryInt(c, 'limit', defaultLimit)), maxLimit);
  return { page, limit, offset: (page - 1) * limit };
}

export interface Envelope<T> {
  count: number;
  next: string | null;
  previous: string | null;
  results: T[];
}

/**
 * The absolute URL of `base + path` (no query), as the URL parser writes it, parsed once per base
 * and path instead of once per link (docs/request-path.md, "Issue 35, third stop"); undefined when
 * the parsed URL carries a query or fragment of its own, which `pageUrl` then leaves to the parser.
 */
const linkStarts = new Map<string, string | undefined>();
const MAX_LINK_STARTS = 1000;

function linkStart(target: string): string | undefined {
  if (linkStarts.has(target)) return linkStarts.get(target);
  const url = new URL(target);
  const start = url.search === '' && url.hash === '' ? url.href : undefined;
  if (linkStarts.size >= MAX_LINK_STARTS) linkStarts.clear();
  linkStarts.set(target, start);
  return start;
}

/**
 * The link to `page`: this request's URL with every query parameter kept in its order but `page`,
 * then `page` last, serialised as the URL parser serialises its search parameters.
 */
function pageUrl(ctx: Koa.Context, page: number): string {
  const target = publicBaseUrl(ctx) + ctx.path;
  const start = linkStart(target);
  if (start !== undefined) {
    const params = new URLSearchParams(ctx.querystring);
    params.delete('page');
    params.append('page', String(page));
    return `${start}?${params.toString()}`;
  }
  const url = new URL(target);
  for (const [name, value] of new URLSearchParams(ctx.querystring)) {
    if (name !== 'page') url.searchParams.append(name, value);
  }
  url.searchParams.set('page', String(page));
  return url.toString();
}

/** Wraps one page of results; throws 404 for a page past the end (except page 1). */
export function envelope<T>(ctx: Koa.Context, p: Paging, count: number, results: T[]): Envelope<T> {
  if (p.page > 1 && p.offset >= count) throw invalidPage();
  return {
    count,
    next: p.offset + results.length < count ? pageUrl(ctx, p.page + 1) : null,
    previous: p.page > 1 ? pageUrl(ctx, p.page - 1) : null,
    results,
  };
}

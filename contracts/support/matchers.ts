/**
 * Matchers the consumer contracts share: what a value of each kind looks like, with a fixed
 * example so that regenerating a pact gives the same file. Examples are dated around Friday
 * 2026-11-20, the day the provider verification runs on.
 */
import { MatchersV3 as M } from '@pact-foundation/pact';

export { MatchersV3 as M } from '@pact-foundation/pact';

/** A `YYYY-mm-dd` date. */
export const date = (example = '2026-11-20') => M.regex('^\\d{4}-\\d{2}-\\d{2}$', example);

/** An ISO 8601 date-time with a UTC offset or Z. */
export const dateTime = (example = '2026-11-20T12:00:00+00:00') =>
  M.regex('^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?(Z|[+-]\\d{2}:\\d{2})$', example);

/** An absolute URL of page `page` of a v2 list at `route` (any host: it comes from PUBLIC_URL or the request). */
export const pageUrl = (route: string, query: string, page: number) =>
  M.regex(`^https?://[^/]+${route.replace(/[.?]/g, '\\$&')}\\?(.*&)?page=${page}(&.*)?$`, `https://daybook.example.org${route}?${query}&page=${page}`);

/** Any absolute URL of a v2 list at `route` (the previous page of page 2 may leave `page` out). */
export const listUrl = (route: string, example: string) =>
  M.regex(`^https?://[^/]+${route.replace(/[.?]/g, '\\$&')}(\\?.*)?$`, `https://daybook.example.org${route}${example}`);

/** `Authorization: Bearer <token>` whatever the token (the verification sends a real one). */
export const bearer = (example: string) => M.regex('^Bearer [A-Za-z0-9._~+/=-]+$', `Bearer ${example}`);

/** `Authorization: Token <simple token>`. */
export const simpleToken = (example: string) => M.regex('^Token [A-Za-z0-9._~+/=-]+$', `Token ${example}`);

/** An integer rate-limit header. */
export const headerInteger = (example: number) => M.regex('^\\d+$', String(example));

/** A group object (name, label, priority). */
export const group = (name: string, label: string, priority: number) => ({ name: M.string(name), label: M.string(label), priority: M.integer(priority) });

/** The service that owns an attribute. */
export const service = (name: string, label: string) => ({ name: M.string(name), label: M.string(label) });

/**
 * Whose requests count together against the rate limit (docs/request-path.md). The limit belongs
 * to the person's connection, not to one credential: an app's requests for a person count under
 * (person, app) whatever token carries them, so neither a refresh nor a new grant of the same app
 * starts a fresh count; a simple token and a browser session count under the person. Requests
 * without credentials count under the client's address.
 */

import { sql, type Sql } from '../../db/sql';

/** The rate-limit table's key prefix of API requests (rate-limiter-flexible writes its keys with it too). */
export const QUOTA_PREFIX = 'api';

const PERSON = 'person:';
const APP = ':app:';

/** The key (without the prefix) of a person's requests, through an app or on their own. */
export function quotaKey(userId: number, clientPk?: number): string {
  return clientPk === undefined ? `${PERSON}${userId}` : `${PERSON}${userId}${APP}${clientPk}`;
}

/** The same key as quotaKey(user, client?), with the prefix, in SQL over columns (`raw('t.user_id')`). */
export function quotaKeyOf(user: Sql, client?: Sql): Sql {
  const person = sql`${`${QUOTA_PREFIX}:${PERSON}`}::text || ${user}`;
  return client === undefined ? person : sql`${person} || ${APP}::text || ${client}`;
}

/** A request's place in its rate-limit window. */
export interface QuotaWindow {
  /** Length of the window. */
  windowMs: number;
  /** The clock of the window (epoch ms; the rate limit runs on the wall clock). */
  nowMs: number;
}

/**
 * A CTE named `counted` that counts one request under `key` for the row of the CTE `source` when
 * `live` holds: an atomic upsert on the shared table (exact across requests and instances); a
 * window that has ended starts again at 1. Put it after the credentials' lookup, in the same
 * statement; it answers `points` and `expire`.
 */
export function countedCte(source: Sql, key: Sql, live: Sql, window: QuotaWindow): Sql {
  return sql`counted as (
    insert into rate_limits (key, points, expire)
    select ${key}, 1, ${window.nowMs + window.windowMs}::bigint from ${source} where ${live}
    on conflict (key) do update set
      points = case when rate_limits.expire <= ${window.nowMs}::bigint then 1 else rate_limits.points + 1 end,
      expire = case when rate_limits.expire <= ${window.nowMs}::bigint then excluded.expire else rate_limits.expire end
    returning points, expire
  )`;
}

/** The count columns (`quota_points`, `quota_expire`) of a statement with countedCte, for countOf. */
export const COUNT_COLUMNS = sql`counted.points as quota_points, counted.expire as quota_expire`;

/** Past the rate limit: the request counted `points` is refused (429). */
export function isPastLimit(points: number, limit: number): boolean {
  return points > limit;
}

/** The same rule in SQL: the request counted `points` (a column) is within the limit. */
export function withinLimit(points: Sql, limit: number): Sql {
  return sql`${points} <= ${limit}::integer`;
}

/** The count a statement with countedCte answered (`quota_points`, `quota_expire`), if it counted. */
export function countOf(row: { quota_points?: number | string | null; quota_expire?: number | string | null }): QuotaCount | undefined {
  return row.quota_points === null || row.quota_points === undefined ? undefined : { points: Number(row.quota_points), expire: Number(row.quota_expire) };
}

/** How a request was counted: the window's count so far (this request included) and when the window ends. */
export interface QuotaCount {
  points: number;
  /** Epoch milliseconds. */
  expire: number;
}

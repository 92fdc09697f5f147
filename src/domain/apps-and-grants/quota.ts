/**
 * Whose requests count together against the rate limit (docs/request-path.md). The limit belongs
 * to the person's connection, not to one credential: an app's requests for a person count under
 * (person, app) whatever token carries them, so neither a refresh nor a new grant of the same app
 * starts a fresh count; a simple token and a browser session count under the person. Requests
 * without credentials count under the client's address.
 */

/** The rate-limit table's key prefix of API requests (the same one rate-limiter-flexible writes). */
export const QUOTA_PREFIX = 'api';

/** The key (without the prefix) of a person's requests, through an app or on their own. */
export function quotaKey(userId: number, clientPk?: number): string {
  return clientPk === undefined ? `person:${userId}` : `person:${userId}:app:${clientPk}`;
}

/** The same key as quotaKey(user, client?) with the prefix, written in SQL over columns. */
export function quotaKeySql(userColumn: string, clientColumn?: string): string {
  return clientColumn === undefined ? `'${QUOTA_PREFIX}:person:' || ${userColumn}` : `'${QUOTA_PREFIX}:person:' || ${userColumn} || ':app:' || ${clientColumn}`;
}

/** A request's place in its rate-limit window. */
export interface QuotaWindow {
  /** Length of the window. */
  windowMs: number;
  /** The clock of the window (epoch ms; the rate limit runs on the wall clock). */
  nowMs: number;
}

/**
 * A CTE named `counted` that counts one request under `keySql` for the row of the CTE `source` when
 * `live` holds: an atomic upsert on the shared table (exact across requests and instances); a
 * window that has ended starts again at 1. Put it after the credentials' lookup, in the same
 * statement, and bind countedBindings(window, bindings of `live`) where it stands.
 */
export function countedCte(source: string, keySql: string, live: string): string {
  return `counted as (
    insert into rate_limits (key, points, expire)
    select ${keySql}, 1, ?::bigint from ${source} where ${live}
    on conflict (key) do update set
      points = case when rate_limits.expire <= ? then 1 else rate_limits.points + 1 end,
      expire = case when rate_limits.expire <= ? then excluded.expire else rate_limits.expire end
    returning points, expire
  )`;
}

export function countedBindings(window: QuotaWindow, live: unknown[] = []): unknown[] {
  return [window.nowMs + window.windowMs, ...live, window.nowMs, window.nowMs];
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

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

/** The same key as quotaKey(user, client) with the prefix, written in SQL over two columns. */
export function quotaKeySql(userColumn: string, clientColumn: string): string {
  return `'${QUOTA_PREFIX}:person:' || ${userColumn} || ':app:' || ${clientColumn}`;
}

/** How a request was counted: the window's count so far (this request included) and when the window ends. */
export interface QuotaCount {
  points: number;
  /** Epoch milliseconds. */
  expire: number;
}

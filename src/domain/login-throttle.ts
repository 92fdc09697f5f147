/**
 * Sign-in throttling (DESIGN): failures are counted per account and per address over 15 minutes,
 * in the shared `rate_limits` table (rate-limiter-flexible, so every instance sees one count).
 * After 5 failures for an account or from an address, every attempt in the window (the 6th
 * failure, and a correct password too) is refused with the seconds to wait. A success does not
 * wipe the count, so an attacker who also knows one good password cannot reset it.
 * Used by the login form and the simple-token endpoint alike.
 */
import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import { RATE_LIMIT_TABLE } from '../http/rate-limit';
import { authenticateUser, type User } from './users';

export const LOGIN_FAILURES_ALLOWED = 5;
export const LOGIN_WINDOW_SECONDS = 15 * 60;

export interface LoginThrottle {
  /** Seconds to wait before another attempt, or 0 when an attempt may be made now. */
  retryAfter(username: string, address: string): Promise<number>;
  /** Counts a failed attempt against the account and the address. */
  recordFailure(username: string, address: string): Promise<void>;
}

/** Keys never hold what was typed: user names are hashed (they can be long, and are personal). */
function keysFor(username: string, address: string): string[] {
  const account = crypto.createHash('sha256').update(username.trim().toLowerCase()).digest('hex').slice(0, 40);
  return [`account:${account}`, `address:${address.slice(0, 100)}`];
}

export function createLoginThrottle(db: Knex): LoginThrottle {
  const limiter = new RateLimiterPostgres({
    storeClient: db,
    storeType: 'knex',
    tableName: RATE_LIMIT_TABLE,
    tableCreated: true,
    keyPrefix: 'login',
    points: LOGIN_FAILURES_ALLOWED,
    duration: LOGIN_WINDOW_SECONDS,
    clearExpiredByTimeout: false,
  });
  return {
    async retryAfter(username, address) {
      let wait = 0;
      for (const key of keysFor(username, address)) {
        const state = await limiter.get(key);
        if (state && state.consumedPoints >= LOGIN_FAILURES_ALLOWED) wait = Math.max(wait, Math.ceil(state.msBeforeNext / 1000), 1);
      }
      return wait;
    },
    async recordFailure(username, address) {
      for (const key of keysFor(username, address)) {
        try {
          await limiter.consume(key, 1);
        } catch (rejection) {
          if (!(rejection instanceof RateLimiterRes)) throw rejection; // already over the limit: nothing more to count
        }
      }
    },
  };
}

const shared = new WeakMap<Knex, LoginThrottle>();

/** The throttle of this database, shared by the login form and the simple-token endpoint. */
export function loginThrottleFor(db: Knex): LoginThrottle {
  let throttle = shared.get(db);
  if (!throttle) {
    throttle = createLoginThrottle(db);
    shared.set(db, throttle);
  }
  return throttle;
}

export type SignInResult = { user: User } | { throttled: number } | { wrongCredentials: true };

/**
 * One sign-in attempt, as the login form and the simple-token endpoint both make it: refused
 * while throttled (even with the right password), otherwise checked, a failure counted.
 */
export async function attemptSignIn(db: Knex, input: { username: string; password: string; address: string }): Promise<SignInResult> {
  const throttle = loginThrottleFor(db);
  const wait = await throttle.retryAfter(input.username, input.address);
  if (wait > 0) return { throttled: wait };
  const user = await authenticateUser(db, input.username, input.password);
  if (user) return { user };
  await throttle.recordFailure(input.username, input.address);
  return { wrongCredentials: true };
}

/**
 * The request rate limit: RATE_LIMIT_PER_HOUR (the spec's 300) requests per hour per person's
 * connection (domain/apps-and-grants/quota.ts: person and app for OAuth tokens, person for a simple token or a
 * session), counted atomically in Postgres so every instance shares one count. A request with
 * credentials was already counted by the statement that looked them up (http/auth.ts); the others
 * are counted here (rate-limiter-flexible, on the same table). Requests without a principal count
 * against the client's address. Every answer carries the X-RateLimit-* headers and the IETF
 * RateLimit / RateLimit-Policy fields; past the limit, 429.
 */
import type Koa from 'koa';
import type { Knex } from 'knex';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import { clientAddress } from './client-address';
import { tooManyRequests } from './errors';
import type { Principal } from '../domain/apps-and-grants/principal';
import type { QuotaCount } from '../domain/apps-and-grants/quota';

/** A count taken with the token's lookup, in the shape rate-limiter-flexible answers. */
function resultOf(count: QuotaCount, limit: number): RateLimiterRes {
  return new RateLimiterRes(limit - count.points, Math.max(0, count.expire - Date.now()), count.points, false);
}

export const WINDOW_SECONDS = 3600;

/** Table created by the migrations (same layout rate-limiter-flexible would create). */
export const RATE_LIMIT_TABLE = 'rate_limits';

export function createRateLimiter(db: Knex, pointsPerHour: number, keyPrefix = 'api'): RateLimiterPostgres {
  return new RateLimiterPostgres({
    storeClient: db,
    storeType: 'knex',
    tableName: RATE_LIMIT_TABLE,
    tableCreated: true,
    keyPrefix,
    points: pointsPerHour,
    duration: WINDOW_SECONDS,
    clearExpiredByTimeout: false, // expired rows are overwritten in place; a sweep belongs to a job, not to every instance
  });
}

function setHeaders(ctx: Koa.Context, limit: number, result: RateLimiterRes): number {
  const reset = Math.max(0, Math.ceil(result.msBeforeNext / 1000));
  const remaining = Math.max(0, result.remainingPoints);
  ctx.set('X-RateLimit-Limit', String(limit));
  ctx.set('X-RateLimit-Remaining', String(remaining));
  ctx.set('X-RateLimit-Reset', String(reset));
  ctx.set('RateLimit-Policy', `"default";q=${limit};w=${WINDOW_SECONDS}`);
  ctx.set('RateLimit', `"default";r=${remaining};t=${reset}`);
  return reset;
}

export function rateLimit(limiter: RateLimiterPostgres, limit: number): Koa.Middleware {
  return async (ctx, next) => {
    const principal = ctx.state.principal as Principal | undefined;
    const key = principal?.rateLimitKey ?? `ip:${clientAddress(ctx)}`;
    const counted = ctx.state.quotaCount as QuotaCount | undefined;
    let result: RateLimiterRes;
    try {
      if (counted && counted.points > limit) throw resultOf(counted, limit);
      result = counted ? resultOf(counted, limit) : await limiter.consume(key, 1);
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection; // a database error: the error mapper answers it
      const retryAfter = setHeaders(ctx, limit, rejection);
      throw tooManyRequests(`Request limit exceeded: ${limit} requests per hour. Try again in ${retryAfter} seconds.`, retryAfter);
    }
    setHeaders(ctx, limit, result);
    await next();
  };
}

/**
 * The request rate limit: RATE_LIMIT_PER_HOUR (300 in the API documents, "Rate limits") requests per hour per person's
 * connection (domain/apps-and-grants/quota.ts: person and app for OAuth tokens, person for a simple token or a
 * session), counted atomically in Postgres so every instance shares one count. A request with
 * credentials was already counted by the statement that looked them up (http/auth.ts), or is
 * counted by the handler's first statement (a remembered credential, `limitFirstStatement`); the others are counted
 * here (rate-limiter-flexible, on the same table). Requests without a principal count
 * against the client's address. Every answer carries the X-RateLimit-* headers and the IETF
 * RateLimit / RateLimit-Policy fields; past the limit, 429. The authorisation page is the person's
 * page and is neither counted nor limited here (`countedByQuota`, ./documents.ts).
 */
import type Koa from 'koa';
import type { Knex } from 'knex';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import { clientAddress } from './client-address';
import { tooManyRequests } from './errors';
import { isPastLimit, QUOTA_PREFIX, type QuotaCount } from '../domain/apps-and-grants/quota';
import { CountPastLimit, CredentialsChanged } from '../domain/apps-and-grants/credential-recheck';
import { firstStatementCheckOf } from './auth';
import { databaseOf, type FirstStatementCheck } from './request-state';

/** A count taken with the token's lookup, in the shape rate-limiter-flexible answers. */
function resultOf(count: QuotaCount, limit: number): RateLimiterRes {
  return new RateLimiterRes(limit - count.points, Math.max(0, count.expire - Date.now()), count.points, false);
}

export const WINDOW_SECONDS = 3600;

/** Table created by the migrations (same layout rate-limiter-flexible would create). */
export const RATE_LIMIT_TABLE = 'rate_limits';

export function createRateLimiter(db: Knex, pointsPerHour: number, keyPrefix = QUOTA_PREFIX): RateLimiterPostgres {
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

/** Sets the headers of a count, or throws the 429 when it is past the limit. */
function enforce(ctx: Koa.Context, limit: number, result: RateLimiterRes): void {
  if (isPastLimit(result.consumedPoints, limit)) {
    const retryAfter = setHeaders(ctx, limit, result);
    throw tooManyRequests(`Request limit exceeded: ${limit} requests per hour. Try again in ${retryAfter} seconds.`, retryAfter);
  }
  setHeaders(ctx, limit, result);
}

/** An API request whose count is known (taken with its credentials) or taken here: limit, then serve. */
async function limitCounted(ctx: Koa.Context, limiter: RateLimiterPostgres, limit: number, serve: (ctx: Koa.Context) => Promise<unknown>): Promise<void> {
  const { principal, quotaCount: counted } = ctx.state;
  let result: RateLimiterRes;
  try {
    result = counted ? resultOf(counted, limit) : await limiter.consume(principal?.rateLimitKey ?? `ip:${clientAddress(ctx)}`, 1);
  } catch (rejection) {
    if (!(rejection instanceof RateLimiterRes)) throw rejection; // a database error: the error mapper answers it
    result = rejection;
  }
  enforce(ctx, limit, result);
  await serve(ctx);
}

/**
 * An API request whose credentials are checked by its first statement (http/credential-checks.ts):
 * the handler's first statement carries the recheck and the count (src/db/database.ts), or, when
 * no statement did, they run alone after the handler. The count is enforced then: past the limit
 * the answer becomes the 429 (nothing was read out or written: the handle ran nothing past the
 * check), and an error answer gives way to the 429 as it would have before the handler. When the
 * credential's rows changed, it is read again in full and the request served again from the start
 * (nothing ran after the check that found them changed).
 */
async function limitFirstStatement(
  ctx: Koa.Context,
  limiter: RateLimiterPostgres,
  limit: number,
  serve: (ctx: Koa.Context) => Promise<unknown>,
  check: FirstStatementCheck,
): Promise<void> {
  let failure: { error: unknown } | undefined;
  try {
    await serve(ctx);
  } catch (error) {
    failure = { error };
  }
  try {
    if (!(failure?.error instanceof CredentialsChanged)) await databaseOf(ctx).settle();
  } catch (error) {
    if (!(error instanceof CredentialsChanged || error instanceof CountPastLimit)) throw error;
  }
  const count = check.recheck.count;
  if (!count) {
    await check.reauthenticate();
    return limitCounted(ctx, limiter, limit, serve);
  }
  enforce(ctx, limit, resultOf(count, limit));
  if (failure) throw failure.error;
}

export function rateLimit(limiter: RateLimiterPostgres, limit: number, serve: (ctx: Koa.Context) => Promise<unknown>): (ctx: Koa.Context) => Promise<void> {
  return (ctx) => {
    const check = firstStatementCheckOf(ctx);
    return check ? limitFirstStatement(ctx, limiter, limit, serve, check) : limitCounted(ctx, limiter, limit, serve);
  };
}

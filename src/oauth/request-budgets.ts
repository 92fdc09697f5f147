/**
 * Client authentication within the token and revocation endpoints' budgets (docs/security.md,
 * "Token endpoint limits and the refresh leeway"; the counting: domain/apps-and-grants/token-budgets.ts).
 * These endpoints are counted here, not by the API's per-address rate limit (app.ts): per client,
 * per grant (refresh-token.ts) and, for failed client authentication only, per address. Past a
 * budget: 429 `slow_down` with Retry-After. A 200 carries the client budget's rate-limit headers.
 */
import type Koa from 'koa';
import type { Deps } from '../deps';
import type { Config } from '../config';
import { clientAddress } from '../http/client-address';
import { isPastLimit, type QuotaCount } from '../domain/apps-and-grants/quota';
import { countClientRequest, recordClientAuthFailure, type TokenBudgets } from '../domain/apps-and-grants/token-budgets';
import { authenticateClient, type AuthenticatedClient } from './client-auth';
import { OAuthError, slowDown } from './oauth-error';

const HOUR_MS = 60 * 60 * 1000;
const FAILURE_WINDOW_MS = 15 * 60 * 1000;

/** The budgets the settings give. */
export function tokenBudgets(config: Config): TokenBudgets {
  return {
    perClient: { limit: config.oauthClientRequestsPerHour, windowMs: HOUR_MS },
    perGrant: { limit: config.oauthRefreshesPerGrantPerHour, windowMs: HOUR_MS },
    failuresPerAddress: { limit: config.oauthClientAuthFailuresPer15Min, windowMs: FAILURE_WINDOW_MS },
  };
}

/** Whole seconds from `nowMs` until `untilMs` (at least 1: the window may end within this second). */
export function secondsUntil(untilMs: number, nowMs: number): number {
  return Math.max(1, Math.ceil((untilMs - nowMs) / 1000));
}

const failuresSpent = (retryAfter: number) =>
  slowDown(`Too many failed client authentications from this address: try again in ${retryAfter} seconds.`, retryAfter);

function setClientBudgetHeaders(ctx: Koa.Context, limit: number, count: QuotaCount, nowMs: number): void {
  const remaining = Math.max(0, limit - count.points);
  const reset = Math.max(0, Math.ceil((count.expire - nowMs) / 1000));
  ctx.set('X-RateLimit-Limit', String(limit));
  ctx.set('X-RateLimit-Remaining', String(remaining));
  ctx.set('X-RateLimit-Reset', String(reset));
  ctx.set('RateLimit-Policy', `"client";q=${limit};w=${HOUR_MS / 1000}`);
  ctx.set('RateLimit', `"client";r=${remaining};t=${reset}`);
}

/**
 * Authenticates the request's client (client-auth.ts) and counts it: a failure against the
 * address's budget (past it, 429 instead of the failure), a success against the client's budget
 * (unless the address's failure budget is spent: then 429 too, so a correct guess looks like the rest).
 */
export async function authenticateWithinBudgets(deps: Deps, ctx: Koa.Context, params: Record<string, string | undefined>): Promise<AuthenticatedClient> {
  const budgets = tokenBudgets(deps.config);
  const nowMs = deps.now().getTime();
  const address = clientAddress(ctx);
  let authenticated: AuthenticatedClient;
  try {
    authenticated = await authenticateClient(deps.db, ctx, params);
  } catch (error) {
    if (!(error instanceof OAuthError)) throw error;
    const spentUntil = await recordClientAuthFailure(deps.db, address, budgets.failuresPerAddress, nowMs);
    throw spentUntil === undefined ? error : failuresSpent(secondsUntil(spentUntil, nowMs));
  }
  const counted = await countClientRequest(deps.db, authenticated.client.id, address, budgets, nowMs);
  if ('spentUntil' in counted) throw failuresSpent(secondsUntil(counted.spentUntil, nowMs));
  const { limit } = budgets.perClient;
  if (isPastLimit(counted.count.points, limit)) {
    const retryAfter = secondsUntil(counted.count.expire, nowMs);
    throw slowDown(`This client made ${limit} token requests in the last hour: try again in ${retryAfter} seconds.`, retryAfter);
  }
  setClientBudgetHeaders(ctx, limit, counted.count, nowMs);
  return authenticated;
}

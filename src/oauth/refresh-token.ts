/**
 * grant_type=refresh_token (RFC 6749 section 6): bound to its client; returns a new access and
 * refresh token and invalidates the previous pair at once; `scope` may narrow, never widen. A
 * replayed (already exchanged) refresh token revokes the whole grant (RFC 9700 section 4.14.2),
 * whichever client presents it; another client presenting a live token gets invalid_grant and
 * changes nothing. Within the refresh leeway its own client (only) is answered the same new pair
 * again (domain/.../refresh-retry.ts).
 * Each grant's refreshes have a budget (request-budgets.ts): past it, 429 slow_down.
 * The new pair's scopes must still be ones the client may ask for (its owner can narrow them).
 */
import { rotateRefreshToken, type RefreshProblem } from '../domain/apps-and-grants/grants';
import { parseScopes, scopesBeyond } from '../domain/apps-and-grants/scopes';
import type { GrantHandler, GrantParameters } from './grant';
import { invalidGrant, invalidScope, slowDown } from './oauth-error';
import { secondsUntil, tokenBudgets } from './request-budgets';
import { listWords } from './params';

export const grantType = 'refresh_token';

/** @public (read through the module object, token-endpoint.ts GRANTS) */
export const parameters: GrantParameters = { required: ['refresh_token'], optional: ['scope'] };

const PROBLEMS: Record<Exclude<RefreshProblem, { beyondGrant: string[] }>, string> = {
  unknown: 'The refresh token is unknown.',
  revoked: 'The refresh token has been revoked.',
  replayed: 'The refresh token was already exchanged; every token of this authorisation has been revoked.',
  expired: 'The refresh token has expired (tokens last 365 days): authorise again.',
  // Worded as `unknown`: another client learns nothing about the token it presents.
  wrong_client: 'The refresh token is unknown.',
  scope_no_longer_allowed: 'The client may no longer ask for every scope of this authorisation: authorise again.',
};

/** @public (read through the module object, token-endpoint.ts GRANTS) */
export const handler: GrantHandler = async (deps, client, params) => {
  let narrowed: string[] | undefined;
  if (params.scope !== undefined) {
    const { scopes, unknown } = parseScopes(params.scope);
    if (unknown.length > 0) throw invalidScope(`Unknown scope${unknown.length > 1 ? 's' : ''}: ${listWords(unknown)}.`);
    if (scopes.length === 0) throw invalidScope('The scope parameter is empty: leave it out to keep the granted scopes.');
    narrowed = scopes;
  }
  const now = deps.now();
  const grantBudget = tokenBudgets(deps.config).perGrant;
  const check: Parameters<typeof rotateRefreshToken>[4] = (row, allowedScopes) => {
    const beyond = narrowed ? scopesBeyond(narrowed, row.scopes) : [];
    if (beyond.length > 0) return { problem: { beyondGrant: beyond } };
    const scopes = narrowed ?? row.scopes;
    // The app's owner may have narrowed what it may ask for since the grant (its tokens were revoked then).
    return scopesBeyond(scopes, allowedScopes).length > 0 ? { problem: 'scope_no_longer_allowed' } : { scopes };
  };
  const result = await rotateRefreshToken(deps.db, params.refresh_token!, now, client.id, check, grantBudget);
  if ('limited' in result) {
    const retryAfter = secondsUntil(result.limited.until, now.getTime());
    throw slowDown(`This authorisation was refreshed ${grantBudget.limit} times in the last hour: try again in ${retryAfter} seconds.`, retryAfter);
  }
  if ('problem' in result) {
    const { problem } = result;
    if (typeof problem === 'object') {
      throw invalidScope(
        `A refresh may only narrow the granted scopes: ${listWords(problem.beyondGrant)} ${problem.beyondGrant.length > 1 ? 'were' : 'was'} not granted.`,
      );
    }
    throw invalidGrant(PROBLEMS[problem]);
  }
  return result.tokens;
};

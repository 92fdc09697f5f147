/**
 * OAuth errors, from one place: the token endpoint's JSON `{error, error_description}` (RFC 6749
 * section 5.2) and the authorise endpoint's redirects back to the client (section 4.1.2.1).
 */
import type Koa from 'koa';
import type { components } from '../../generated/types/oauth';

export type TokenErrorCode = components['schemas']['OAuthErrorCode'];
export type AuthorizeErrorCode = 'invalid_request' | 'access_denied' | 'invalid_scope' | 'unsupported_response_type' | 'server_error';

/** A token endpoint error. `basicChallenge`: client authentication by HTTP Basic failed (401). */
export class OAuthError extends Error {
  constructor(
    readonly error: TokenErrorCode,
    readonly description: string,
    readonly basicChallenge = false,
    /** Past a budget (request-budgets.ts): answered 429 with Retry-After, in seconds. */
    readonly retryAfterSeconds?: number,
  ) {
    super(`${error}: ${description}`);
    this.name = 'OAuthError';
  }
}

export const invalidRequest = (description: string) => new OAuthError('invalid_request', description);
export const invalidClient = (description: string, viaBasic: boolean) => new OAuthError('invalid_client', description, viaBasic);
export const invalidGrant = (description: string) => new OAuthError('invalid_grant', description);
export const invalidScope = (description: string) => new OAuthError('invalid_scope', description);
export const unauthorizedClient = (description: string) => new OAuthError('unauthorized_client', description);
export const unsupportedGrantType = (description: string) => new OAuthError('unsupported_grant_type', description);
/**
 * A budget is spent (docs/security.md, "Token endpoint limits and the refresh leeway"): 429,
 * `slow_down`, the token endpoint error RFC 8628 section 3.5 registered for "slow down, retry
 * later"; RFC 6749 itself has no rate-limit error.
 */
export const slowDown = (description: string, retryAfterSeconds: number) => new OAuthError('slow_down', description, false, retryAfterSeconds);

/** Every token endpoint answer holds or concerns credentials: never cached (RFC 6749 section 5.1). */
export function noStore(ctx: Koa.Context): void {
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Pragma', 'no-cache');
}

/**
 * Answers a token endpoint error: 400, or 401 with a Basic challenge when Basic authentication
 * failed, 429 with Retry-After past a budget, or `status` when the HTTP status says more (413 and
 * 415 for a body refused unread).
 */
export function sendTokenError(ctx: Koa.Context, error: OAuthError, status?: number): void {
  noStore(ctx);
  if (error.retryAfterSeconds !== undefined) ctx.set('Retry-After', String(error.retryAfterSeconds));
  ctx.status = status ?? (error.retryAfterSeconds !== undefined ? 429 : error.basicChallenge ? 401 : 400);
  if (error.basicChallenge) ctx.set('WWW-Authenticate', 'Basic realm="daybook"');
  ctx.body = { error: error.error, error_description: error.description };
}

/** `redirectUri` with extra query parameters, keeping its own. */
export function withQuery(redirectUri: string, params: Record<string, string | undefined>): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.append(name, value);
  return url.toString();
}

/** The URL an authorise error is sent back to: `error`, `error_description` and `state` (when sent). */
export function authorizeErrorUrl(redirectUri: string, error: AuthorizeErrorCode, description: string, state: string | undefined): string {
  return withQuery(redirectUri, { error, error_description: description, state });
}

/**
 * The token endpoint, POST /oauth2/access_token: read the body -> pick the grant module by
 * grant_type -> authenticate the client within the budgets (request-budgets.ts) -> check the
 * grant's parameters -> run the grant. Every problem is an RFC 6749 error; every answer is
 * `Cache-Control: no-store`.
 */
import type Koa from 'koa';
import type { Deps } from '../deps';
import { asHttpError } from '../http/errors';
import * as authorizationCode from './authorization-code';
import { authenticateWithinBudgets } from './request-budgets';
import type { GrantModule } from './grant';
import { invalidRequest, noStore, OAuthError, sendTokenError, unsupportedGrantType } from './oauth-error';
import { listWords, readBody, readParams, type RawParams } from './params';
import * as refreshToken from './refresh-token';
import type { Handlers, OAuthOperation, OAuthOperations } from '../http/operation';

const GRANTS: Record<string, GrantModule> = {
  [authorizationCode.grantType]: authorizationCode,
  [refreshToken.grantType]: refreshToken,
};

/** The grant types this endpoint answers (the metadata's grant_types_supported). */
export const GRANT_TYPES: readonly string[] = Object.keys(GRANTS);

function chooseGrant(body: RawParams): GrantModule {
  const { values, malformed } = readParams(body, ['grant_type']);
  if (malformed.length > 0) throw invalidRequest('grant_type must be sent once, as a string.');
  if (!values.grant_type) throw invalidRequest('Missing parameter: grant_type.');
  const grant = Object.hasOwn(GRANTS, values.grant_type) ? GRANTS[values.grant_type] : undefined;
  if (!grant) throw unsupportedGrantType(`Unsupported grant_type "${values.grant_type}": use authorization_code or refresh_token.`);
  return grant;
}

async function exchange(deps: Deps, ctx: OAuthOperation<'createAccessToken'>['ctx']): Promise<void> {
  const body = readBody(ctx);
  const grant = chooseGrant(body);
  const names = ['client_id', 'client_secret', ...grant.parameters.required, ...grant.parameters.optional];
  const { values, malformed } = readParams(body, names);
  if (malformed.length > 0) throw invalidRequest(`Parameters must be sent once, as strings: ${listWords(malformed)}.`);
  const { client } = await authenticateWithinBudgets(deps, ctx as Koa.Context, values);
  const missing = grant.parameters.required.filter((name) => !values[name]);
  if (missing.length > 0) throw invalidRequest(`Missing parameter${missing.length > 1 ? 's' : ''}: ${listWords(missing)}.`);
  const tokens = await grant.handler(deps, client, values);
  ctx.status = 200;
  ctx.body = tokens;
}

export function tokenHandlers(deps: Deps): Pick<Handlers<OAuthOperations>, 'createAccessToken'> {
  return {
    async createAccessToken(_c: OAuthOperation<'createAccessToken'>['context'], ctx: OAuthOperation<'createAccessToken'>['ctx']): Promise<void> {
      noStore(ctx);
      try {
        await exchange(deps, ctx);
      } catch (error) {
        if (error instanceof OAuthError) return sendTokenError(ctx, error);
        throw error;
      }
    },
  };
}

/** Body problems answered before the request is read: malformed (400), too large (413), another media type (415). */
const BODY_STATUSES = new Set([400, 413, 415]);

/**
 * The endpoints whose bodies are OAuth parameters: the token endpoint and revocation. They count
 * their requests themselves (request-budgets.ts), never under the API's rate limit (app.ts).
 */
export const PARAMETER_ENDPOINTS: ReadonlySet<string> = new Set(['/oauth2/access_token', '/oauth2/revoke']);

/**
 * A token or revocation request whose body cannot be parsed, is too large or of another media
 * type is still answered in RFC 6749 form (invalid_request, no-store), not with the API's error
 * body; 413 and 415 keep their status. Mounted before the openapi dispatch.
 */
export function tokenRequestParseErrors(): Koa.Middleware {
  return async (ctx, next) => {
    if (!PARAMETER_ENDPOINTS.has(ctx.path)) return next();
    try {
      await next();
    } catch (error) {
      const refused = asHttpError(error);
      if (refused && BODY_STATUSES.has(refused.status)) return sendTokenError(ctx, invalidRequest(refused.detail), refused.status);
      throw error;
    }
  };
}

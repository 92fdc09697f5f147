/**
 * The revocation endpoint, POST /oauth2/revoke (RFC 7009): read the body -> authenticate the
 * client as at the token endpoint (client-auth.ts) -> check `token` and `token_type_hint` ->
 * revoke the token's grant when it is this client's. An unknown token, one already revoked, or
 * another client's (left alone) is answered 200 like a revocation (section 2.2): the client can do
 * nothing about them, and another app's tokens must not be probed through the answer. Problems are
 * RFC 6749 errors; every answer is `no-store`.
 */
import type Koa from 'koa';
import type { Deps } from '../deps';
import { revokeTokenOfClient } from '../domain/apps-and-grants/revocation';
import { authenticateWithinBudgets } from './request-budgets';
import { invalidRequest, noStore, OAuthError, sendTokenError } from './oauth-error';
import { listWords, readBody, readParams } from './params';
import type { Handlers, OAuthOperation, OAuthOperations } from '../http/operation';

/** RFC 7009 section 2.1's hints; both kinds are found whatever the hint says. */
const TOKEN_TYPE_HINTS = ['access_token', 'refresh_token'];

const PARAMETERS = ['token', 'token_type_hint', 'client_id', 'client_secret'];

async function revoke(deps: Deps, ctx: OAuthOperation<'revokeToken'>['ctx']): Promise<void> {
  const { values, malformed } = readParams(readBody(ctx), PARAMETERS);
  if (malformed.length > 0) throw invalidRequest(`Parameters must be sent once, as strings: ${listWords(malformed)}.`);
  // The client first: a request that fails to authenticate learns nothing about its token.
  const { client } = await authenticateWithinBudgets(deps, ctx as Koa.Context, values);
  if (!values.token) throw invalidRequest('Missing parameter: token (the access token or refresh token to revoke).');
  const hint = values.token_type_hint;
  if (hint !== undefined && !TOKEN_TYPE_HINTS.includes(hint)) {
    throw new OAuthError('unsupported_token_type', `Unsupported token_type_hint "${hint}": Daybook issues access_token and refresh_token only.`);
  }
  await revokeTokenOfClient(deps.db, values.token, client.id, deps.now());
  // 200 with an empty body (section 2.2): an explicit null body, then the status (Koa would make it 204).
  (ctx as Koa.Context).body = null;
  ctx.status = 200;
}

export function revocationHandlers(deps: Deps): Pick<Handlers<OAuthOperations>, 'revokeToken'> {
  return {
    async revokeToken(_c: OAuthOperation<'revokeToken'>['context'], ctx: OAuthOperation<'revokeToken'>['ctx']): Promise<void> {
      noStore(ctx);
      try {
        await revoke(deps, ctx);
      } catch (error) {
        if (error instanceof OAuthError) return sendTokenError(ctx, error);
        throw error;
      }
    },
  };
}

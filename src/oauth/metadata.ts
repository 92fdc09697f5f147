/**
 * RFC 8414 authorization server metadata at /.well-known/oauth-authorization-server, and the
 * issuer identifier it names, which every authorisation response carries as `iss` (RFC 9207).
 * Each value says what the endpoints really do: the grant modules of token-endpoint.ts, PKCE S256
 * only (pkce.ts), the client authentication of client-auth.ts, the scopes of scopes.ts.
 */
import type Koa from 'koa';
import { ALL_SCOPE_NAMES } from '../domain/apps-and-grants/scopes';
import { publicBaseUrl } from '../http/urls';
import type { Handlers, OAuthOperation, OAuthOperations } from '../http/operation';
import { GRANT_TYPES } from './token-endpoint';

type Metadata = OAuthOperation<'getAuthorizationServerMetadata'>['body'];

/** client_secret_basic and client_secret_post for confidential clients, none for public ones (client-auth.ts). */
const CLIENT_AUTH_METHODS: Metadata['token_endpoint_auth_methods_supported'] = ['client_secret_basic', 'client_secret_post', 'none'];

/** How long a client may cache the metadata: it changes only with a deployment. */
const MAX_AGE_SECONDS = 3600;

/**
 * The issuer: the instance's public origin, `PUBLIC_URL` or (in development) the request's checked
 * origin, as every absolute URL of the service (http/urls.ts).
 */
export function issuerOf(ctx: Koa.Context): string {
  return publicBaseUrl(ctx);
}

function metadataFor(issuer: string): Metadata {
  return {
    issuer,
    authorization_endpoint: `${issuer}/oauth2/authorize`,
    token_endpoint: `${issuer}/oauth2/access_token`,
    revocation_endpoint: `${issuer}/oauth2/revoke`,
    scopes_supported: [...ALL_SCOPE_NAMES],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: [...GRANT_TYPES] as Metadata['grant_types_supported'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: CLIENT_AUTH_METHODS,
    revocation_endpoint_auth_methods_supported: CLIENT_AUTH_METHODS,
    authorization_response_iss_parameter_supported: true,
    service_documentation: `${issuer}/docs/oauth/`,
  };
}

export function metadataHandlers(): Pick<Handlers<OAuthOperations>, 'getAuthorizationServerMetadata'> {
  return {
    getAuthorizationServerMetadata(
      _c: OAuthOperation<'getAuthorizationServerMetadata'>['context'],
      ctx: OAuthOperation<'getAuthorizationServerMetadata'>['ctx'],
    ): void {
      ctx.set('Cache-Control', `public, max-age=${MAX_AGE_SECONDS}`);
      // Without PUBLIC_URL the issuer is the request's own origin: a shared cache must key on it.
      if (ctx.state.publicUrl === undefined) ctx.vary('Host');
      if (ctx.state.publicUrl === undefined && ctx.app.proxy) ['X-Forwarded-Host', 'X-Forwarded-Proto'].forEach((field) => ctx.vary(field));
      ctx.body = metadataFor(issuerOf(ctx));
    },
  };
}

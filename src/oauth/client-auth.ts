/**
 * Client authentication at the token and revocation endpoints (RFC 6749 section 2.3.1, RFC 7009
 * section 2.1): `client_id` and `client_secret` in the body, or HTTP Basic, never both. A public
 * client identifies itself with `client_id` alone and proves itself with PKCE. Failures are `invalid_client`: 401 with a Basic
 * challenge when Basic was used, 400 otherwise. Built-in services have no OAuth flows.
 */
import type Koa from 'koa';
import type { Deps } from '../deps';
import { credentialMatches } from '../domain/identity/credentials';
import { findClientByClientId, type OAuthClient } from '../domain/apps-and-grants/clients';
import { invalidClient, invalidRequest, unauthorizedClient } from './oauth-error';
import { basicCredentials } from '../http/basic-credentials';

export interface AuthenticatedClient {
  client: OAuthClient;
  viaBasic: boolean;
}

const FAILED = 'Client authentication failed: unknown client_id or wrong client_secret.';

/** Authenticates the client of a token request; `params` are the body's single-valued parameters. */
export async function authenticateClient(db: Deps['db'], ctx: Koa.Context, params: Record<string, string | undefined>): Promise<AuthenticatedClient> {
  const header = ctx.get('Authorization');
  const viaBasic = /^basic(\s|$)/i.test(header);
  let clientId: string | undefined;
  let secret: string | undefined;
  if (viaBasic) {
    if (params.client_secret !== undefined) {
      throw invalidRequest('Use one client authentication method: HTTP Basic or client_secret in the body, not both.');
    }
    const credentials = basicCredentials(header);
    if (!credentials) throw invalidClient('The HTTP Basic credentials are malformed: send base64(client_id:client_secret).', true);
    if (params.client_id !== undefined && params.client_id !== credentials.id) {
      throw invalidRequest('The client_id in the body differs from the one in HTTP Basic.');
    }
    clientId = credentials.id;
    secret = credentials.secret === '' ? undefined : credentials.secret;
  } else {
    clientId = params.client_id;
    secret = params.client_secret === '' ? undefined : params.client_secret;
  }
  if (!clientId) throw invalidClient('No client authentication: send client_id (and client_secret for a confidential client) or use HTTP Basic.', false);
  const client = await findClientByClientId(db, clientId);
  if (!client) throw invalidClient(FAILED, viaBasic);
  if (client.builtin) throw unauthorizedClient(`${client.name} is a built-in service of Daybook and cannot use OAuth grants.`);
  if (client.confidential) {
    if (!secret || !client.secret_hash || !credentialMatches(secret, client.secret_hash)) throw invalidClient(FAILED, viaBasic);
  } else if (secret !== undefined) {
    throw invalidClient('This is a public client: it has no client_secret; send client_id alone and use PKCE.', viaBasic);
  }
  return { client, viaBasic };
}

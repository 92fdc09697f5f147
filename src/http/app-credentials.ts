/**
 * An app authenticating as itself (not for a person) with its client credentials in HTTP Basic,
 * for the operations about the app (its webhook endpoints): the `ClientCredentials` scheme of the
 * v2 document. Only confidential clients have a secret; built-in services have no credentials.
 */
import type { Knex } from 'knex';
import { findClientByClientId, type OAuthClient } from '../domain/apps-and-grants/clients';
import { credentialMatches } from '../domain/identity/credentials';
import { basicCredentials } from './basic-credentials';
import { unauthorized, type HttpError } from './errors';

export const BASIC_CHALLENGE = 'Basic realm="daybook"';

/** The 401 of an operation that needs the app's client credentials. */
export function appCredentialsNeeded(detail = "Send the app's client credentials: Authorization: Basic base64(client_id:client_secret)."): HttpError {
  return unauthorized(detail, BASIC_CHALLENGE);
}

/** The app an `Authorization: Basic …` header authenticates, or the reason it does not. */
export async function authenticateApp(db: Knex, header: string): Promise<{ app?: OAuthClient; problem?: HttpError }> {
  const credentials = basicCredentials(header);
  if (!credentials) return { problem: appCredentialsNeeded('The HTTP Basic credentials are malformed: send base64(client_id:client_secret).') };
  const client = await findClientByClientId(db, credentials.id);
  if (!client || client.builtin || !client.confidential || !client.secret_hash || !credentialMatches(credentials.secret, client.secret_hash)) {
    return {
      problem: appCredentialsNeeded(
        'Client authentication failed: unknown client_id or wrong client_secret (public clients have no secret and cannot use this).',
      ),
    };
  }
  return { app: client };
}

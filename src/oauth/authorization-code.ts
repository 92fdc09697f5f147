/**
 * grant_type=authorization_code (RFC 6749 section 4.1.3, RFC 7636 section 4.6): the code is single
 * use, expires after 10 minutes, and is bound to its client, its redirect_uri and its PKCE
 * challenge. The client binding is checked first: another client presenting the code gets
 * invalid_grant and changes nothing (RFC 9700 section 4.14.2). For its own client, any mismatch is
 * invalid_grant and burns the code, except a wrong redirect_uri (the corrected retry works:
 * grants.ts KEEPS_CODE), and a second use revokes what the first produced. A code_verifier for a code issued without a challenge is refused too (PKCE downgrade,
 * RFC 9700 section 2.1.1). A code is only as good as the app's registration at the exchange: if
 * its owner has since removed the code's redirect URI, or a scope the code grants, it is refused.
 */
import { isRegisteredRedirectUri, type OAuthClient } from '../domain/apps-and-grants/clients';
import type { CodeProblem, StoredCode } from '../domain/apps-and-grants/grants';
import { redeemAuthorisationCode } from '../domain/apps-and-grants/grants';
import { scopesBeyond } from '../domain/apps-and-grants/scopes';
import type { GrantHandler, GrantParameters } from './grant';
import { invalidGrant, invalidRequest } from './oauth-error';
import { isWellFormedVerifier, verifierMatches } from './pkce';

export const grantType = 'authorization_code';

/** @public (read through the module object, token-endpoint.ts GRANTS) */
export const parameters: GrantParameters = { required: ['code', 'redirect_uri'], optional: ['code_verifier'] };

const PROBLEMS: Record<CodeProblem, string> = {
  unknown: 'The authorisation code is unknown, expired or was already used.',
  reused: 'The authorisation code was already used; the tokens issued from it have been revoked.',
  expired: 'The authorisation code has expired (codes last 10 minutes): authorise again.',
  // Worded as `unknown`: another client learns nothing about the code it presents.
  wrong_client: 'The authorisation code is unknown, expired or was already used.',
  wrong_redirect_uri:
    'The redirect_uri differs from the one in the authorisation request: send that one (the code stays usable until it is exchanged or expires).',
  redirect_uri_unregistered: 'The redirect_uri is no longer registered for this client: authorise again with a registered one.',
  scope_no_longer_allowed: 'The client may no longer ask for every scope this code grants: authorise again.',
  verifier_missing: 'A code_verifier is required: the authorisation request carried a code_challenge.',
  verifier_mismatch: 'The code_verifier does not match the code_challenge of the authorisation request.',
  verifier_unexpected: 'A code_verifier was sent but the authorisation request carried no code_challenge.',
};

/** Has the app's owner changed the registration since the code was issued, so that it no longer covers the code? */
function registrationProblem(client: OAuthClient, row: StoredCode): CodeProblem | undefined {
  if (!isRegisteredRedirectUri(client.redirect_uris, row.redirect_uri)) return 'redirect_uri_unregistered';
  if (scopesBeyond(row.scopes, client.allowed_scopes).length > 0) return 'scope_no_longer_allowed';
  return undefined;
}

/** @public (read through the module object, token-endpoint.ts GRANTS) */
export const handler: GrantHandler = async (deps, client, params) => {
  const code = params.code!;
  const verifier = params.code_verifier;
  if (verifier !== undefined && !isWellFormedVerifier(verifier)) {
    throw invalidRequest('code_verifier must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~.');
  }
  const check = (row: StoredCode): CodeProblem | undefined => {
    if (row.redirect_uri !== params.redirect_uri) return 'wrong_redirect_uri';
    if (row.code_challenge) {
      if (verifier === undefined) return 'verifier_missing';
      if (!verifierMatches(verifier, row.code_challenge)) return 'verifier_mismatch';
    } else if (verifier !== undefined) {
      return 'verifier_unexpected';
    }
    return registrationProblem(client, row);
  };
  const result = await redeemAuthorisationCode(deps.db, code, deps.now(), client.id, check);
  if ('problem' in result) throw invalidGrant(PROBLEMS[result.problem]);
  return result.tokens;
};

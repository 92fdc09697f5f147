/**
 * Checking an authorisation request (RFC 6749 section 4.1.1), as small named steps, the same for
 * the GET that shows the consent page and the POST that carries the person's decision:
 *
 * 1. checkClient, checkRedirectUri: an unknown client or a redirect_uri that is not registered
 *    exactly shows an error page and never redirects (section 4.1.2.1's first paragraph).
 * 2. checkSingleValues, checkResponseType, checkScope, checkPkce: every other problem is sent back
 *    to the redirect_uri with error, error_description and state.
 */
import type { Deps } from '../deps';
import { findClientByClientId, isRegisteredRedirectUri, type OAuthClient } from '../domain/apps-and-grants/clients';
import { parseScopes, scopesBeyond } from '../domain/apps-and-grants/scopes';
import { authorizeErrorUrl, type AuthorizeErrorCode } from './oauth-error';
import { listWords, readParams, type RawParams } from './params';
import { challengeProblem } from './pkce';

export const AUTHORIZE_PARAMS = ['response_type', 'client_id', 'redirect_uri', 'scope', 'state', 'code_challenge', 'code_challenge_method'] as const;

/** A request that passed every check. */
export interface AuthorizationRequest {
  client: OAuthClient;
  redirectUri: string;
  scopes: string[];
  /** The scope parameter as sent (carried through the consent form). */
  scopeParam: string;
  state: string | undefined;
  codeChallenge: string | undefined;
}

export type CheckedRequest = { valid: AuthorizationRequest } | { errorPage: string } | { redirect: string };

class ErrorPage {
  constructor(readonly message: string) {}
}

class ErrorRedirect {
  constructor(
    readonly error: AuthorizeErrorCode,
    readonly description: string,
  ) {}
}

type Params = Record<string, string | undefined>;

async function checkClient(db: Deps['db'], params: Params, malformed: string[]): Promise<OAuthClient> {
  if (malformed.includes('client_id')) throw new ErrorPage('The client_id parameter was sent more than once.');
  if (!params.client_id) throw new ErrorPage('The client_id parameter is missing: the application sent you here with an incomplete link.');
  const client = await findClientByClientId(db, params.client_id);
  if (!client || client.builtin) throw new ErrorPage(`There is no application with the client ID ${params.client_id}.`);
  return client;
}

function checkRedirectUri(client: OAuthClient, params: Params, malformed: string[]): string {
  if (malformed.includes('redirect_uri')) throw new ErrorPage('The redirect_uri parameter was sent more than once.');
  const uri = params.redirect_uri;
  if (!uri) throw new ErrorPage(`The redirect_uri parameter is missing: ${client.name} must say where to send you back.`);
  if (!isRegisteredRedirectUri(client.redirect_uris, uri)) throw new ErrorPage(`The redirect URI ${uri} is not registered for ${client.name}.`);
  return uri;
}

function checkSingleValues(malformed: string[]): void {
  if (malformed.length > 0) {
    throw new ErrorRedirect(
      'invalid_request',
      `Parameters must not be repeated: ${listWords(malformed)} ${malformed.length > 1 ? 'were' : 'was'} sent more than once.`,
    );
  }
}

function checkResponseType(params: Params): void {
  if (!params.response_type) throw new ErrorRedirect('invalid_request', 'Missing parameter: response_type (send response_type=code).');
  if (params.response_type !== 'code') {
    throw new ErrorRedirect('unsupported_response_type', `Unsupported response_type "${params.response_type}": only code is supported.`);
  }
}

function checkScope(client: OAuthClient, params: Params): string[] {
  const { scopes, unknown } = parseScopes(params.scope ?? '');
  if (unknown.length > 0) throw new ErrorRedirect('invalid_scope', `Unknown scope${unknown.length > 1 ? 's' : ''}: ${listWords(unknown)}.`);
  if (scopes.length === 0) throw new ErrorRedirect('invalid_scope', 'No scope was asked for: send scope with one or more scope names.');
  const beyond = scopesBeyond(scopes, client.allowed_scopes);
  if (beyond.length > 0) {
    const shown = beyond.length > 5 ? `${beyond.slice(0, 5).join(', ')} and ${beyond.length - 5} more` : listWords(beyond);
    throw new ErrorRedirect('invalid_scope', `This application is not registered for ${shown}.`);
  }
  return scopes;
}

function checkPkce(client: OAuthClient, params: Params): void {
  const problem = challengeProblem({ challenge: params.code_challenge, method: params.code_challenge_method, publicClient: !client.confidential });
  if (problem) throw new ErrorRedirect('invalid_request', problem);
}

/** Runs every check on the parameters of a query or a consent form. */
export async function checkAuthorizationRequest(db: Deps['db'], raw: RawParams | undefined): Promise<CheckedRequest> {
  const { values: params, malformed } = readParams(raw, AUTHORIZE_PARAMS);
  let client: OAuthClient;
  let redirectUri: string;
  try {
    client = await checkClient(db, params, malformed);
    redirectUri = checkRedirectUri(client, params, malformed);
  } catch (problem) {
    if (problem instanceof ErrorPage) return { errorPage: problem.message };
    throw problem;
  }
  const state = malformed.includes('state') ? undefined : params.state;
  try {
    checkSingleValues(malformed);
    checkResponseType(params);
    const scopes = checkScope(client, params);
    checkPkce(client, params);
    return { valid: { client, redirectUri, scopes, scopeParam: params.scope!, state, codeChallenge: params.code_challenge } };
  } catch (problem) {
    if (problem instanceof ErrorRedirect) return { redirect: authorizeErrorUrl(redirectUri, problem.error, problem.description, state) };
    throw problem;
  }
}

/** The authorisation page URL for these parameters (the way back after logging in). */
export function authorizationPageUrl(raw: RawParams | undefined): string {
  const { values } = readParams(raw, AUTHORIZE_PARAMS);
  const query = new URLSearchParams(Object.entries(values).filter((entry): entry is [string, string] => entry[1] !== undefined));
  return `/oauth2/authorize?${query.toString()}`;
}

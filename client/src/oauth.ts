/**
 * Typed client of Daybook's OAuth2 endpoints, on the types generated from the OAuth document: the
 * authorisation URL (with PKCE), the code exchange and the refresh at the token endpoint
 * (`POST /oauth2/access_token`, form bodies as RFC 6749 asks), token revocation (RFC 7009,
 * `POST /oauth2/revoke`) and the authorisation server's metadata (RFC 8414,
 * `GET /.well-known/oauth-authorization-server`). Errors come back as the endpoint's
 * `{error, error_description}` body.
 */
import createClient from 'openapi-fetch';
import type { components, paths } from './generated/oauth';
import { FORM_HEADERS, formBody, transportFetch, trimBaseUrl, type TransportOptions } from './transport';
import { readOutcome, toResult, type ApiResult } from './result';

export type TokenResponse = components['schemas']['TokenResponse'];
/** The RFC 6749 error body of a refused token request (400, 401). */
export type OAuthError = components['schemas']['OAuthError'];
/** What the endpoint answers when the request never reached a grant: too large, rate limited, down. */
export type OAuthEndpointError = OAuthError | components['schemas']['Error'];
export type TokenResult = ApiResult<TokenResponse, OAuthEndpointError>;
/** A revocation answers 200 without a body, also for a token that was unknown or already revoked. */
export type RevocationResult = ApiResult<void, OAuthEndpointError>;

/** RFC 8414 authorisation server metadata, as the OAuth document describes it. */
export type AuthorizationServerMetadata = components['schemas']['AuthorizationServerMetadata'];

export interface OAuthClientOptions extends TransportOptions {
  clientId: string;
  /** Confidential clients only; public clients prove themselves with PKCE. */
  clientSecret?: string;
}

export interface AuthorizeUrlInput {
  redirectUri: string;
  /** v2 scope names. */
  scopes: string[];
  /** Check it when the person comes back (`createState()` makes one). */
  state?: string;
  /** PKCE S256 challenge (`createPkce().codeChallenge`; required for public clients). */
  codeChallenge?: string;
}

export interface OAuthClient {
  /** Where to send the person's browser to ask for consent (step 1 of the flow). */
  authorizeUrl(input: AuthorizeUrlInput): string;
  /** Exchanges the `code` the redirect brought back for tokens, with the PKCE verifier (step 4). */
  exchangeCode(input: { code: string; redirectUri: string; codeVerifier?: string }): Promise<TokenResult>;
  /** A new access and refresh token pair; the previous pair stops working. `scope` may narrow. */
  refresh(refreshToken: string, options?: { scope?: string }): Promise<TokenResult>;
  /** Revokes an access or a refresh token (revoking a refresh token ends its grant). */
  revoke(token: string, options?: { tokenTypeHint?: 'access_token' | 'refresh_token' }): Promise<RevocationResult>;
  /** The authorisation server's metadata: its endpoints, scopes and supported methods. */
  discover(): Promise<ApiResult<AuthorizationServerMetadata, OAuthEndpointError>>;
}

/** A failure without a documented body (a proxy's page) reads as the API's error body. */
function fallbackError(status: number, text: string): OAuthEndpointError {
  return { detail: text || `The OAuth2 endpoint answered HTTP ${status} without an error body.` };
}

export function createOAuthClient(options: OAuthClientOptions): OAuthClient {
  const baseUrl = trimBaseUrl(options.baseUrl);
  const send = transportFetch(options);
  const api = createClient<paths>({ baseUrl, fetch: send });
  const credentials = { client_id: options.clientId, ...(options.clientSecret ? { client_secret: options.clientSecret } : {}) };

  async function token(body: components['schemas']['TokenRequest']): Promise<TokenResult> {
    return toResult(await api.POST('/oauth2/access_token', { body, bodySerializer: formBody, headers: FORM_HEADERS }), fallbackError);
  }

  return {
    authorizeUrl(input) {
      const query = new URLSearchParams({ response_type: 'code', client_id: options.clientId, redirect_uri: input.redirectUri, scope: input.scopes.join(' ') });
      if (input.state !== undefined) query.set('state', input.state);
      if (input.codeChallenge) {
        query.set('code_challenge', input.codeChallenge);
        query.set('code_challenge_method', 'S256');
      }
      return `${baseUrl}/oauth2/authorize?${query.toString()}`;
    },
    exchangeCode(input) {
      return token({
        grant_type: 'authorization_code',
        code: input.code,
        redirect_uri: input.redirectUri,
        ...credentials,
        ...(input.codeVerifier ? { code_verifier: input.codeVerifier } : {}),
      });
    },
    refresh(refreshToken, refreshOptions = {}) {
      return token({
        grant_type: 'refresh_token',
        refresh_token: refreshToken,
        ...credentials,
        ...(refreshOptions.scope ? { scope: refreshOptions.scope } : {}),
      });
    },
    async revoke(revoked, revokeOptions = {}) {
      // The client authenticates as at the token endpoint (client_id, and client_secret if it has one).
      const body = formBody({ token: revoked, token_type_hint: revokeOptions.tokenTypeHint, ...credentials });
      const response = await send(new Request(`${baseUrl}/oauth2/revoke`, { method: 'POST', headers: FORM_HEADERS, body }));
      return toResult(await readOutcome<void, OAuthEndpointError>(response), fallbackError);
    },
    async discover() {
      const response = await send(new Request(`${baseUrl}/.well-known/oauth-authorization-server`, { headers: { Accept: 'application/json' } }));
      return toResult(await readOutcome<AuthorizationServerMetadata, OAuthEndpointError>(response), fallbackError);
    },
  };
}

/** Tells an RFC 6749 error (`invalid_grant`…) from the API's `{detail}` body. */
export function isOAuthError(error: OAuthEndpointError): error is OAuthError {
  return 'error' in error;
}

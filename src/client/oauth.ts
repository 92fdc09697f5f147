/**
 * Typed client of the OAuth2 token endpoint (`POST /oauth2/access_token`), on the types generated
 * from the OAuth document: the authorisation code exchange and the refresh, sent as form bodies as
 * RFC 6749 asks. Errors come back as the endpoint's `{error, error_description}` body.
 */
import createClient from 'openapi-fetch';
import type { components, paths } from '../../generated/types/oauth';
import { FORM_HEADERS, formBody, trimBaseUrl } from './transport';
import { toResult, type ApiResult } from './result';

export type TokenResponse = components['schemas']['TokenResponse'];
/** The RFC 6749 error body of a refused token request (400, 401). */
export type OAuthError = components['schemas']['OAuthError'];
/** What the endpoint answers when the request never reached a grant: too large, rate limited, down. */
export type OAuthEndpointError = OAuthError | components['schemas']['Error'];
export type TokenResult = ApiResult<TokenResponse, OAuthEndpointError>;

export interface OAuthClientOptions {
  /** The service root, e.g. `https://daybook.example.org`. */
  baseUrl: string;
  clientId: string;
  /** Confidential clients only; public clients prove themselves with PKCE. */
  clientSecret?: string;
  fetch?: typeof globalThis.fetch;
}

export interface AuthorizeUrlInput {
  redirectUri: string;
  /** v2 scope names. */
  scopes: string[];
  state?: string;
  /** PKCE S256 challenge (required for public clients). */
  codeChallenge?: string;
}

export interface OAuthClient {
  /** Where to send the person's browser to ask for consent (step 1 of the flow). */
  authorizeUrl(input: AuthorizeUrlInput): string;
  /** Exchanges the `code` the redirect brought back for tokens (step 4). */
  exchangeCode(input: { code: string; redirectUri: string; codeVerifier?: string }): Promise<TokenResult>;
  /** A new access and refresh token pair; the previous pair stops working. `scope` may narrow. */
  refresh(refreshToken: string, options?: { scope?: string }): Promise<TokenResult>;
}

/** A token endpoint failure without a documented body (a proxy's page) reads as the API's error body. */
function fallbackError(status: number, text: string): OAuthEndpointError {
  return { detail: text || `The token endpoint answered HTTP ${status} without an error body.` };
}

export function createOAuthClient(options: OAuthClientOptions): OAuthClient {
  const baseUrl = trimBaseUrl(options.baseUrl);
  const api = createClient<paths>({ baseUrl, fetch: options.fetch });
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
  };
}

/** Tells an RFC 6749 error (`invalid_grant`…) from the API's `{detail}` body. */
export function isOAuthError(error: OAuthEndpointError): error is OAuthError {
  return 'error' in error;
}

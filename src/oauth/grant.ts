/** The shape every grant module exports (node-oidc-provider's layout): its name, its parameters, its handler. */
import type { Deps } from '../deps';
import type { OAuthClient } from '../domain/apps-and-grants/clients';
import type { TokenResponse } from '../domain/apps-and-grants/tokens';

export interface GrantParameters {
  /** Missing ones are `invalid_request`. */
  required: readonly string[];
  optional: readonly string[];
}

/** Runs the grant for an authenticated client; throws OAuthError. `params` hold single string values only. */
export type GrantHandler = (deps: Deps, client: OAuthClient, params: Record<string, string | undefined>) => Promise<TokenResponse>;

export interface GrantModule {
  grantType: string;
  parameters: GrantParameters;
  handler: GrantHandler;
}

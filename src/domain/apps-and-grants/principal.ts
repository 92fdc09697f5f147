import type { AccountProfile } from '../identity/users';

/** Who is calling: resolved once per request by the auth middleware, read by handlers from the context. */
export type PrincipalKind = 'oauth' | 'simple' | 'session';

export interface Principal {
  kind: PrincipalKind;
  userId: number;
  username: string;
  /** The token's scopes (v1 scopes expanded); simple tokens and sessions carry every read scope. */
  scopes: Set<string>;
  /** For OAuth tokens: the client (service) the token was issued to. */
  clientPk?: number;
  clientId?: string;
  /** For OAuth tokens: the token row, for revocation and last-use bookkeeping. */
  tokenId?: number;
  /** The key the rate limit counts under: the person's connection (domain/apps-and-grants/quota.ts). */
  rateLimitKey: string;
  /**
   * The person's profile time zone, read with the credentials (the same join), so that "today"
   * needs no query of its own; absent where a principal is made without it.
   */
  timezone?: string;
  /** The person's profile, read with the credentials (the same join); absent where a principal is made without it. */
  profile?: AccountProfile;
}

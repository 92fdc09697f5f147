/**
 * OAuth2 access and refresh tokens: issued per grant, stored only as hashes, valid 365 days.
 * The OAuth flows (issue: authorisation server) build on `issueTokens`.
 */
import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { hashCredential, newSecret } from './credentials';
import { expandScopes } from './scopes';
import type { Principal } from './principal';

/** Access and refresh tokens last a year (the spec: "about one year"). */
export const TOKEN_LIFETIME_SECONDS = 365 * 24 * 60 * 60;

export interface TokenResponse {
  access_token: string;
  refresh_token: string;
  token_type: 'Bearer';
  scope: string;
  expires_in: number;
}

/** Issues a new access + refresh token pair for a user and a client. */
export async function issueTokens(
  db: Knex,
  input: { userId: number; clientPk: number; scopes: string[]; grantId?: string; now: Date },
): Promise<TokenResponse> {
  const accessToken = newSecret();
  const refreshToken = newSecret();
  const expiresAt = new Date(input.now.getTime() + TOKEN_LIFETIME_SECONDS * 1000);
  await db('tokens').insert({
    user_id: input.userId,
    client_pk: input.clientPk,
    grant_id: input.grantId ?? crypto.randomUUID(),
    access_hash: hashCredential(accessToken),
    refresh_hash: hashCredential(refreshToken),
    scopes: input.scopes,
    access_expires_at: expiresAt,
    refresh_expires_at: expiresAt,
    created_at: input.now,
  });
  return {
    access_token: accessToken,
    refresh_token: refreshToken,
    token_type: 'Bearer',
    scope: input.scopes.join(' '),
    expires_in: TOKEN_LIFETIME_SECONDS,
  };
}

export type TokenCheck = { principal: Principal } | { problem: 'unknown' | 'expired' | 'revoked' };

/** Resolves a Bearer token to its principal, or says why it cannot be used. */
export async function authenticateAccessToken(db: Knex, token: string, now: Date): Promise<TokenCheck> {
  const row = await db('tokens as t')
    .join('users as u', 'u.id', 't.user_id')
    .join('oauth_clients as c', 'c.id', 't.client_pk')
    .where('t.access_hash', hashCredential(token))
    .first(
      't.id', 't.user_id', 't.scopes', 't.access_expires_at', 't.revoked_at', 't.replaced_at',
      'u.username', 'c.id as client_pk', 'c.client_id',
    );
  if (!row) return { problem: 'unknown' };
  if (row.revoked_at || row.replaced_at) return { problem: 'revoked' };
  if (new Date(row.access_expires_at).getTime() <= now.getTime()) return { problem: 'expired' };
  return {
    principal: {
      kind: 'oauth',
      userId: row.user_id,
      username: row.username,
      scopes: expandScopes(row.scopes),
      clientPk: row.client_pk,
      clientId: row.client_id,
      tokenId: row.id,
      rateLimitKey: `token:${row.id}`,
    },
  };
}

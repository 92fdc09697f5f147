/**
 * OAuth2 access and refresh tokens: issued per grant, stored only as hashes, valid 365 days.
 * One row holds an access token and its refresh token; every row descended from one
 * authorisation shares its grant_id, so a grant can be revoked as a whole.
 */
import crypto from 'node:crypto';
import type { Knex } from 'knex';
import type { components } from '../../../generated/types/oauth';
import { raw, rows, sql, type Sql } from '../../db/sql';
import { hashCredential, newSecret } from '../identity/credentials';
import { expandScopes, formatScopes } from './scopes';
import type { Principal } from './principal';
import { PROFILE_COLUMNS, profileOf, type AccountProfile } from '../identity/users';
import type { LookupOptions, RememberedCredential } from './recent-credentials';
import { COUNT_COLUMNS, countedCte, countOf, quotaKey, quotaKeyOf, type QuotaCount } from './quota';

/** Access and refresh tokens last a year (docs/decisions.md, "Token lifetimes": 365 days). */
export const TOKEN_LIFETIME_SECONDS = 365 * 24 * 60 * 60;

/** The token endpoint's answer (the OAuth2 document's TokenResponse). */
export type TokenResponse = components['schemas']['TokenResponse'];

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
    scope: formatScopes(input.scopes),
    expires_in: TOKEN_LIFETIME_SECONDS,
  };
}

export type TokenCheck = { principal: Principal } | { problem: 'unknown' | 'expired' | 'revoked' };

/** Resolves a Bearer token to its principal, or says why it cannot be used. */
export async function authenticateAccessToken(db: Knex, token: string, now: Date): Promise<TokenCheck> {
  return (await authenticateAccessTokenAndCount(db, token, now)).check;
}

const TOKEN_COLUMNS = raw(`t.id, t.user_id, t.scopes, t.access_expires_at, t.revoked_at, t.replaced_at, t.last_used_at,
       t.xmin::text as token_version, u.xmin::text as user_version,
       ${PROFILE_COLUMNS.map((column) => `u.${column}`).join(', ')}, c.id as client_pk, c.client_id`);

/** The token of an access token's hash, with its person and app. */
const tokenByHash = (hash: string) =>
  sql`select ${TOKEN_COLUMNS} from tokens t join users u on u.id = t.user_id join oauth_clients c on c.id = t.client_pk where t.access_hash = ${hash} limit 1`;

/**
 * The token row `t` may be used as an access token at `now`: not revoked, not replaced by a
 * refresh, its access token not expired. (Whether it still connects its app: `liveToken`.)
 */
export function usableAccessToken(t: Sql, now: Date): Sql {
  return sql`${t}.revoked_at is null and ${t}.replaced_at is null and ${t}.access_expires_at > ${now}::timestamptz`;
}

interface TokenRow extends AccountProfile {
  id: number;
  user_id: number;
  scopes: string[];
  access_expires_at: Date;
  revoked_at: Date | null;
  replaced_at: Date | null;
  last_used_at: Date | null;
  client_pk: number;
  client_id: string;
  token_version: string;
  user_version: string;
  quota_points?: number | null;
  quota_expire?: number | null;
}

/**
 * The token lookup and, when `quota` is given and the token is live, the rate-limit count of the
 * person's connection with its app, in ONE statement (one round trip before the request's data).
 * The count is an atomic upsert on the shared table, so it is exact across requests and instances;
 * a window that has ended starts again at 1. An unusable token counts nothing here.
 *
 * With `recent`, a token seen in the last minute is only rechecked (its rows unchanged) and counted,
 * in one narrower statement (recent-credentials.ts); a token whose rows changed is looked up again.
 * With `options.use` 'defer', not even that: the remembered credential comes back unchecked (`remembered`),
 * for the request's first statement to recheck and count (CredentialsRecheck, credential-recheck.ts).
 */
export async function authenticateAccessTokenAndCount(
  db: Knex,
  token: string,
  now: Date,
  options: LookupOptions = {},
): Promise<{ check: TokenCheck; count?: QuotaCount; remembered?: RememberedCredential }> {
  const { quota, recent } = options;
  const hash = hashCredential(token);
  const recalled = await recent?.recall(db, 'oauth', hash, now, options);
  if (recalled) return { check: { principal: recalled.principal }, count: recalled.count, remembered: recalled.remembered };
  const [row] = await rows<TokenRow>(
    db,
    quota
      ? sql`with t as (${tokenByHash(hash)}), ${countedCte(raw('t'), quotaKeyOf(raw('t.user_id'), raw('t.client_pk')), usableAccessToken(raw('t'), now), quota)}
  select t.*, ${COUNT_COLUMNS} from t left join counted on true`
      : tokenByHash(hash),
  );
  if (!row) return { check: { problem: 'unknown' } };
  if (row.revoked_at || row.replaced_at) return { check: { problem: 'revoked' } };
  const expiresAtMs = new Date(row.access_expires_at).getTime();
  if (expiresAtMs <= now.getTime()) return { check: { problem: 'expired' } };
  const principal: Principal = {
    kind: 'oauth',
    userId: row.user_id,
    username: row.username,
    scopes: expandScopes(row.scopes),
    clientPk: row.client_pk,
    clientId: row.client_id,
    tokenId: row.id,
    rateLimitKey: quotaKey(row.user_id, row.client_pk),
    timezone: row.timezone,
    profile: profileOf(row),
  };
  // The row just read says whether the minute's write is due, so most requests skip the statement.
  // That write makes a new row version, so the token is remembered only when it was not written.
  if (lastUseIsStale(row.last_used_at, now)) await recordTokenUse(db, row.id, now);
  else recent?.remember(hash, { principal, tokenVersion: row.token_version, userVersion: row.user_version, expiresAtMs, readAtMs: now.getTime() });
  return { check: { principal }, count: countOf(row) };
}

/** "Last used" is kept to the minute: at most one write per token per minute, however busy it is. */
const LAST_USE_RESOLUTION_MS = 60_000;

function lastUseIsStale(lastUsedAt: Date | string | null, now: Date): boolean {
  return lastUsedAt === null || new Date(lastUsedAt).getTime() < now.getTime() - LAST_USE_RESOLUTION_MS;
}

/** The same condition again in SQL, so that concurrent requests of one token still write at most once. */
async function recordTokenUse(db: Knex, tokenId: number, now: Date): Promise<void> {
  await db('tokens')
    .where({ id: tokenId })
    .where((q) => q.whereNull('last_used_at').orWhere('last_used_at', '<', new Date(now.getTime() - LAST_USE_RESOLUTION_MS)))
    .update({ last_used_at: now });
}

/** Revokes every token of a grant (code reuse, refresh token replay), forgetting its sealed successor (grants.ts). Returns how many were live. */
export async function revokeGrant(db: Knex, grantId: string, now: Date): Promise<number> {
  return db('tokens').where({ grant_id: grantId }).whereNull('revoked_at').update({ revoked_at: now, successor_sealed: null });
}

/** Revokes every token a client holds for a person (the person disconnected the app), forgetting sealed successors. */
export async function revokeClientTokensOfUser(db: Knex, userId: number, clientPk: number, now: Date): Promise<number> {
  return db('tokens').where({ user_id: userId, client_pk: clientPk }).whereNull('revoked_at').update({ revoked_at: now, successor_sealed: null });
}

/**
 * A live token: the token row `t` still connects its client to its person at `now` (the service's
 * clock): not revoked, not replaced by a refresh, and its refresh token (or access token) not
 * expired. A person's connected apps, and the services able to handle an attribute, are the ones
 * holding one.
 */
export function liveToken(t: Sql, now: Date): Sql {
  return sql`${t}.revoked_at is null and ${t}.replaced_at is null and coalesce(${t}.refresh_expires_at, ${t}.access_expires_at) > ${now}::timestamptz`;
}

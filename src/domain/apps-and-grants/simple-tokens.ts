/**
 * Simple tokens as credentials: the person they belong to, with every read scope (the spec's
 * simple tokens read, never write), counted under the person (quota.ts).
 */
import type { Knex } from 'knex';
import type { Principal } from './principal';
import { quotaKey, type QuotaCount, type QuotaWindow } from './quota';
import { recheckAndCount, type RecentCredentials, type RememberedCredential, type RememberedUse } from './recent-credentials';
import { READ_SCOPES } from './scopes';
import { hashCredential } from '../identity/credentials';
import { findUserBySimpleTokenAndCount, profileOf } from '../identity/users';

/**
 * The principal of a simple token (undefined when no account has it) and, with `quota`, the
 * request's count: one statement; a token seen in the last minute is only rechecked and counted
 * (recent-credentials.ts); with `use` 'defer', the remembered one comes back unchecked (`remembered`), for
 * the request's read to recheck and count (DeferredCheck).
 */
export async function authenticateSimpleTokenAndCount(
  db: Knex,
  token: string,
  now: Date,
  quota?: QuotaWindow,
  recent?: RecentCredentials,
  use: RememberedUse = 'recheck',
): Promise<{ principal?: Principal; count?: QuotaCount; remembered?: RememberedCredential }> {
  const hash = hashCredential(token);
  const seen = use === 'ignore' ? undefined : recent?.find('simple', hash, now.getTime());
  if (seen && use === 'defer') return { principal: seen.principal, remembered: seen };
  if (seen) {
    const rechecked = await recheckAndCount(db, seen, quota);
    if (rechecked) return { principal: seen.principal, count: rechecked.count };
    recent!.forget('simple', hash);
  }
  const { user, userVersion, count } = await findUserBySimpleTokenAndCount(db, hash, quota);
  if (!user || userVersion === undefined) return {};
  const principal: Principal = {
    kind: 'simple',
    userId: user.id,
    username: user.username,
    scopes: new Set(READ_SCOPES),
    rateLimitKey: quotaKey(user.id),
    timezone: user.timezone,
    profile: profileOf(user),
  };
  recent?.remember(hash, { principal, userVersion, expiresAtMs: Number.POSITIVE_INFINITY, readAtMs: now.getTime() });
  return { principal, count };
}

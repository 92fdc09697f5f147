/**
 * Simple tokens as credentials: the person they belong to, with every read scope (the OpenAPI
 * documents' simple tokens read, never write; docs/decisions.md, "Writes need an OAuth2 client"),
 * counted under the person (quota.ts).
 */
import type { Knex } from 'knex';
import type { Principal } from './principal';
import { quotaKey, type QuotaCount } from './quota';
import type { LookupOptions, RememberedCredential } from './recent-credentials';
import { READ_SCOPES } from './scopes';
import { hashCredential } from '../identity/credentials';
import { findUserBySimpleTokenAndCount, profileOf } from '../identity/users';

/**
 * The principal of a simple token (undefined when no account has it) and, with `quota`, the
 * request's count: one statement; a token seen in the last minute is only rechecked and counted
 * (recent-credentials.ts); with `options.use` 'defer', the remembered one comes back unchecked (`remembered`), for
 * the request's first statement to recheck and count (CredentialsRecheck, credential-recheck.ts).
 */
export async function authenticateSimpleTokenAndCount(
  db: Knex,
  token: string,
  now: Date,
  options: LookupOptions = {},
): Promise<{ principal?: Principal; count?: QuotaCount; remembered?: RememberedCredential }> {
  const { quota, recent } = options;
  const hash = hashCredential(token);
  const recalled = await recent?.recall(db, 'simple', hash, now, options);
  if (recalled) return recalled;
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

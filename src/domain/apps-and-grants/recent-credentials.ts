/**
 * Credentials seen recently (docs/request-path.md, "Credentials seen recently"): the principal an
 * OAuth access token or a simple token resolved to, kept in the process by the credential's hash,
 * so that its next request needs neither the lookup's joins nor its wide row.
 *
 * A remembered principal is never trusted on its own. It carries the row versions it was read from
 * (PostgreSQL's `xmin` of the token row and of the person's row); the request's own statement
 * rechecks that both rows are still those versions (`recheckCte`), in the same round trip as the
 * rate-limit count. Any change to either row (a revocation, a refresh replacing the token, a
 * deletion, a profile edit, a reset simple token) makes a new row version, so the recheck fails, the
 * entry is dropped and the credential is looked up again: a revocation on any instance stops the
 * credential at its next request, as without the cache, and nothing needs to be notified.
 */
import type { Knex } from 'knex';
import { raw, rows, sql, type Sql } from '../../db/sql';
import type { Principal } from './principal';
import { COUNT_COLUMNS, countedCte, countOf, quotaKeyOf, type QuotaCount, type QuotaWindow } from './quota';

export interface RememberedCredential {
  principal: Principal;
  /** `xmin` of the token row (OAuth access tokens only), as text. */
  tokenVersion?: string;
  /** `xmin` of the person's row, as text. */
  userVersion: string;
  /** When the credential expires by itself (epoch ms); a simple token does not. */
  expiresAtMs: number;
  /** When the rows were read (epoch ms). */
  readAtMs: number;
}

/**
 * What a lookup does with a remembered credential: recheck it (and count) in a statement of its
 * own; hand it back unchecked for the request's first statement to recheck (CredentialsRecheck,
 * credential-recheck.ts); or ignore it and read the credential again in full (after a recheck
 * found its rows changed).
 */
export type RememberedUse = 'recheck' | 'defer' | 'ignore';

/**
 * How long a remembered credential is used before it is read again in full. The full lookup also
 * keeps the token's "last used" to the minute (tokens.ts), so the two go together.
 */
const MAX_AGE_MS = 60_000;

/**
 * At most this many credentials are remembered; the one read longest ago goes first (each is read
 * again in full within MAX_AGE_MS of use anyway). Not the one unused longest: keeping that order
 * meant taking the entry out of the Map and putting it back on every request, and a Map that
 * churns per request feeds the garbage collector's worst case (db/sql.ts, AnswerWatch;
 * docs/request-path.md, "Issue 35, seventh stop").
 */
const CAPACITY = 10_000;

export class RecentCredentials {
  private readonly entries = new Map<string, RememberedCredential>();

  /**
   * The credential of this kind and hash if it was seen less than a minute ago and has not expired
   * by `nowMs`. The kind is part of the key: a simple token sent as Bearer is not an access token.
   */
  find(kind: Principal['kind'], hash: string, nowMs: number): RememberedCredential | undefined {
    const key = `${kind}:${hash}`;
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (nowMs >= entry.expiresAtMs || nowMs - entry.readAtMs >= MAX_AGE_MS || nowMs < entry.readAtMs) {
      this.entries.delete(key);
      return undefined;
    }
    return entry;
  }

  /** Remembers a credential under its principal's kind and its hash (Map order, insertion order, is then read order). */
  remember(hash: string, entry: RememberedCredential): void {
    const key = `${entry.principal.kind}:${hash}`;
    this.entries.delete(key);
    this.entries.set(key, entry);
    if (this.entries.size > CAPACITY) this.entries.delete(this.entries.keys().next().value as string);
  }

  forget(kind: Principal['kind'], hash: string): void {
    this.entries.delete(`${kind}:${hash}`);
  }

  /**
   * What a lookup makes of the credential if it is remembered (`options.use`): it unchecked
   * ('defer'), or rechecked and counted ('recheck'); undefined when it must be looked up in full (not
   * remembered, rows changed, or 'ignore').
   */
  async recall(db: Knex, kind: Principal['kind'], hash: string, now: Date, options: LookupOptions): Promise<Recalled | undefined> {
    const use = options.use ?? 'recheck';
    const seen = use === 'ignore' ? undefined : this.find(kind, hash, now.getTime());
    if (!seen) return undefined;
    if (use === 'defer') return { principal: seen.principal, remembered: seen };
    const rechecked = await recheckAndCount(db, seen, options.quota);
    if (rechecked) return { principal: seen.principal, count: rechecked.count };
    this.forget(kind, hash);
    return undefined;
  }
}

/** How a credentials' lookup counts the request and uses what was seen recently. */
export interface LookupOptions {
  /** Count the request against the rate limit in the lookup's statement. */
  quota?: QuotaWindow;
  recent?: RecentCredentials;
  use?: RememberedUse;
}

/** A remembered credential's principal, with the request's count, or unchecked (`remembered`) for its first statement to recheck. */
interface Recalled {
  principal: Principal;
  count?: QuotaCount;
  remembered?: RememberedCredential;
}

/** An OAuth access token (its token row is rechecked too), else a simple token. */
const isAppToken = (entry: RememberedCredential) => entry.tokenVersion !== undefined && entry.principal.tokenId !== undefined;

/**
 * The CTE `checked`: one row (`user_id`, and `client_pk` for an app's token) when the remembered
 * rows are still the versions read, none otherwise.
 */
export function checkedCte(entry: RememberedCredential): Sql {
  const principal = entry.principal;
  return isAppToken(entry)
    ? sql`checked as (
    select t.user_id, t.client_pk from tokens t join users u on u.id = t.user_id
     where t.id = ${principal.tokenId} and t.xmin = ${entry.tokenVersion}::text::xid and u.xmin = ${entry.userVersion}::text::xid
  )`
    : sql`checked as (select u.id as user_id from users u where u.id = ${principal.userId} and u.xmin = ${entry.userVersion}::text::xid)`;
}

/** The CTE `counted` after `checked`: the request counted under its person's connection (quota.ts) when `checked` has its row. */
export function countedAfterCheck(entry: RememberedCredential, quota: QuotaWindow): Sql {
  const key = isAppToken(entry) ? quotaKeyOf(raw('checked.user_id'), raw('checked.client_pk')) : quotaKeyOf(raw('checked.user_id'));
  return countedCte(raw('checked'), key, sql`true`, quota);
}

type RecheckRow = { quota_points?: number | null; quota_expire?: number | null };

/**
 * Rechecks a remembered credential and, when `quota` is given and it is unchanged, counts the
 * request: one statement, one round trip, a row of two columns. Undefined when the rows changed
 * (the caller forgets the entry and looks the credential up again).
 */
async function recheckAndCount(db: Knex, entry: RememberedCredential, quota?: QuotaWindow): Promise<{ count?: QuotaCount } | undefined> {
  const statement = quota
    ? sql`with ${checkedCte(entry)}, ${countedAfterCheck(entry, quota)} select ${COUNT_COLUMNS} from checked left join counted on true`
    : sql`with ${checkedCte(entry)} select true as unchanged from checked`;
  const row = (await rows<RecheckRow>(db, statement))[0];
  return row ? { count: countOf(row) } : undefined;
}

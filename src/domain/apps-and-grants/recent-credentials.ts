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
import { hotQuery, PREPARED } from '../../db/knex';
import type { Principal } from './principal';
import { countedBindings, countedCte, countOf, quotaKeySql, type QuotaCount, type QuotaWindow } from './quota';

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
 * own; hand it back unchecked for the request's read to recheck (DeferredCheck); or ignore it and
 * read the credential again in full (after a recheck found its rows changed).
 */
export type RememberedUse = 'recheck' | 'defer' | 'ignore';

/**
 * How long a remembered credential is used before it is read again in full. The full lookup also
 * keeps the token's "last used" to the minute (tokens.ts), so the two go together.
 */
const MAX_AGE_MS = 60_000;

/** At most this many credentials are remembered; the one unused longest goes first. */
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
    // Map order is insertion order: moving the entry to the end keeps the least recently used first.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry;
  }

  /** Remembers a credential under its principal's kind and its hash. */
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

/** A remembered credential's principal, with the request's count, or unchecked (`remembered`) for its read to recheck. */
interface Recalled {
  principal: Principal;
  count?: QuotaCount;
  remembered?: RememberedCredential;
}

/** The statements of one kind of credential's recheck. */
interface Recheck {
  /**
   * The CTEs `checked`, one row (`user_id`, and `client_pk` for an app's token) when the remembered
   * rows are unchanged and none otherwise, and `counted`, the request counted under the key of its
   * person's connection (quota.ts) when `checked` has its row: to put in front of a statement.
   */
  front: string;
  /** The recheck alone, and the recheck with the request's count. */
  alone: string;
  counting: string;
}

/** `cte`: the CTE `checked`; `keySql`: the rate-limit key over its columns. */
function recheck(cte: string, keySql: string): Recheck {
  const front = `${cte}, ${countedCte('checked', keySql, 'true')}`;
  return {
    front,
    alone: `with ${cte} select true as unchanged from checked`,
    counting: `with ${front}
  select true as unchanged, counted.points as quota_points, counted.expire as quota_expire from checked left join counted on true`,
  };
}

const TOKEN_RECHECK = recheck(
  `checked as (
    select t.user_id, t.client_pk from tokens t join users u on u.id = t.user_id
     where t.id = ? and t.xmin = ?::text::xid and u.xmin = ?::text::xid
  )`,
  quotaKeySql('checked.user_id', 'checked.client_pk'),
);
const SIMPLE_TOKEN_RECHECK = recheck(
  `checked as (select u.id as user_id from users u where u.id = ? and u.xmin = ?::text::xid)`,
  quotaKeySql('checked.user_id'),
);

/** The recheck of a remembered credential and its bindings. */
function recheckOf(entry: RememberedCredential): { recheck: Recheck; bindings: unknown[] } {
  const principal = entry.principal;
  return entry.tokenVersion !== undefined && principal.tokenId !== undefined
    ? { recheck: TOKEN_RECHECK, bindings: [principal.tokenId, entry.tokenVersion, entry.userVersion] }
    : { recheck: SIMPLE_TOKEN_RECHECK, bindings: [principal.userId, entry.userVersion] };
}

type RecheckRow = { unchanged: boolean; quota_points?: number | null; quota_expire?: number | null };

/**
 * Rechecks a remembered credential and, when `quota` is given and it is unchanged, counts the
 * request: one statement, one round trip, a row of three columns. Undefined when the rows changed
 * (the caller forgets the entry and looks the credential up again).
 */
export async function recheckAndCount(db: Knex, entry: RememberedCredential, quota?: QuotaWindow): Promise<{ count?: QuotaCount } | undefined> {
  const { recheck, bindings } = recheckOf(entry);
  const rows = quota
    ? await hotQuery<RecheckRow>(db, recheck.counting, [...bindings, ...countedBindings(quota)])
    : await hotQuery<RecheckRow>(db, recheck.alone, bindings);
  const row = rows[0];
  return row ? { count: countOf(row) } : undefined;
}

/** A remembered credential's rows changed since they were read: look the credential up again. */
export class CredentialsChanged extends Error {
  constructor() {
    super('The credentials changed since they were last read.');
    this.name = 'CredentialsChanged';
  }
}

/** The request's count is past the rate limit: it must change nothing (the rate limit answers 429). */
class CountPastLimit extends Error {
  constructor() {
    super('The request is past the rate limit.');
    this.name = 'CountPastLimit';
  }
}

/** The count columns a statement with the check in front answers (null: the credential's rows changed). */
export type CheckColumns = { quota_points?: number | null; quota_expire?: number | null };

/**
 * The recheck and the count of a request made with a remembered credential, left to the request's
 * own read so that the read is the request's only round trip (docs/request-path.md, "Credentials
 * seen recently"). A read takes it with `readChecked`; whatever is not taken by a read is run alone
 * by `settleAlone` (the rate-limit middleware does that after the handler).
 */
export class DeferredCheck {
  /** The request's count once the recheck ran and found the rows unchanged. */
  count?: QuotaCount;

  constructor(
    readonly entry: RememberedCredential,
    private readonly quota: QuotaWindow,
    /** The rate limit: past it, the read's data is not fetched (the request is refused with 429). */
    private readonly limit: number,
  ) {}

  /**
   * Runs a read statement with the recheck and the count in front of it, in the same statement:
   * the read's rows come back only when the credential's rows are unchanged and the count is within
   * the limit. `present` names a column that is never null in the read's own rows. Throws
   * CredentialsChanged when the rows changed (nothing was counted then), CountPastLimit past the limit.
   */
  async readChecked<R>(db: Knex, sql: string, bindings: readonly unknown[], present: string): Promise<R[]> {
    if (this.count) return hotQuery<R>(db, sql, bindings); // checked and counted by an earlier read of the request
    const front = this.front();
    const rows = await hotQuery<R & CheckColumns>(db, checkedReadSql(front.ctes, sql), [...front.bindings, ...bindings, this.limit]);
    this.take(rows[0]);
    if ((rows[0] as Record<string, unknown>)[present] === null) return [];
    // The rows keep the two count columns (not copied without them: the readers pick their fields).
    return rows;
  }

  /**
   * The CTEs `checked` and `counted` to put in front of a statement that takes the check (its
   * bindings first), for a statement of its own text (a write: verified-write.ts); then `take` its
   * count columns. Only while `count` is unset: a request is counted once.
   */
  front(): { ctes: string; bindings: unknown[] } {
    const { recheck, bindings } = recheckOf(this.entry);
    return { ctes: recheck.front, bindings: [...bindings, ...countedBindings(this.quota)] };
  }

  /** The rate limit, for a statement's gate (`counted.points <= ?`). */
  get limitBinding(): number {
    return this.limit;
  }

  /** Takes the count a statement with `front()` answered. Throws CredentialsChanged or CountPastLimit. */
  take(row: CheckColumns | undefined): void {
    const count = row ? countOf(row) : undefined;
    if (!count) throw new CredentialsChanged();
    this.count = count;
    if (count.points > this.limit) throw new CountPastLimit();
  }

  /** Before a write that did not take the check: the recheck and count alone. Throws CredentialsChanged or CountPastLimit. */
  async settleBeforeWrite(db: Knex): Promise<void> {
    const count = await this.settleAlone(db);
    if (count && count.points > this.limit) throw new CountPastLimit();
  }

  /** `readChecked` for a query built with knex, or the query as it is without a check. */
  static async read<R>(db: Knex, query: Knex.QueryBuilder, check: DeferredCheck | undefined, present: string): Promise<R[]> {
    if (!check) return (await query.options(PREPARED)) as R[];
    const { sql, bindings } = query.toSQL();
    return check.readChecked<R>(db, sql, bindings, present);
  }

  /** The recheck and count alone, when no read took them. Throws CredentialsChanged when the rows changed. */
  async settleAlone(db: Knex): Promise<QuotaCount | undefined> {
    if (this.count) return this.count;
    const rechecked = await recheckAndCount(db, this.entry, this.quota);
    if (!rechecked) throw new CredentialsChanged();
    this.count = rechecked.count;
    return this.count;
  }
}

/** Runs a hot read of fixed text (`hotQuery`), with the request's deferred check when it has one (`readChecked`). */
export function readRows<R>(db: Knex, sql: string, bindings: readonly unknown[], check: DeferredCheck | undefined, present: string): Promise<R[]> {
  return check ? check.readChecked<R>(db, sql, bindings, present) : hotQuery<R>(db, sql, bindings);
}

/** Statement texts of checked reads, by front CTEs (one text per kind of credential) and read text (fixed per query shape). */
const checkedReads = new Map<string, Map<string, string>>();
const MAX_CHECKED_READS = 500;

/**
 * The read `sql` behind the recheck and the count: one row per row of the read, each with the count
 * (`quota_points`, `quota_expire`); a single row of nulls but the count when the read has no rows or
 * the count is past the limit; no row at all when the credential's rows changed. The read is the
 * inner side of a nested loop over that single checked row, so its rows keep their order.
 */
function checkedReadSql(ctes: string, sql: string): string {
  let texts = checkedReads.get(ctes);
  if (!texts) checkedReads.set(ctes, (texts = new Map()));
  let text = texts.get(sql);
  if (text === undefined) {
    text = `with ${ctes}
  select counted.points as quota_points, counted.expire as quota_expire, d.*
    from checked cross join counted left join lateral (${sql}) as d on counted.points <= ?`;
    if (texts.size < MAX_CHECKED_READS) texts.set(sql, text);
  }
  return text;
}

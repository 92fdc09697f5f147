/**
 * The recheck and the count of a request made with a credential seen recently, carried by the
 * request's first statement (docs/request-path.md, "Credentials seen recently"). It is the guard of
 * the request's database handle (src/db/database.ts): the domain functions that serve the request
 * only run statements on that handle, which puts this in front of the first one or runs it alone
 * before anything else, so a request past the limit or with changed credentials reads out and
 * writes nothing, and a steady client's request is still one statement in all.
 */
import type { Knex } from 'knex';
import type { FirstStatementGuard } from '../../db/database';
import { raw, rows, sql, type Sql } from '../../db/sql';
import { countOf, isPastLimit, withinLimit, type QuotaCount, type QuotaWindow } from './quota';
import { checkedCte, countedAfterCheck, type RememberedCredential } from './recent-credentials';

/** A remembered credential's rows changed since they were read: look the credential up again. */
export class CredentialsChanged extends Error {
  constructor() {
    super('The credentials changed since they were last read.');
    this.name = 'CredentialsChanged';
  }
}

/** The request's count is past the rate limit: it must change nothing (the rate limit answers 429). */
export class CountPastLimit extends Error {
  constructor() {
    super('The request is past the rate limit.');
    this.name = 'CountPastLimit';
  }
}

/** The `guard` CTE's columns, in its select list's order: a read whose rows are arrays hands them over by position. */
const GUARD_COLUMNS = ['quota_points', 'quota_expire', 'guard_proceed'] as const;
const POINTS_AT = GUARD_COLUMNS.indexOf('quota_points');
const EXPIRE_AT = GUARD_COLUMNS.indexOf('quota_expire');

export class CredentialsRecheck implements FirstStatementGuard {
  /** The request's count, once a statement carried the recheck and found the rows unchanged. */
  count?: QuotaCount;
  readonly ctes: Sql;
  readonly columnCount = GUARD_COLUMNS.length;

  constructor(
    entry: RememberedCredential,
    quota: QuotaWindow,
    /** The rate limit: past it, the request reads and writes nothing (it is refused with 429). */
    private readonly limit: number,
  ) {
    // `guard`: one row when the rows are unchanged (the request counted), none otherwise; its
    // columns in GUARD_COLUMNS' order.
    this.ctes = sql`${checkedCte(entry)}, ${countedAfterCheck(entry, quota)},
  guard as (select counted.points as quota_points, counted.expire as quota_expire, ${withinLimit(raw('counted.points'), limit)} as guard_proceed
              from checked cross join counted)`;
  }

  /** Throws CredentialsChanged when the statement found no row (the rows changed), CountPastLimit past the limit. */
  take(row: { quota_points?: unknown; quota_expire?: unknown } | undefined): void {
    const count = row ? countOf(row as { quota_points?: number | null; quota_expire?: number | null }) : undefined;
    if (!count) throw new CredentialsChanged();
    this.count = count;
    if (isPastLimit(count.points, this.limit)) throw new CountPastLimit();
  }

  /** `take` of the guard's values by position (`GUARD_COLUMNS`), from a read whose rows are arrays. */
  takeValues(values: readonly unknown[] | undefined): void {
    this.take(values && { quota_points: values[POINTS_AT], quota_expire: values[EXPIRE_AT] });
  }

  async runAlone(db: Knex): Promise<void> {
    this.take((await rows<{ quota_points: number; quota_expire: number }>(db, sql`with ${this.ctes} select guard.* from guard`))[0]);
  }
}

/**
 * Streaming replicas for the heavy person-data reads (DATABASE_REPLICA_URLS; docs/operating.md,
 * "Read replicas"). The primary stays the only place of credentials, counts and writes; a replica
 * serves a person's read only when it holds all of that person's writes, and only while it is up
 * and close behind the primary:
 *
 * - **Read your writes, on any instance.** Every change to a person's data sets the person's mark,
 *   `person_writes.lsn`, in the same transaction (triggers, migration 20261127140001). A read sends
 *   the mark's statement to the primary (with the request's guard, when it carries one) and the
 *   data statement, with the replica's own copy of the mark, to the replica, at the same time. The
 *   replica's rows are used when its copy is as new as the primary's: its snapshot then holds the
 *   transaction that set the mark, and so every earlier write of the person. Else the primary runs
 *   the read (a second round trip, only for a person who wrote within the replica's lag).
 * - **Down or behind: skipped.** A health check (every second, or half the lag bound) compares each
 *   replica's replayed WAL position with the primary's positions of the last checks: the replica's
 *   lag is the age of the oldest position it has not replayed. A replica that fails, is not a
 *   standby, or lags more than DATABASE_REPLICA_MAX_LAG_MS is left out until a check finds it well.
 *   A read that fails on a replica (it went down since) is served by the primary at once.
 */
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { poolDatabase, type Database, type PersonReads, type ReplicaAnswer } from './database';
import { createKnex, type DatabaseTimeouts } from './knex';
import { rows, sql, type Sql } from './sql';

export interface ReplicaOptions {
  maxLagMs: number;
  poolMax: number;
  timeouts: Partial<DatabaseTimeouts>;
  logger?: Logger;
}

/** A WAL position ('16/B374D848', PostgreSQL's pg_lsn text) as a number; none as 0. */
export function lsnValue(lsn: string | null | undefined): bigint {
  if (!lsn) return 0n;
  const [high, low] = lsn.split('/');
  return (BigInt(`0x${high}`) << 32n) + BigInt(`0x${low}`);
}

/** The statement of one row whose `person_mark` is the person's last-write mark on the server it runs on. */
export function personMark(userId: number): Sql {
  return sql`select (select w.lsn::text from person_writes w where w.user_id = ${userId}::bigint) as person_mark`;
}

/**
 * `read` on a replica, with the replica's copy of the person's mark in every row (`replica_mark`),
 * and one row of nulls but the mark when the read has none (`replica_found` tells them apart). The
 * read is the inner side of a nested loop over the mark's one row, so its rows keep their order.
 */
function markedRead(userId: number, read: Sql): Sql {
  return sql`select m.person_mark as replica_mark, d.* from (${personMark(userId)}) as m
  left join lateral (select true as replica_found, r.* from (${read}) as r) as d on true`;
}

/** Errors of the statement itself (bad input, a missing column…), which the primary would give too: the replica is not at fault. */
function statementFault(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && /^(22|23|42)/.test(code);
}

class Replica {
  usable = false;
  /** Why it is left out (for the log's transitions), or undefined while usable. */
  reason: string | undefined = 'not checked yet';
  constructor(
    readonly db: Knex,
    readonly name: string,
  ) {}
}

/** The replicas of DATABASE_REPLICA_URLS and their health. */
export class Replicas {
  private readonly replicas: Replica[];
  /** The primary's WAL positions of recent checks, oldest first. */
  private samples: Array<{ at: number; lsn: bigint }> = [];
  private timer: NodeJS.Timeout | undefined;
  private turn = 0;
  private checking: Promise<void> | undefined;

  constructor(
    private readonly primary: Knex,
    urls: string[],
    private readonly options: ReplicaOptions,
  ) {
    this.replicas = urls.map((url) => {
      const parsed = new URL(url);
      const db = createKnex(url, { pool: { min: 0, max: options.poolMax }, timeouts: options.timeouts });
      return new Replica(db, `${parsed.hostname}:${parsed.port || 5432}${parsed.pathname}`);
    });
  }

  /** Checks every replica once, then again every second (or half the lag bound) until `close`. */
  async start(): Promise<void> {
    await this.check();
    const every = Math.max(100, Math.min(1000, Math.floor(this.options.maxLagMs / 2)));
    this.timer = setInterval(() => void this.check(), every);
    this.timer.unref();
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.checking;
    await Promise.all(this.replicas.map((replica) => replica.db.destroy()));
  }

  /** Checks the replicas now (a check already running is awaited instead). */
  check(): Promise<void> {
    this.checking ??= this.checkAll().finally(() => (this.checking = undefined));
    return this.checking;
  }

  /** The next usable replica (in turn), if any. */
  private pick(): Replica | undefined {
    const usable = this.replicas.filter((replica) => replica.usable);
    if (usable.length === 0) return undefined;
    this.turn = (this.turn + 1) % usable.length;
    return usable[this.turn];
  }

  /** The person's reads on a usable replica (src/db/database.ts routes them), or undefined when none is usable. */
  forPerson(userId: number): PersonReads | undefined {
    const replica = this.pick();
    return replica && this.readsOn(replica, userId);
  }

  /** The pool as a Database whose reads of the person's data go to a usable replica (the pages' charts and lists). */
  databaseFor(userId: number): Database {
    return poolDatabase(this.primary, this.forPerson(userId));
  }

  /**
   * For reads made with the query builder (the derive jobs' loading, lists read with knex): a
   * usable replica that holds every write of the person, else the primary. One round trip (both
   * marks at once) before the caller's own statements.
   */
  async knexFor(userId: number): Promise<Knex> {
    const replica = this.pick();
    if (!replica) return this.primary;
    const reads = this.readsOn(replica, userId);
    const [primaryRows, answer] = await Promise.all([rows<{ person_mark: string | null }>(this.primary, reads.mark), reads.read<object>(sql`select 1`)]);
    return answer && reads.covers(answer, primaryRows[0]?.person_mark ?? null) ? replica.db : this.primary;
  }

  private readsOn(replica: Replica, userId: number): PersonReads {
    return {
      mark: personMark(userId),
      read: async <R>(statement: Sql): Promise<ReplicaAnswer<R> | undefined> => {
        try {
          const answer = await rows<R & { replica_mark: string | null; replica_found: boolean | null }>(replica.db, markedRead(userId, statement));
          return { mark: answer[0]?.replica_mark ?? null, rows: answer[0]?.replica_found === null ? [] : answer };
        } catch (error) {
          if (!statementFault(error)) this.leaveOut(replica, (error as Error).message);
          return undefined;
        }
      },
      covers: (answer, primaryMark) => lsnValue(answer.mark) >= lsnValue(primaryMark),
    };
  }

  private leaveOut(replica: Replica, reason: string): void {
    if (replica.usable || replica.reason !== reason) {
      this.options.logger?.warn({ replica: replica.name, reason }, 'database replica left out: the primary serves its reads');
    }
    replica.usable = false;
    replica.reason = reason;
  }

  private async checkAll(): Promise<void> {
    let primaryLsn: bigint;
    try {
      const [row] = await rows<{ lsn: string }>(this.primary, sql`select pg_current_wal_lsn()::text as lsn`);
      primaryLsn = lsnValue(row.lsn);
    } catch {
      return; // the primary's own trouble is reported where it is used
    }
    const now = Date.now();
    this.samples.push({ at: now, lsn: primaryLsn });
    // Kept while they can still tell a lag within the bound from one past it.
    while (this.samples.length > 1 && now - this.samples[1].at > this.options.maxLagMs * 2) this.samples.shift();
    await Promise.all(this.replicas.map((replica) => this.checkOne(replica, now)));
  }

  private async checkOne(replica: Replica, now: number): Promise<void> {
    let state: { replay: string | null; standby: boolean };
    try {
      [state] = await rows<{ replay: string | null; standby: boolean }>(
        replica.db,
        sql`select pg_last_wal_replay_lsn()::text as replay, pg_is_in_recovery() as standby`,
      );
    } catch (error) {
      this.leaveOut(replica, (error as Error).message);
      return;
    }
    if (!state.standby) return this.leaveOut(replica, 'it is not a standby (pg_is_in_recovery() is false)');
    const replay = lsnValue(state.replay);
    const oldestMissed = this.samples.find((sample) => sample.lsn > replay);
    const lagMs = oldestMissed === undefined ? 0 : now - oldestMissed.at;
    if (lagMs > this.options.maxLagMs) return this.leaveOut(replica, `it lags ${lagMs} ms behind the primary`);
    if (!replica.usable) this.options.logger?.info({ replica: replica.name, lagMs }, 'database replica in use');
    replica.usable = true;
    replica.reason = undefined;
  }
}

/**
 * The request's database (docs/statements.md, "The request's database"): what a domain function
 * that serves an API request runs its statements on. It is either the pool itself, or one request's
 * handle whose FIRST statement must also carry a guard: for a request made with a credential seen
 * recently, the recheck of that credential and the request's rate-limit count (decided above this
 * layer; docs/request-path.md, "Credentials seen recently").
 *
 * A domain function cannot forget the guard: the handle puts it in front of the first read, hands
 * it to a statement that places it itself (`write`), or runs it alone before anything else can run
 * (`knex()` for query-builder queries and transactions). When the guard says the request must stop
 * (the credential's rows changed, the count is past the limit), it throws before any data was read
 * out or written.
 */
import type { Knex } from 'knex';
import { ARRAY_ROWS, rows, sql, type Sql } from './sql';

/**
 * What must run with a request's first statement, or alone before any other. Its `ctes` end in a
 * CTE named `guard`: one row, whose `guard_proceed` is true when the request may go on and whose
 * other columns are the guard's own; no row at all when the request must stop at once.
 */
export interface FirstStatementGuard {
  readonly ctes: Sql;
  /** Takes the guard's columns from the first row of a statement that carried it (undefined: none). Throws when the request must stop. */
  take(row: Record<string, unknown> | undefined): void;
  /** How many columns `guard` has: a read whose rows are arrays ends each row with them, in the CTE's order. */
  readonly columnCount: number;
  /** `take` for a read whose rows are arrays: the guard's values by position, in the CTE's order (undefined: no row). */
  takeValues(values: readonly unknown[] | undefined): void;
  /** Runs the guard in a statement of its own. Throws when the request must stop. */
  runAlone(db: Knex): Promise<void>;
}

/** Where a domain function runs the statements of a request. */
export interface Database {
  /** Runs one read statement (a named prepared statement). */
  read<R>(statement: Sql): Promise<R[]>;
  /**
   * `read` with rows as arrays (db/sql.ts, ARRAY_ROWS): each row the statement's select list by
   * position, for a hot read of many rows. A row may hold more values after those (the guard's): a
   * reader takes its own by position and ignores the rest.
   */
  readArrays(statement: Sql): Promise<unknown[][]>;
  /**
   * Runs one statement that places the guard itself: `build` gets the guard's CTEs while it has not
   * run (put them first in the `with` list, select `guard.*` in the answer and change nothing unless
   * `guard.guard_proceed`), else undefined.
   */
  write<R>(build: (guard: Sql | undefined) => Sql): Promise<R[]>;
  /** The query builder (queries, transactions), once the guard has run (alone, if no statement carried it). */
  knex(): Promise<Knex>;
}

/** One request's handle: a Database, and the guard's settlement once the request's handler is done. */
export interface RequestDatabase extends Database {
  /** Runs the guard alone if no statement has carried it. Throws when the request must stop. */
  settle(): Promise<void>;
}

/** A replica's rows for a read, with its copy of the person's last-write mark. */
export interface ReplicaAnswer<R> {
  mark: string | null;
  rows: R[];
}

/**
 * A person's reads on a streaming replica (src/db/replicas.ts; docs/operating.md, "Read replicas"):
 * a handle given one sends its `read`s there, and the person's mark statement to the primary at
 * the same time (with the guard, when it carries one).
 */
export interface PersonReads {
  /** One row whose `person_mark` is the person's last-write mark on the server it runs on. */
  readonly mark: Sql;
  /** Runs `statement` on the replica; undefined when the replica failed (it never rejects). */
  read<R>(statement: Sql): Promise<ReplicaAnswer<R> | undefined>;
  /** Does the replica's answer hold every write of the person up to the primary's mark? */
  covers(answer: ReplicaAnswer<unknown>, primaryMark: string | null): boolean;
}

/** Awaits the answer of the statement that carries `guard` (see guardedDatabase). */
type Carry = <T>(guard: FirstStatementGuard | undefined, answer: Promise<T>) => Promise<T>;
const answered: Carry = (_guard, answer) => answer;

/**
 * `statement` on the replica and the mark (behind the guard, if one is carried) on the primary, at
 * once: one round trip. The guard decides first (the replica's rows are dropped when it stops the
 * request); the replica's rows are used when they hold the person's writes, else the primary reads.
 */
async function readOnReplica<R>(
  db: Knex,
  person: PersonReads,
  carried: FirstStatementGuard | undefined,
  statement: Sql,
  carry: Carry = answered,
): Promise<R[]> {
  const onReplica = person.read<R>(statement);
  const onPrimary = await carry(carried, rows<{ person_mark: string | null }>(db, carried ? guardedRead(carried.ctes, person.mark) : person.mark));
  carried?.take(onPrimary[0]);
  const answer = await onReplica;
  if (answer && person.covers(answer, onPrimary[0]?.person_mark ?? null)) return answer.rows;
  return rows<R>(db, statement);
}

/**
 * Object rows as arrays, their values in the select list's order (a row object's keys are in that
 * order; the names distinct, none a number): a read on a replica (rare, not the hot path) reads
 * objects (`readOnReplica`, which may read the primary again) and hands them to an array reader
 * this way.
 */
const valuesOf = (objects: Array<Record<string, unknown>>): unknown[][] => objects.map((row) => Object.values(row));

/** The pool as a Database: no guard; `person`: its reads go to a replica. */
export function poolDatabase(db: Knex, person?: PersonReads): RequestDatabase {
  const ready = Promise.resolve(db);
  return {
    read: (statement) => (person ? readOnReplica(db, person, undefined, statement) : rows(db, statement)),
    readArrays: async (statement) => (person ? valuesOf(await readOnReplica(db, person, undefined, statement)) : rows(db, statement, ARRAY_ROWS)),
    write: (build) => rows(db, build(undefined)),
    knex: () => ready,
    settle: async () => undefined,
  };
}

/**
 * A read behind the guard, in the same statement: one row per row of the read, each with the
 * guard's columns; one row of nulls but the guard's columns when the read has no rows or the guard
 * says stop (`guard_found` tells them apart); no row at all when the guard has none. The read is the
 * inner side of a nested loop over the guard's single row, so its rows keep their order.
 */
function guardedRead(ctes: Sql, read: Sql): Sql {
  return sql`with ${ctes}
  select guard.*, d.* from guard left join lateral (select true as guard_found, r.* from (${read}) as r) as d on guard.guard_proceed`;
}

/**
 * `guardedRead` for rows as arrays: the read's values first (so a reader finds its columns at the
 * same positions with or without the guard), then `guard_found`, then the guard's columns.
 */
function guardedReadArrays(ctes: Sql, read: Sql): Sql {
  return sql`with ${ctes}
  select d.*, guard.* from guard left join lateral (select r.*, true as guard_found from (${read}) as r) as d on guard.guard_proceed`;
}

/** A request's handle whose first statement carries `guard`; `person`: its reads go to a replica. */
export function guardedDatabase(db: Knex, guard: FirstStatementGuard, person?: PersonReads): RequestDatabase {
  let pending: FirstStatementGuard | undefined = guard;
  /** The guard once, for the statement about to carry it (spent once that statement answers, whatever it answers). */
  const claim = () => {
    const claimed = pending;
    pending = undefined;
    return claimed;
  };
  /**
   * A statement that carried the guard and failed was rolled back whole, its count and recheck with
   * it: the guard is pending again, so a caller that catches the error and goes on (an increment
   * whose total overflows falls back to the locked path) still runs it before anything else.
   */
  const carry: Carry = async (carried, answer) => {
    try {
      return await answer;
    } catch (error) {
      pending ??= carried;
      throw error;
    }
  };
  const handle: RequestDatabase = {
    async read<R>(statement: Sql): Promise<R[]> {
      const carried = claim();
      if (person) return readOnReplica<R>(db, person, carried, statement, carry);
      if (!carried) return rows<R>(db, statement);
      const answer = await carry(carried, rows<R & { guard_found: boolean | null }>(db, guardedRead(carried.ctes, statement)));
      carried.take(answer[0]);
      // The rows keep the guard's columns (not copied without them: the readers pick their fields).
      return answer[0].guard_found === null ? [] : answer;
    },
    async readArrays(statement: Sql): Promise<unknown[][]> {
      const carried = claim();
      if (person) return valuesOf(await readOnReplica<Record<string, unknown>>(db, person, carried, statement, carry));
      if (!carried) return rows<unknown[]>(db, statement, ARRAY_ROWS);
      const answer = await carry(carried, rows<unknown[]>(db, guardedReadArrays(carried.ctes, statement), ARRAY_ROWS));
      const first = answer[0];
      carried.takeValues(first?.slice(first.length - carried.columnCount));
      // `guard_found`, just before the guard's columns: null in the one row of a read with no rows.
      return first === undefined || first[first.length - carried.columnCount - 1] === null ? [] : answer;
    },
    async write<R>(build: (guard: Sql | undefined) => Sql): Promise<R[]> {
      const carried = claim();
      const answer = await carry(carried, rows<R>(db, build(carried?.ctes)));
      carried?.take(answer[0] as Record<string, unknown> | undefined);
      return answer;
    },
    async knex(): Promise<Knex> {
      await handle.settle();
      return db;
    },
    async settle(): Promise<void> {
      await claim()?.runAlone(db);
    },
  };
  return handle;
}

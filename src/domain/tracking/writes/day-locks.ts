/**
 * A person's day, locked for the rest of a write's transaction (docs/batch-writes.md). Every batch
 * that writes values holds the locks of the days it writes before it reads or writes any of them,
 * so the totals it computes from what is stored stay true until it commits (two increments of one
 * day never lose one another), and the day's custom text is rebuilt by one writer at a time.
 *
 * These are transaction-scoped advisory locks, not row locks: a day without a value has no row to
 * lock. They are taken in ascending key order in one statement, so two batches sharing days never
 * wait on each other in a cycle. A key is a 32-bit hash of (person, day): two unrelated days that
 * happen to share a key merely wait for each other. Every instance must compute the same keys:
 * changing dayLockKey needs all instances stopped, not a rolling deploy.
 */
import { ADVISORY_LOCKS } from '../../../db/advisory-locks';
import { empty, sql, type Sql } from '../../../db/sql';

/** Names the day locks among the database's two-key advisory locks (src/db/advisory-locks.ts). */
const DAY_LOCK_NAMESPACE = ADVISORY_LOCKS.dayLocks;

/**
 * The lock key of a person's day: 32-bit FNV-1a of "user|date", as a signed int4. (A cryptographic
 * hash bought nothing here and cost a measurable share of a write's CPU.)
 */
function dayLockKey(userId: number, date: string): number {
  const text = `${userId}|${date}`;
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash | 0;
}

/** The lock keys of the person's days (any order, repeats allowed), unique and ascending: the order they are taken in. */
export function dayLockKeys(userId: number, dates: Iterable<string>): number[] {
  const keys: number[] = [];
  for (const date of new Set(dates)) keys.push(dayLockKey(userId, date));
  keys.sort((a, b) => a - b);
  // Two dates may share a key (see above): each key once.
  let unique = 0;
  for (let i = 0; i < keys.length; i++) if (i === 0 || keys[i] !== keys[unique - 1]) keys[unique++] = keys[i];
  keys.length = unique;
  return keys;
}

/**
 * The day locks: a CTE `day_locks` taking the locks of `keys` (dayLockKeys: unique, ascending) in
 * one go, to put in front of the statement that needs them (`… from day_locks, …`). Its one row
 * exists only once every lock is held (`held`, the number taken).
 *
 * `after`: the locks are taken only once the CTE `after.source` has its row and only when
 * `after.condition` holds for it; otherwise none is taken and `held` is 0.
 */
export function dayLocks(keys: readonly number[], after?: { source: Sql; condition: Sql }): Sql {
  const from = after ? sql`${after.source}, unnest(${keys}::int[])` : sql`unnest(${keys}::int[])`;
  return sql`day_locks as materialized (
    select count(pg_advisory_xact_lock(${DAY_LOCK_NAMESPACE}::int, k.key)) as held from ${from} with ordinality as k(key, position)${after ? sql` where ${after.condition}` : empty})`;
}

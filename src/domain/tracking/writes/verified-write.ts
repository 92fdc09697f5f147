/**
 * Value batches without a transaction of their own (docs/batch-writes.md, "The one-statement
 * path"). Most batches a service sends are plain: updates of days, or one increment per day of a
 * counter, no tags. Their outcome does not depend on what is stored, only on the attributes, so
 * the attributes are read without locks, the rules run in memory, and ONE statement then takes the
 * day locks and share locks on those attributes, checks that every attribute the successes relied
 * on is still exactly as read, and only then upserts the values and marks the days changed. If an
 * attribute changed in between (an acquire, a release, a settings change), the statement writes
 * nothing and says so, and the batch runs again on the locked path.
 */
import type { Database } from '../../../db/database';
import { empty, join, raw, sql, type Sql } from '../../../db/sql';
import type { WritableAttribute, WriteContext } from './context';
import { dayLockKeys, dayLocks } from './day-locks';
import { isTag } from './custom-tags';
import { hasRange } from './value-rules';
import { byDayKey, markDaysChanged, upsertDays, valueRows } from './stored-days';

/** What one item does to one day, after the rules passed it. */
export interface DayOperation {
  kind: 'update' | 'increment';
  attribute: WritableAttribute;
  date: string;
  /** The total for an update, the delta for an increment. */
  amount: number | string;
}

export const dayKey = (attributeId: number, date: string): string => `${attributeId}|${date}`;

/**
 * Something per day of an attribute, found by the attribute's id, then the date: the same as a
 * `Map` by `dayKey`, without building a key string for every item (suitsVerifiedWrite's 35 of
 * them cost 13 µs of a request's CPU, 3.7 µs this way; docs/request-path.md, "Issue 35, third stop").
 */
class DayMap<T> {
  private readonly byAttribute = new Map<number, Map<string, T>>();

  get(attributeId: number, date: string): T | undefined {
    return this.byAttribute.get(attributeId)?.get(date);
  }

  set(attributeId: number, date: string, value: T): void {
    let days = this.byAttribute.get(attributeId);
    if (!days) this.byAttribute.set(attributeId, (days = new Map()));
    days.set(date, value);
  }

  /** Visits every value, by attribute in the order first set, then by date in the order first set. */
  forEach(visit: (value: T) => void): void {
    for (const days of this.byAttribute.values()) days.forEach((value) => visit(value));
  }
}

/**
 * Can the batch take this path? Not with tags (the day's custom text is rebuilt from what is
 * stored), and a day is either only updated (the last update is its value) or incremented once on
 * an attribute without a range (the item succeeds whatever the day held; an overflowing float is
 * an error of the statement, and the locked path then fails that item alone).
 */
export function suitsVerifiedWrite(operations: DayOperation[]): boolean {
  // A day written twice is fine only when neither write is an increment: the rule "only updates,
  // or one increment alone" spelled as "no day with an increment is written twice", which needs
  // one remembered kind per day and no counts (docs/request-path.md, "Issue 35, third stop").
  const kinds = new DayMap<DayOperation['kind']>();
  for (const operation of operations) {
    if (isTag(operation.attribute)) return false;
    if (operation.kind === 'increment' && hasRange(operation.attribute)) return false;
    const seen = kinds.get(operation.attribute.id, operation.date);
    if (seen === undefined) kinds.set(operation.attribute.id, operation.date, operation.kind);
    else if (seen === 'increment' || operation.kind === 'increment') return false;
  }
  return true;
}

/**
 * The attributes each person's plain batches named, as last read, so that a service's next batch
 * of the same attributes needs no read before its statement (docs/batch-writes.md, "Remembered
 * attributes"). Never trusted: the statement compares every attribute with the database, and a
 * batch that would fail an item on what is remembered reads afresh instead. Bounded; the oldest
 * person is dropped first.
 */
const remembered = new Map<number, Map<string, WritableAttribute>>();
const MAX_REMEMBERED_PEOPLE = 2000;

/** The person's attributes `names`, as last read, if every one of them is remembered. */
export function rememberedAttributes(userId: number, names: Iterable<string>): Map<string, WritableAttribute> | undefined {
  const known = remembered.get(userId);
  if (!known) return undefined;
  const found = new Map<string, WritableAttribute>();
  for (const name of names) {
    const attribute = known.get(name);
    if (!attribute) return undefined;
    found.set(name, attribute);
  }
  return found;
}

/** Remembers attributes just read (a fresh read replaces what was remembered of them). */
export function rememberAttributes(userId: number, attributes: Iterable<WritableAttribute>): void {
  const known = remembered.get(userId) ?? new Map<string, WritableAttribute>();
  remembered.delete(userId); // re-inserted last: the most recently used person
  for (const attribute of attributes) known.set(attribute.name, attribute);
  remembered.set(userId, known);
  if (remembered.size > MAX_REMEMBERED_PEOPLE) remembered.delete(remembered.keys().next().value!);
}

/** Forgets what was remembered of the person (it turned out stale). */
export function forgetAttributes(userId: number): void {
  remembered.delete(userId);
}

/** The attributes' columns the rules read, which the statement compares with the database, and their types. */
const COMPARED = {
  name: 'text',
  template_name: 'text',
  group_name: 'text',
  value_type: 'smallint',
  priority: 'integer',
  manual: 'boolean',
  owner_client_pk: 'bigint',
} as const;
const COMPARED_COLUMNS = Object.keys(COMPARED) as Array<keyof typeof COMPARED>;

// The statement's fixed texts, spelled once: built per request, they were a fifth of the
// statement's construction (docs/request-path.md, "Issue 35, eighth stop").
const COMPARED_TYPES = COMPARED_COLUMNS.map((column) => raw(COMPARED[column]));
const COMPARED_NAMES = raw(COMPARED_COLUMNS.join(', '));
const LOCKED_COLUMNS = raw(COMPARED_COLUMNS.map((c) => `a.${c}`).join(', '));
const SAME_AS_EXPECTED = raw(COMPARED_COLUMNS.map((c) => `l.${c} is not distinct from e.${c}`).join(' and '));
/** The statement's answer: whether it wrote, and the incremented days' totals (a row per day), or none. */
const ADDED_TOTALS = { columns: raw('added.attribute_id, added.date, added.value_num'), join: raw(' left join added on true') };
const NO_TOTALS = { columns: raw('null::bigint as attribute_id, null::date as date, null::float8 as value_num'), join: empty };
/** The day locks wait for the guard's row and are taken only when it lets the request proceed. */
const AFTER_GUARD = { source: raw('guard'), condition: raw('guard.guard_proceed') };

/** The attributes as the rules read them, as `unnest(…) as e(id, name, template_name, …)`. */
function expectedAttributes(attributes: WritableAttribute[]): Sql {
  const arrays = COMPARED_COLUMNS.map((column, i) => sql`${attributes.map((a) => a[column])}::${COMPARED_TYPES[i]}[]`);
  return sql`unnest(${attributes.map((a) => a.id)}::bigint[], ${join(arrays)}) as e(id, ${COMPARED_NAMES})`;
}

type Written = { ok: boolean; attribute_id: number | null; date: string | null; value_num: number | null };

/**
 * The statement. With `guard` (the request's first-statement guard: src/db/database.ts), it comes
 * first and the day locks are taken only after it, and only when it lets the request proceed: the
 * rate-limit row is always the first lock such a statement takes, then the days, then the
 * attributes, so these statements never wait on each other in a cycle; when the guard stops the
 * request, no lock is taken and nothing is written (`fresh.ok` is false).
 *
 * The attributes' ids are bound hidden from the planner (`any((select $n::bigint[])::bigint[])`,
 * as the correlation list binds its person): known, they made PostgreSQL's custom plans look
 * cheaper than its generic one once the attributes' indexes had bloated, and it then planned this
 * statement anew at every call, about 0.4 ms of its CPU (docs/request-path.md, "Issue 35, ninth
 * stop").
 */
function statement(guard: Sql | undefined, context: WriteContext, operations: DayOperation[]): Sql {
  const attributes = [...new Map(operations.map((o) => [o.attribute.id, o.attribute])).values()];
  const finals = new DayMap<DayOperation>();
  for (const operation of operations) finals.set(operation.attribute.id, operation.date, operation);
  // The days' rows, spelled field by field (a spread of each operation cost V8 ~1.5 µs a day).
  const updates: Array<{ attribute: WritableAttribute; date: string; value: number | string }> = [];
  const increments: DayOperation[] = [];
  finals.forEach((o) => {
    if (o.kind === 'update') updates.push({ attribute: o.attribute, date: o.date, value: o.amount });
    else increments.push(o);
  });
  increments.sort(byDayKey);
  const ids = attributes.map((a) => a.id);
  const keys = dayLockKeys(
    context.userId,
    operations.map((o) => o.date),
  );
  const { userId, now } = context;
  // Only the writes the batch has: an upsert of attribute_values runs its statement triggers (the
  // replicas' person_writes marks, migration 20261127140001) for its insert and its update even
  // when it has no rows, and an empty one is planned and executed too (docs/request-path.md,
  // "Issue 35, ninth stop"). There is always one: an empty batch never gets here (writeInOneStatement).
  const writes: Sql[] = [];
  const writtenDates: Sql[] = [];
  if (updates.length > 0) {
    writes.push(sql`set_days as (
    ${upsertDays(context, sql`fresh, ${valueRows(updates)}`, { onStored: 'replace', where: sql`fresh.ok` })}
  )`);
    writtenDates.push(sql`select date from set_days`);
  }
  if (increments.length > 0) {
    writes.push(sql`added as (
    insert into attribute_values (user_id, attribute_id, date, value_num, value_text, updated_at)
    select ${userId}, v.attribute_id, v.date, v.delta, null, ${now}::timestamptz
      from fresh, unnest(${increments.map((o) => o.attribute.id)}::bigint[], ${increments.map((o) => o.date)}::date[], ${increments.map((o) => o.amount as number)}::float8[])
           with ordinality as v(attribute_id, date, delta, position)
     where fresh.ok
     order by v.position
    on conflict (user_id, attribute_id, date)
    do update set value_num = coalesce(attribute_values.value_num, 0) + excluded.value_num, updated_at = excluded.updated_at
    returning attribute_id, date, value_num
  )`);
    writtenDates.push(sql`select date from added`);
  }
  const totals = increments.length > 0 ? ADDED_TOTALS : NO_TOTALS;
  return sql`with ${guard ? sql`${guard}, ` : empty}${dayLocks(keys, guard ? AFTER_GUARD : undefined)},
  locked as materialized (
    select a.id, ${LOCKED_COLUMNS}
      from day_locks, attributes a
     where day_locks.held > 0 and a.user_id = ${userId} and a.id = any((select ${ids}::bigint[])::bigint[])
     order by a.id
       for share of a
  ),
  fresh as materialized (
    select count(*) = cardinality(${ids}::bigint[]) as ok
      from locked l
      join ${expectedAttributes(attributes)}
        on l.id = e.id and ${SAME_AS_EXPECTED}
  ),
  ${join(writes, ',\n  ')},
  changed as (
    ${markDaysChanged(context, join(writtenDates, ' union all '))}
  )
  select ${guard ? sql`guard.*, ` : empty}fresh.ok, ${totals.columns} from ${guard ? sql`guard, ` : empty}fresh${totals.join}`;
}

/**
 * Writes the batch's days in one statement if the attributes are still as read. Answers the new
 * totals of the incremented days (by dayKey), or undefined when something changed and nothing
 * was written. When the request's guard stops the request, it throws and nothing was written.
 */
export async function verifiedWrite(db: Database, context: WriteContext, operations: DayOperation[]): Promise<Map<string, number> | undefined> {
  const rows = await db.write<Written>((guard) => statement(guard, context, operations));
  if (!rows[0]?.ok) return undefined;
  return new Map(rows.filter((row) => row.attribute_id !== null).map((row) => [dayKey(row.attribute_id!, row.date!), row.value_num!]));
}

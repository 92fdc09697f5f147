/**
 * How every write stores days' values (docs/batch-writes.md, "Storing a day"), spelled once for the
 * API's two write paths (verified-write.ts, locked-values.ts) and imports (imports/apply-batch.ts):
 *
 * - the rows go in key order (attribute, then date), so that concurrent batches lock them in one
 *   order and never wait on each other in a cycle;
 * - a stored day is one row per (person, attribute, date), its value in `value_num` or
 *   `value_text` by the attribute's type (values.ts `storedValue`), stamped with the write's time;
 * - every day written is marked changed in `value_changes`, in the same statement, for the
 *   derived-data jobs (docs/derived-data.md).
 */
import { empty, sql, type Sql } from '../../../db/sql';
import { storedValue } from '../values';
import type { WritableAttribute, WriteContext } from './context';

/** Orders days by attribute, then date. */
export const byDayKey = (a: { attribute: { id: number }; date: string }, b: { attribute: { id: number }; date: string }): number =>
  a.attribute.id - b.attribute.id || (a.date < b.date ? -1 : a.date > b.date ? 1 : 0);

/**
 * Days' values to upsert as `unnest(…) with ordinality as v(attribute_id, date, value_num, value_text, position)`,
 * in key order.
 */
export function valueRows(days: Array<{ attribute: WritableAttribute; date: string; value: number | string }>): Sql {
  const sorted = [...days].sort(byDayKey);
  // The four columns filled in one pass over the days (four passes and a list of stored values before).
  const ids: number[] = [];
  const dates: string[] = [];
  const numbers: Array<number | null> = [];
  const texts: Array<string | null> = [];
  for (const day of sorted) {
    const stored = storedValue(day.attribute.value_type, day.value);
    ids.push(day.attribute.id);
    dates.push(day.date);
    numbers.push(stored.value_num);
    texts.push(stored.value_text);
  }
  return sql`unnest(${ids}::bigint[], ${dates}::date[], ${numbers}::float8[], ${texts}::text[])
    with ordinality as v(attribute_id, date, value_num, value_text, position)`;
}

/** What an upsert does to a day that holds a value already: `replace` it, or `keep` what is there. */
export type OnStoredDay = 'replace' | 'keep';

/**
 * The upsert of days' values (`source`: a from-list that yields `v` as `valueRows` does, `where`: a
 * condition on it), answering the dates written. Under `keep`, a day that holds a value when the
 * statement runs keeps it and is not answered.
 */
export function upsertDays(context: WriteContext, source: Sql, options: { onStored: OnStoredDay; where?: Sql }): Sql {
  const onConflict =
    options.onStored === 'keep'
      ? sql`do nothing`
      : sql`do update set value_num = excluded.value_num, value_text = excluded.value_text, updated_at = excluded.updated_at`;
  return sql`insert into attribute_values (user_id, attribute_id, date, value_num, value_text, updated_at)
    select ${context.userId}, v.attribute_id, v.date, v.value_num, v.value_text, ${context.now}::timestamptz
      from ${source}${options.where ? sql` where ${options.where}` : empty}
     order by v.position
    on conflict (user_id, attribute_id, date) ${onConflict}
    returning date`;
}

/** Marks the dates `dates` answers (a query with a `date` column, any number of rows per date) changed, in date order. */
export function markDaysChanged(context: WriteContext, dates: Sql): Sql {
  return sql`insert into value_changes (user_id, date, changed_at)
    select distinct ${context.userId}::bigint, d.date, ${context.now}::timestamptz from (${dates}) as d order by 2
    on conflict (user_id, date) do update set changed_at = excluded.changed_at`;
}

/** Stores the days' values and marks their dates changed: one statement. */
export function writeDays(
  context: WriteContext,
  days: Array<{ attribute: WritableAttribute; date: string; value: number | string }>,
  onStored: OnStoredDay,
): Sql {
  return sql`with written as (${upsertDays(context, valueRows(days), { onStored })})
    ${markDaysChanged(context, sql`select date from written`)}`;
}

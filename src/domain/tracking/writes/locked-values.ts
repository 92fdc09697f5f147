/**
 * The locked path of a value batch (docs/batch-writes.md), in the batch's transaction: one
 * statement that locks the days written (day-locks.ts) and reads the named attributes with share
 * locks; for increments, one read of the days they start from; one that upserts the values and
 * marks their days changed; and, when tags changed, the days' custom text (custom-tags.ts). Totals
 * are computed here, under the day locks, item after item.
 */
import type { Knex } from 'knex';
import { inTransaction, raw, sql } from '../../../db/sql';
import { ItemError, type Outcomes } from './batch';
import { WRITABLE_COLUMNS, type WritableAttribute, type WriteContext } from './context';
import { dayKey } from './verified-write';
import { writeDays } from './stored-days';
import { checkTotal } from './value-rules';
import { CUSTOM_STRING_TEMPLATE, isTag, refreshCustomTexts } from './custom-tags';
import { dayLockKeys, dayLocks } from './day-locks';
import { operationsOf, written, type DayTotal, type Operation, type Target, type WrittenItem } from './value-items';

/** The columns the write rules read, of the attributes `a`. */
const WRITABLE_OF_A = raw(WRITABLE_COLUMNS.map((c) => `a.${c}`).join(', '));

/** The stored totals of the days that increments start from (absent: no value yet). */
async function startingTotals(trx: Knex.Transaction, userId: number, operations: Operation[]): Promise<Map<string, number>> {
  const firstOfDay = new Map<string, Operation>();
  for (const operation of operations) {
    const key = dayKey(operation.attribute.id, operation.date);
    if (!firstOfDay.has(key)) firstOfDay.set(key, operation);
  }
  // A day whose first operation is an update does not depend on what was stored.
  const needed = [...firstOfDay.values()].filter((operation) => operation.kind === 'increment');
  if (needed.length === 0) return new Map();
  const rows = await inTransaction<{ attribute_id: number; date: string; value_num: number | null }>(
    trx,
    sql`select v.attribute_id, v.date, v.value_num from attribute_values v
         join unnest(${needed.map((o) => o.attribute.id)}::bigint[], ${needed.map((o) => o.date)}::date[]) as k(attribute_id, date)
           on k.attribute_id = v.attribute_id and k.date = v.date
        where v.user_id = ${userId}`,
  );
  return new Map(rows.map((row) => [dayKey(row.attribute_id, row.date), row.value_num ?? 0]));
}

/**
 * Applies the operations in item order to the days' totals, recording each item's outcome.
 * Returns the days that changed.
 */
function applyInOrder(operations: Operation[], starts: ReadonlyMap<string, number>, outcomes: Outcomes<WrittenItem>): Map<string, DayTotal> {
  const days = new Map<string, DayTotal>();
  for (const operation of operations) {
    const key = dayKey(operation.attribute.id, operation.date);
    const item = outcomes.items[operation.index];
    if (operation.kind === 'update') {
      days.set(key, { attribute: operation.attribute, date: operation.date, total: operation.amount });
      outcomes.succeed(operation.index, written(item, operation));
      continue;
    }
    const before = days.get(key)?.total ?? starts.get(key) ?? 0;
    const current = (typeof before === 'number' ? before : 0) + (operation.amount as number);
    const applied = outcomes.attempt(operation.index, () => {
      if (!Number.isFinite(current)) throw new ItemError('validation', `Attribute ${operation.attribute.name}: the total would not be a finite number.`);
      checkTotal(operation.attribute, current);
      return true;
    });
    if (!applied) continue;
    days.set(key, { attribute: operation.attribute, date: operation.date, total: current });
    outcomes.succeed(operation.index, written(item, operation, current));
  }
  return days;
}

/**
 * Writes the days' totals and marks their dates changed for the derived-data jobs, in one
 * statement, rows in key order (values by attribute and date, changed days by date).
 */
async function writeTotals(trx: Knex.Transaction, context: WriteContext, days: DayTotal[]): Promise<void> {
  await inTransaction(
    trx,
    writeDays(
      context,
      days.map((d) => ({ ...d, value: d.total })),
      'replace',
    ),
  );
}

/**
 * The first statement of a value batch: the locks of every day the items write (day-locks.ts),
 * then the named attributes with share locks, in id order. Days first: a value batch never waits
 * for a day while holding an attribute lock another value batch needs, since value batches' share
 * locks never conflict; ownership changes take no day locks.
 */
async function lockDaysAndAttributes(trx: Knex.Transaction, userId: number, targets: Target[]): Promise<Map<string, WritableAttribute>> {
  const keys = dayLockKeys(
    userId,
    targets.map((t) => t.date),
  );
  const rows = await inTransaction<WritableAttribute>(
    trx,
    sql`with ${dayLocks(keys)}
  select ${WRITABLE_OF_A}
    from day_locks, attributes a
   where a.user_id = ${userId} and a.name = any(${[...new Set(targets.map((t) => t.name))]}::text[])
   order by a.id
     for share of a`,
  );
  return new Map(rows.map((row) => [row.name, row]));
}

/**
 * The days whose custom text is rebuilt from their tags: those where a tag was written after any
 * text written to `custom` in the batch. Items apply in the order sent (docs/batch-writes.md), so
 * a text written after the day's tags is kept, as two separate requests would keep it.
 */
function datesToRetext(operations: Operation[]): string[] {
  const lastWasTag = new Map<string, boolean>();
  for (const operation of operations) {
    if (isTag(operation.attribute)) lastWasTag.set(operation.date, true);
    else if ((operation.attribute.template_name ?? operation.attribute.name) === CUSTOM_STRING_TEMPLATE) lastWasTag.set(operation.date, false);
  }
  return [...lastWasTag].filter(([, tag]) => tag).map(([date]) => date);
}

/** The database part of a batch: everything after the checks that need none. */
export async function applyWrites(trx: Knex.Transaction, context: WriteContext, outcomes: Outcomes<WrittenItem>, targets: Target[]): Promise<void> {
  const attributes = await lockDaysAndAttributes(trx, context.userId, targets);
  const operations = operationsOf(targets, attributes, context, outcomes);
  if (operations.length === 0) return;
  const days = [...applyInOrder(operations, await startingTotals(trx, context.userId, operations), outcomes).values()];
  if (days.length === 0) return;
  await writeTotals(trx, context, days);
  const tagDates = datesToRetext(operations);
  if (tagDates.length > 0) await refreshCustomTexts(trx, context, tagDates);
}

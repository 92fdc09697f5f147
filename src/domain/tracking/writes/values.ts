/**
 * Writing days' values, a whole batch at once (docs/batch-writes.md): update sets a day's total,
 * replacing the previous value; increment adds a delta (from 0 on a day without a value) and
 * answers the new total as `current`. Every write also records the changed (user, date) in
 * `value_changes`, in the same transaction, for the derived-data jobs.
 *
 * A plain batch (updates, single increments of counters, no tags) is written by one statement
 * after one read of its attributes, without a transaction of its own (verified-write.ts). Any
 * other batch takes the locked path, in one transaction.
 *
 * The statements of the locked path, whatever the batch's size: one that locks the days written (day-locks.ts)
 * and reads the named attributes with share locks; for increments, one read of the days they
 * start from; one that upserts the values and marks their days changed; and, when tags changed,
 * the days' custom text (custom-tags.ts). Totals are computed here, under the day locks, item after
 * item, so two increments of one day in one batch, or an update and then an increment, behave
 * exactly as if sent one after another, and an increment whose total would leave the attribute's
 * range fails alone.
 */
import type { components } from '../../../../generated/types/v2';
import type { Knex } from 'knex';
import { PREPARED, sqlArray } from '../../../db/knex';
import {
  type BatchResult,
  type Checked,
  checkEach,
  inBatchTransaction,
  type Item,
  ItemError,
  type Outcomes,
  outcomesAfter,
  passed,
  requireFields,
  stringField,
} from './batch';
import { foundAttribute, readAttributes, requireOwner, requireWriteScope, WRITABLE_COLUMNS, type WritableAttribute, type WriteContext } from './context';
import { dayKey, forgetAttributes, rememberAttributes, rememberedAttributes, suitsVerifiedWrite, valueRowBindings, verifiedWrite } from './verified-write';
import { checkDate, checkDelta, checkTotal, checkValue } from './value-rules';
import { isTag, refreshCustomTexts } from './custom-tags';
import { DAY_LOCK_NAMESPACE, DAY_LOCKS_CTE, dayLockKeys } from './day-locks';

/** Update: the item's value becomes the day's total. Increment: the item's value is added to it. */
export type ValueWriteKind = 'update' | 'increment';

export interface ValueWrite {
  kind: ValueWriteKind;
  item: Item;
}

/** An item that passed the checks that need no database. */
interface Target {
  index: number;
  kind: ValueWriteKind;
  name: string;
  date: string;
  value: unknown;
}

/** An item that also passed the attribute's rules: what it does to which day. */
interface Operation extends Target {
  attribute: WritableAttribute;
  /** The total for an update, the delta for an increment. */
  amount: number | string;
}

/** An update's success: the item as sent (the document's UpdateItem). */
export type UpdateSuccess = components['schemas']['UpdateItem'];
/** An increment's success: the item as sent with its day and the day's new total. */
export type IncrementSuccess = components['schemas']['IncrementSuccess'];
type WrittenItem = UpdateSuccess | IncrementSuccess;

/**
 * What the answer shows for a written item. Its fields passed checkFields and its value
 * checkValue/checkDelta, so it is the document's UpdateItem (an increment's value a number); an
 * increment adds its day and the day's total after it, which every written day has.
 */
function written(item: Item, operation: Operation, current?: number): WrittenItem {
  const sent = item as UpdateSuccess;
  if (operation.kind === 'update') return sent;
  if (current === undefined) throw new Error(`No total for the written day ${operation.date} of ${operation.name}.`);
  return { ...sent, value: sent.value as number, date: operation.date, current };
}

/** A day of one attribute, as the batch leaves it. */
interface DayTotal {
  attribute: WritableAttribute;
  date: string;
  total: number | string;
}

/** Update items are `{name, date, value}`; increment items `{name, value, date?}` (today when left out). */
function checkFields(write: ValueWrite, index: number, context: WriteContext): Target {
  const { kind, item } = write;
  requireFields(item, index, kind === 'update' ? ['name', 'date', 'value'] : ['name', 'value']);
  const name = stringField(item, index, 'name');
  const date = kind === 'increment' && item.date === undefined ? context.today : checkDate(index, item.date);
  return { index, kind, name, date, value: item.value };
}

/** The attribute's rules for one item: it exists, this token may write it, this service owns it, the value fits. */
function checkAttribute(target: Target, attributes: ReadonlyMap<string, WritableAttribute>, context: WriteContext): Operation {
  const attribute = foundAttribute(attributes, target.name);
  requireWriteScope(context.access, attribute);
  requireOwner(context, attribute);
  const amount = target.kind === 'update' ? checkValue(attribute, target.value) : checkDelta(attribute, target.value);
  return { ...target, attribute, amount };
}

/** The items that pass their attribute's rules, in order; the others fail on `outcomes`. */
function operationsOf(
  targets: Target[],
  attributes: ReadonlyMap<string, WritableAttribute>,
  context: WriteContext,
  outcomes: Outcomes<WrittenItem>,
): Operation[] {
  const operations: Operation[] = [];
  for (const target of targets) {
    const operation = outcomes.attempt(target.index, () => checkAttribute(target, attributes, context));
    if (operation) operations.push(operation);
  }
  return operations;
}

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
  const { rows } = await trx
    .raw(
      `select v.attribute_id, v.date, v.value_num from attribute_values v
         join unnest(?::bigint[], ?::date[]) as k(attribute_id, date) on k.attribute_id = v.attribute_id and k.date = v.date
        where v.user_id = ?`,
      [sqlArray(needed.map((o) => o.attribute.id)), sqlArray(needed.map((o) => o.date)), userId],
    )
    .options(PREPARED);
  return new Map(
    (rows as Array<{ attribute_id: number; date: string; value_num: number | null }>).map((row) => [dayKey(row.attribute_id, row.date), row.value_num ?? 0]),
  );
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
  await trx
    .raw(
      `with written as (
         insert into attribute_values (user_id, attribute_id, date, value_num, value_text, updated_at)
         select ?, v.attribute_id, v.date, v.value_num, v.value_text, ?
           from unnest(?::bigint[], ?::date[], ?::float8[], ?::text[]) with ordinality as v(attribute_id, date, value_num, value_text, position)
          order by v.position
         on conflict (user_id, attribute_id, date)
         do update set value_num = excluded.value_num, value_text = excluded.value_text, updated_at = excluded.updated_at
         returning date
       )
       insert into value_changes (user_id, date, changed_at)
       select distinct ?::bigint, w.date, ?::timestamptz from written w order by 2
       on conflict (user_id, date) do update set changed_at = excluded.changed_at`,
      [context.userId, context.now, ...valueRowBindings(days.map((d) => ({ ...d, value: d.total }))), context.userId, context.now],
    )
    .options(PREPARED);
}

/**
 * The first statement of a value batch: the locks of every day the items write (day-locks.ts),
 * then the named attributes with share locks, in id order. Days first: a value batch never waits
 * for a day while holding an attribute lock another value batch needs, since value batches' share
 * locks never conflict; ownership changes take no day locks.
 */
async function lockDaysAndAttributes(trx: Knex.Transaction, userId: number, targets: Target[]): Promise<Map<string, WritableAttribute>> {
  const { rows } = await trx
    .raw(LOCK_DAYS_AND_ATTRIBUTES_SQL, [
      DAY_LOCK_NAMESPACE,
      sqlArray(
        dayLockKeys(
          userId,
          targets.map((t) => t.date),
        ),
      ),
      userId,
      sqlArray([...new Set(targets.map((t) => t.name))]),
    ])
    .options(PREPARED);
  return new Map((rows as WritableAttribute[]).map((row) => [row.name, row]));
}

const LOCK_DAYS_AND_ATTRIBUTES_SQL = `with ${DAY_LOCKS_CTE}
  select ${WRITABLE_COLUMNS.map((c) => `a.${c}`).join(', ')}
    from day_locks, attributes a
   where a.user_id = ? and a.name = any(?::text[])
   order by a.id
     for share of a`;

/** The database part of a batch: everything after the checks that need none. */
async function applyWrites(trx: Knex.Transaction, context: WriteContext, outcomes: Outcomes<WrittenItem>, targets: Target[]): Promise<void> {
  const attributes = await lockDaysAndAttributes(trx, context.userId, targets);
  const operations = operationsOf(targets, attributes, context, outcomes);
  if (operations.length === 0) return;
  const days = [...applyInOrder(operations, await startingTotals(trx, context.userId, operations), outcomes).values()];
  if (days.length === 0) return;
  await writeTotals(trx, context, days);
  const tagDates = days.filter((d) => isTag(d.attribute)).map((d) => d.date);
  if (tagDates.length > 0) await refreshCustomTexts(trx, context, tagDates);
}

/**
 * The one-statement path (verified-write.ts): the attributes as remembered from the person's last
 * batch, or read without locks, the rules in memory, one statement that writes if they are
 * unchanged. Undefined when the batch needs the locked path: tags, several increments of a day, a
 * bounded total, a changed attribute, a total that overflows.
 */
async function writeInOneStatement(
  db: Knex,
  context: WriteContext,
  items: Item[],
  checked: Checked<Target>,
  targets: Target[],
): Promise<BatchResult<WrittenItem> | undefined> {
  const names = targets.map((t) => t.name);
  const remembered = rememberedAttributes(context.userId, names);
  if (remembered) {
    // Only a batch every item of which passes on what is remembered is written from it: a failure
    // might come from a stale memory, so it is decided on a fresh read.
    const outcomes = outcomesAfter<WrittenItem>(items, checked);
    const operations = operationsOf(targets, remembered, context, outcomes);
    if (operations.length === targets.length && suitsVerifiedWrite(operations)) {
      const written = await writeVerified(db, context, items, outcomes, operations);
      if (written) return written;
    }
    forgetAttributes(context.userId);
  }
  const attributes = await readAttributes(db, context.userId, names);
  rememberAttributes(context.userId, attributes.values());
  const outcomes = outcomesAfter<WrittenItem>(items, checked);
  const operations = operationsOf(targets, attributes, context, outcomes);
  // Every item failed a rule: the batch changes nothing, as of the attributes just read.
  if (operations.length === 0) return outcomes.result();
  if (!suitsVerifiedWrite(operations)) return undefined;
  return writeVerified(db, context, items, outcomes, operations);
}

/** The one statement, and the successes' answers; undefined when it wrote nothing (something changed, or a total overflowed). */
async function writeVerified(
  db: Knex,
  context: WriteContext,
  items: Item[],
  outcomes: Outcomes<WrittenItem>,
  operations: Operation[],
): Promise<BatchResult<WrittenItem> | undefined> {
  let totals: Map<string, number> | undefined;
  try {
    totals = await verifiedWrite(db, context, operations);
  } catch (error) {
    // 22003: a float total overflowed; the locked path fails that item alone.
    if ((error as { code?: string }).code === FLOAT_OVERFLOW) return undefined;
    throw error;
  }
  if (!totals) return undefined;
  for (const operation of operations) {
    const item = items[operation.index];
    outcomes.succeed(operation.index, written(item, operation, totals.get(dayKey(operation.attribute.id, operation.date))));
  }
  return outcomes.result();
}

/** PostgreSQL's "value out of range" (a float8 sum past the largest double). */
const FLOAT_OVERFLOW = '22003';

/** Applies a batch of value writes in one transaction; the answer lists every item in the order sent. */
export async function writeValues(db: Knex, context: WriteContext, writes: ValueWrite[]): Promise<BatchResult<WrittenItem>> {
  const items = writes.map((write) => write.item);
  const checked = checkEach(items, (_item, index) => checkFields(writes[index], index, context));
  const targets = passed(checked);
  if (targets.length === 0) return outcomesAfter<WrittenItem>(items, checked).result();
  const written = await writeInOneStatement(db, context, items, checked, targets);
  if (written) return written;
  // The locked path: the request's credentials are rechecked and counted first, if no statement did.
  await context.check?.settleBeforeWrite(db);
  return inBatchTransaction(db, async (trx) => {
    const outcomes = outcomesAfter<WrittenItem>(items, checked);
    await applyWrites(trx, context, outcomes, targets);
    return outcomes.result();
  });
}

/** `POST /api/2/attributes/update/`: every item sets a day's value. */
export async function updateValues(db: Knex, context: WriteContext, items: Item[]): Promise<BatchResult<UpdateSuccess>> {
  // Every item is an update: each success is an UpdateSuccess (see `written`).
  return (await writeValues(
    db,
    context,
    items.map((item) => ({ kind: 'update', item })),
  )) as BatchResult<UpdateSuccess>;
}

/** `POST /api/2/attributes/increment/`: every item adds to a day's value. */
export async function incrementValues(db: Knex, context: WriteContext, items: Item[]): Promise<BatchResult<IncrementSuccess>> {
  // Every item is an increment: each success is an IncrementSuccess (see `written`).
  return (await writeValues(
    db,
    context,
    items.map((item) => ({ kind: 'increment', item })),
  )) as BatchResult<IncrementSuccess>;
}

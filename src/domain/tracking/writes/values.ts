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
import type { Database } from '../../../db/database';
import { type BatchResult, type Checked, checkEach, inBatchTransaction, type Item, type Outcomes, outcomesAfter, passed } from './batch';
import { readAttributes, type WriteContext } from './context';
import { dayKey, forgetAttributes, rememberAttributes, rememberedAttributes, suitsVerifiedWrite, verifiedWrite } from './verified-write';
import { applyWrites } from './locked-values';
import {
  checkFields,
  operationsOf,
  written,
  type IncrementSuccess,
  type Operation,
  type Target,
  type UpdateSuccess,
  type ValueWrite,
  type WrittenItem,
} from './value-items';

export type { IncrementSuccess, UpdateSuccess, ValueWrite } from './value-items';

/**
 * The one-statement path (verified-write.ts): the attributes as remembered from the person's last
 * batch, or read without locks, the rules in memory, one statement that writes if they are
 * unchanged. Undefined when the batch needs the locked path: tags, several increments of a day, a
 * bounded total, a changed attribute, a total that overflows.
 */
async function writeInOneStatement(
  db: Database,
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
  db: Database,
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
    // Only an increment answers its day's total (an update's key was built and looked up for nothing).
    const total = operation.kind === 'increment' ? totals.get(dayKey(operation.attribute.id, operation.date)) : undefined;
    outcomes.succeed(operation.index, written(items[operation.index], operation, total));
  }
  return outcomes.result();
}

/** PostgreSQL's "value out of range" (a float8 sum past the largest double). */
const FLOAT_OVERFLOW = '22003';

/** Applies a batch of value writes in one transaction; the answer lists every item in the order sent. */
export async function writeValues(db: Database, context: WriteContext, writes: ValueWrite[]): Promise<BatchResult<WrittenItem>> {
  const items = writes.map((write) => write.item);
  const checked = checkEach(items, (_item, index) => checkFields(writes[index], index, context));
  const targets = passed(checked);
  if (targets.length === 0) return outcomesAfter<WrittenItem>(items, checked).result();
  const written = await writeInOneStatement(db, context, items, checked, targets);
  if (written) return written;
  // The locked path: its transaction starts once the request's guard has run (src/db/database.ts).
  return inBatchTransaction(await db.knex(), async (trx) => {
    const outcomes = outcomesAfter<WrittenItem>(items, checked);
    await applyWrites(trx, context, outcomes, targets);
    return outcomes.result();
  });
}

/** `POST /api/2/attributes/update/`: every item sets a day's value. */
export async function updateValues(db: Database, context: WriteContext, items: Item[]): Promise<BatchResult<UpdateSuccess>> {
  // Every item is an update: each success is an UpdateSuccess (see `written`).
  return (await writeValues(
    db,
    context,
    items.map((item) => ({ kind: 'update', item })),
  )) as BatchResult<UpdateSuccess>;
}

/** `POST /api/2/attributes/increment/`: every item adds to a day's value. */
export async function incrementValues(db: Database, context: WriteContext, items: Item[]): Promise<BatchResult<IncrementSuccess>> {
  // Every item is an increment: each success is an IncrementSuccess (see `written`).
  return (await writeValues(
    db,
    context,
    items.map((item) => ({ kind: 'increment', item })),
  )) as BatchResult<IncrementSuccess>;
}

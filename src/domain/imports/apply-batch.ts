/**
 * One batch of an import (docs/imports.md, "Batches"): a fixed number of statements whatever its
 * length, in one transaction for a real run:
 *
 * 1. one read of the days the batch names (with the day locks of the days whose tags it may write,
 *    taken first as every value write takes them, and share locks on its attributes, so nobody
 *    changes their value type or deletes them before the batch commits);
 * 2. (keep/replace decided in memory) one statement that writes the added and replaced days and
 *    marks them changed in `value_changes`, as every write does;
 * 3. when tags were written, the days' custom text rebuilt from their tags (custom-tags.ts: one
 *    read, one upsert, and the `custom` attribute created the first time);
 * 4. the import's checkpoint (engine.ts), by the caller, in the same transaction.
 *
 * Without day locks on the other days, a value another writer stores between steps 1 and 2 is
 * never overwritten by a day the batch thought empty (`on conflict do nothing` under keep).
 */
import type { Knex } from 'knex';
import { inTransaction, knexRaw, sql } from '../../db/sql';
import { ItemError } from '../tracking/writes/batch';
import { checkValue } from '../tracking/writes/value-rules';
import { refreshCustomTexts } from '../tracking/writes/custom-tags';
import type { WriteContext } from '../tracking/writes/context';
import { dayLockKeys, dayLocks } from '../tracking/writes/day-locks';
import { dayKey } from '../tracking/writes/verified-write';
import { writeDays } from '../tracking/writes/stored-days';
import { NO_VALUE, readFileValue } from './cells';
import type { ResolvedColumn } from './resolve';
import type { ExistingDays, FileValue, ImportCounts, ImportProblem } from './types';

/** A value that passed the rules, for one day of one column's attribute. */
export interface DayValue {
  column: ResolvedColumn;
  date: string;
  value: number | string;
}

export type Outcome = keyof ImportCounts;

/** The checks that need no database: each value read by its attribute's type and checked by the write rules. */
export function checkBatch(
  values: FileValue[],
  columns: ReadonlyMap<string, ResolvedColumn>,
  refuse: (column: string, problem: ImportProblem) => void,
): DayValue[] {
  // A day given twice in one batch: the later value is the day's (as two writes would leave it).
  const days = new Map<string, DayValue>();
  for (const value of values) {
    const column = columns.get(value.key);
    if (!column) continue;
    try {
      const read = readFileValue(column.attribute.value_type, value.value);
      if (read === NO_VALUE) continue;
      const checked = checkValue(column.attribute, read);
      const key = `${column.key}|${value.date}`;
      days.delete(key);
      days.set(key, { column, date: value.date, value: checked });
    } catch (error) {
      if (!(error instanceof ItemError)) throw error;
      refuse(column.key, { where: value.where, column: column.key, message: error.message });
    }
  }
  return [...days.values()];
}

interface StoredRow {
  attribute_id: string | number;
  date: string;
  value_type: number;
  value_num: number | null;
  value_text: string | null;
}

/** The attribute changed under the import (deleted, or another value type): the run stops. */
export class AttributeChanged extends Error {}

/** Step 1: what the days hold now. */
async function storedDays(db: Knex, userId: number, days: DayValue[], lockDates: string[]): Promise<Map<string, StoredRow>> {
  const stored = days.filter((d) => d.column.attribute.id !== 0);
  if (stored.length === 0) return new Map();
  const statement = sql`with ${dayLocks(dayLockKeys(userId, lockDates))}
    select k.attribute_id, k.date::text as date, a.value_type, v.value_num, v.value_text
      from day_locks, unnest(${stored.map((d) => d.column.attribute.id)}::bigint[], ${stored.map((d) => d.date)}::date[]) as k(attribute_id, date)
      join attributes a on a.user_id = ${userId} and a.id = k.attribute_id
      left join attribute_values v on v.user_id = ${userId} and v.attribute_id = k.attribute_id and v.date = k.date
       for share of a`;
  const rows = (await db.raw(...knexRaw(statement))) as { rows: StoredRow[] };
  const found = new Map<string, StoredRow>(rows.rows.map((row) => [dayKey(Number(row.attribute_id), row.date), row]));
  for (const day of stored) {
    const row = found.get(dayKey(day.column.attribute.id, day.date));
    if (!row || row.value_type !== day.column.attribute.value_type) {
      throw new AttributeChanged(`The attribute ${day.column.attribute.name} was deleted or changed during the import.`);
    }
  }
  return found;
}

function sameValue(day: DayValue, row: StoredRow): boolean {
  return typeof day.value === 'string' ? row.value_text === day.value : row.value_num === day.value;
}

/** What happens to each day, given what is stored and keep/replace. */
function decide(day: DayValue, row: StoredRow | undefined, existing: ExistingDays): Outcome {
  if (!row || (row.value_num === null && row.value_text === null)) return 'added';
  if (sameValue(day, row)) return 'unchanged';
  return existing === 'replace' && day.column.replaceable ? 'changed' : 'kept';
}

/**
 * Step 2: the days to write, with their dates marked changed for the derived data. Under keep, a
 * day that was empty when read and is not any more keeps what another writer stored.
 */
async function storeDays(trx: Knex.Transaction, context: WriteContext, days: DayValue[], existing: ExistingDays): Promise<void> {
  const values = days.map((d) => ({ attribute: d.column.attribute, date: d.date, value: d.value }));
  await inTransaction(trx, writeDays(context, values, existing));
}

/**
 * Decides (and, with `trx`, applies) a batch's days. `db` is the transaction for a real run, the
 * pool for a dry run (which writes nothing). Answers each day's outcome, in order.
 */
export async function applyDays(db: Knex, context: WriteContext, days: DayValue[], options: { existing: ExistingDays; write: boolean }): Promise<Outcome[]> {
  const tagDates = days.filter((d) => d.column.isTag).map((d) => d.date);
  const stored = await storedDays(db, context.userId, days, options.write ? tagDates : []);
  const outcomes = days.map((day) => decide(day, stored.get(dayKey(day.column.attribute.id, day.date)), options.existing));
  if (!options.write) return outcomes;
  const toWrite = days.filter((_day, index) => outcomes[index] === 'added' || outcomes[index] === 'changed');
  if (toWrite.length === 0) return outcomes;
  const trx = db as Knex.Transaction;
  await storeDays(trx, context, toWrite, options.existing);
  const retext = toWrite.filter((d) => d.column.isTag).map((d) => d.date);
  if (retext.length > 0) await refreshCustomTexts(trx, context, retext);
  return outcomes;
}

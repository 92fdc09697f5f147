/**
 * Writing a day's value: update (the day's total, replacing the previous value) and increment
 * (a delta added atomically in the database, from 0 on a day without a value). Each write also
 * records the changed (user, date) in `value_changes`, in the same transaction, for the
 * derived-data jobs.
 */
import type { Knex } from 'knex';
import { PREPARED } from '../../db/knex';
import { storedValue } from '../values';
import { type Item, ItemError, requireFields, stringField } from './batch';
import { lockAttribute, requireOwner, requireWriteScope, type WriteContext } from './context';
import { checkDate, checkDelta, checkTotal, checkValue } from './value-rules';
import { isTag, refreshCustomText } from './custom-tags';

/** Marks a person's day as changed for the derived-data jobs. */
export async function recordChange(trx: Knex.Transaction, context: WriteContext, date: string): Promise<void> {
  await trx('value_changes')
    .insert({ user_id: context.userId, date, changed_at: context.now })
    .onConflict(['user_id', 'date'])
    .merge(['changed_at'])
    .options(PREPARED);
}

/** One update item: `{name, date, value}`, all required. Echoes the item. */
export async function updateValue(trx: Knex.Transaction, context: WriteContext, item: Item, index: number): Promise<Item> {
  requireFields(item, index, ['name', 'date', 'value']);
  const name = stringField(item, index, 'name');
  const date = checkDate(index, item.date);
  const attribute = await lockAttribute(trx, context.userId, name, 'share');
  requireWriteScope(context.access, attribute);
  requireOwner(context, attribute);
  const value = checkValue(attribute, item.value);
  await trx('attribute_values')
    .insert({ user_id: context.userId, attribute_id: attribute.id, date, ...storedValue(attribute.value_type, value), updated_at: context.now })
    .onConflict(['user_id', 'attribute_id', 'date'])
    .merge(['value_num', 'value_text', 'updated_at'])
    .options(PREPARED);
  await recordChange(trx, context, date);
  if (isTag(attribute)) await refreshCustomText(trx, context, date);
  return item;
}

/**
 * One increment item: `{name, value, date?}`. The new total is computed by Postgres in one upsert,
 * so concurrent increments never lose one another; a total outside the attribute's range rolls
 * the item back. Echoes the item with its date and `current`, the day's new total.
 */
export async function incrementValue(trx: Knex.Transaction, context: WriteContext, item: Item, index: number): Promise<Item> {
  requireFields(item, index, ['name', 'value']);
  const name = stringField(item, index, 'name');
  const date = item.date === undefined ? context.today : checkDate(index, item.date);
  const attribute = await lockAttribute(trx, context.userId, name, 'share');
  requireWriteScope(context.access, attribute);
  requireOwner(context, attribute);
  const delta = checkDelta(attribute, item.value);
  let row: { value_num: number };
  try {
    [row] = await trx('attribute_values')
      .insert({ user_id: context.userId, attribute_id: attribute.id, date, value_num: delta, value_text: null, updated_at: context.now })
      .onConflict(['user_id', 'attribute_id', 'date'])
      .merge({
        value_num: trx.raw('coalesce(attribute_values.value_num, 0) + excluded.value_num'),
        updated_at: context.now,
      })
      .returning<Array<{ value_num: number }>>('value_num')
      .options(PREPARED);
  } catch (error) {
    // 22003: the sum overflows double precision (found by the fuzz suite: two increments of 1e308 were a 500).
    if ((error as { code?: string }).code === '22003') throw new ItemError('validation', `Attribute ${attribute.name}: the total would not be a finite number.`);
    throw error;
  }
  const current = row.value_num;
  if (!Number.isFinite(current)) throw new ItemError('validation', `Attribute ${attribute.name}: the total would not be a finite number.`);
  checkTotal(attribute, current);
  await recordChange(trx, context, date);
  if (isTag(attribute)) await refreshCustomText(trx, context, date);
  return { ...item, date, current };
}

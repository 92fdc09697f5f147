/**
 * The items of a value batch (docs/batch-writes.md): what an update or increment item says, the
 * checks that need no database, the attribute's rules for one item, and what the answer shows for
 * a written item. Shared by the one-statement path (values.ts, verified-write.ts) and the locked
 * path (locked-values.ts).
 */
import type { components } from '../../../../generated/types/v2';
import { type Item, type Outcomes, requireFields, stringField } from './batch';
import { foundAttribute, requireOwner, requireWriteScope, type WritableAttribute, type WriteContext } from './context';
import { checkDate, checkDelta, checkValue } from './value-rules';

/** Update: the item's value becomes the day's total. Increment: the item's value is added to it. */
export type ValueWriteKind = 'update' | 'increment';

export interface ValueWrite {
  kind: ValueWriteKind;
  item: Item;
}

/** An item that passed the checks that need no database. */
export interface Target {
  index: number;
  kind: ValueWriteKind;
  name: string;
  date: string;
  value: unknown;
}

/** An item that also passed the attribute's rules: what it does to which day. */
export interface Operation extends Target {
  attribute: WritableAttribute;
  /** The total for an update, the delta for an increment. */
  amount: number | string;
}

/** An update's success: the item as sent (the document's UpdateItem). */
export type UpdateSuccess = components['schemas']['UpdateItem'];
/** An increment's success: the item as sent with its day and the day's new total. */
export type IncrementSuccess = components['schemas']['IncrementSuccess'];
export type WrittenItem = UpdateSuccess | IncrementSuccess;

/**
 * What the answer shows for a written item. Its fields passed checkFields and its value
 * checkValue/checkDelta, so it is the document's UpdateItem (an increment's value a number); an
 * increment adds its day and the day's total after it, which every written day has.
 */
export function written(item: Item, operation: Operation, current?: number): WrittenItem {
  const sent = item as UpdateSuccess;
  if (operation.kind === 'update') return sent;
  if (current === undefined) throw new Error(`No total for the written day ${operation.date} of ${operation.name}.`);
  return { ...sent, value: sent.value as number, date: operation.date, current };
}

/** A day of one attribute, as the batch leaves it. */
export interface DayTotal {
  attribute: WritableAttribute;
  date: string;
  total: number | string;
}

/** Update items are `{name, date, value}`; increment items `{name, value, date?}` (today when left out). */
export function checkFields(write: ValueWrite, index: number, context: WriteContext): Target {
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
export function operationsOf(
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

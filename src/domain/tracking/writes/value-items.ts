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
  return incrementAnswer(sent, sent.value as number, operation.date, current);
}

/**
 * `{ ...sent, value, date, current }`: the item's keys in the order sent, the day and its total
 * added. An item of the document's usual shapes (`name, date, value` or `name, value`) is spelled
 * field by field, in that order: spreading an object JSON.parse made costs V8 ~1.5 µs, a literal
 * ~0.03 µs (docs/request-path.md, "Issue 35, third stop"). Any other key order takes the spread.
 */
function incrementAnswer(sent: UpdateSuccess, value: number, date: string, current: number): IncrementSuccess {
  const keys = Object.keys(sent);
  if (keys[0] === 'name' && keys[1] === 'date' && keys[2] === 'value' && keys.length === 3) return { name: sent.name, date, value, current };
  if (keys[0] === 'name' && keys[1] === 'value' && keys.length === 2) return { name: sent.name, value, date, current };
  return { ...sent, value, date, current };
}

/** A day of one attribute, as the batch leaves it. */
export interface DayTotal {
  attribute: WritableAttribute;
  date: string;
  total: number | string;
}

const UPDATE_FIELDS = ['name', 'date', 'value'] as const;
const INCREMENT_FIELDS = ['name', 'value'] as const;

/** Update items are `{name, date, value}`; increment items `{name, value, date?}` (today when left out). */
export function checkFields(write: ValueWrite, index: number, context: WriteContext): Target {
  const { kind, item } = write;
  requireFields(item, index, kind === 'update' ? UPDATE_FIELDS : INCREMENT_FIELDS);
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
  return operationOf(target, attribute, amount);
}

/**
 * The operation of a target, spelled field by field: `{ ...target, attribute, amount }` made V8 copy
 * the target through its slow object-spread path, ~2 µs per item, most of checkAttribute's cost in
 * the bench's profile (docs/request-path.md, "Issue 35, third stop"). Every field of Target is here.
 */
function operationOf(target: Target, attribute: WritableAttribute, amount: number | string): Operation {
  return { index: target.index, kind: target.kind, name: target.name, date: target.date, value: target.value, attribute, amount };
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

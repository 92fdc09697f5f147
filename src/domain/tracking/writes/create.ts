/**
 * Creating attributes: from a template, or from a label, an existing group and a value type
 * (manual by default). The new attribute belongs to the calling service. A created attribute's
 * name derives from its label (docs/decisions.md, "Values and writes"; label-name.ts): an ASCII
 * spelling of the label in any script, or `custom_<n>` where there is none, and `_2` when that is a
 * template's name; a custom tag keeps underscores for spaces.
 */
import type { components } from '../../../../generated/types/v2';
import type { Database } from '../../../db/database';
import { empty, sql, type Sql } from '../../../db/sql';
import { GROUP_NAMES } from '../../../db/catalogue-groups';
import { TEMPLATES_BY_NAME } from '../../../db/catalogue-templates';
import { type BatchResult, checkEach, type Item, ItemError, optionalBooleanField, outcomesAfter, passed, requireFields, stringField } from './batch';
import { requireWriteScope, servicesRemembered, type WritableAttribute, type WriteContext } from './context';
import { type AttributeRow, insertAttributesStatement, templateAttributeRow, templateNamed } from './new-attributes';
import { isCustomTag, TAG_PRIORITY } from '../custom-tag';
import { nameFromLabel } from './label-name';

export const LABEL_MAX_LENGTH = 100;
/** Priority of created attributes that are not tags: below 10, so they are shown by default. */
export const CREATED_PRIORITY = 5;

/** A label item's checked fields, and the name its label gives before clash suffixes (nameFromLabel, worked out once). */
function checkCustomItem(item: Item, index: number): { label: string; group: string; valueType: number; labelName: string } {
  requireFields(item, index, ['label', 'group', 'value_type']);
  const label = stringField(item, index, 'label').trim();
  const group = stringField(item, index, 'group');
  const valueType = item.value_type;
  if (typeof valueType !== 'number' || !Number.isInteger(valueType)) {
    throw new ItemError('invalid_type', `Item ${index}: value_type must be an integer from 0 to 8.`);
  }
  if (valueType < 0 || valueType > 8) throw new ItemError('validation', `Item ${index}: value_type must be from 0 to 8.`);
  if (!(GROUP_NAMES as readonly string[]).includes(group)) throw new ItemError('not_found', `There is no group named ${group}.`);
  if (label.length === 0 || label.length > LABEL_MAX_LENGTH) {
    throw new ItemError('validation', `Item ${index}: a label is 1 to ${LABEL_MAX_LENGTH} characters.`);
  }
  const labelName = nameFromLabel(label);
  if (labelName === '') throw new ItemError('validation', `Item ${index}: the label needs at least one letter or digit (in any script).`);
  return { label, group, valueType, labelName };
}

/**
 * The name a created attribute gets from its label (docs/decisions.md): the label's name, except that a
 * template's name stays free for the template's own attribute, so "Steps" becomes `steps_2`.
 */
export function createdName(label: string): string {
  return clearOfTemplates(nameFromLabel(label));
}

/** A label's name (nameFromLabel) with the suffix that keeps it clear of the templates' names. */
function clearOfTemplates(base: string): string {
  if (!TEMPLATES_BY_NAME.has(base)) return base;
  let suffix = 2;
  while (TEMPLATES_BY_NAME.has(`${base}_${suffix}`)) suffix++;
  return `${base}_${suffix}`;
}

/** A label item's success: the item as sent (checkCustomItem made sure of its label, group and value type) with its name. */
export type CreateSuccess = components['schemas']['CreateSuccess'];

export interface Created {
  attribute: WritableAttribute;
  /** A template item: answered with the full attribute object whatever `success_objects` says. */
  fromTemplate: boolean;
  /** The item as sent with the created name: a label item's answer (a template item is answered with the full attribute). */
  item: CreateSuccess;
}

/**
 * A label item's answer: `{ ...sent, name, priority, manual }`, the item's keys in the order sent,
 * then the name, with what was stored, not what was sent (a sent `priority` or `manual` is replaced
 * by the stored one). The usual key orders are written as literals: V8 copies an object made by
 * `JSON.parse` through its slow spread path, about 1.5 µs an item (docs/request-path.md, "Issue
 * 35, fourth stop"); any other item is spread.
 */
function echoOf(sent: Item, attribute: WritableAttribute): CreateSuccess {
  const { name, priority, manual } = attribute;
  const keys = Object.keys(sent);
  if (keys[0] === 'label' && keys[1] === 'group' && keys[2] === 'value_type') {
    const { label, group, value_type } = sent as CreateSuccess;
    if (keys.length === 3) return { label, group, value_type, name, priority, manual };
    if (keys.length === 4 && keys[3] === 'manual') return { label, group, value_type, manual, name, priority };
  }
  return { ...(sent as CreateSuccess), name, priority, manual };
}

/** A create item after the checks that need no database: the row it would insert. */
interface CreateTarget {
  index: number;
  row: AttributeRow;
  fromTemplate: boolean;
}

function checkCreateItem(item: Item, index: number, context: WriteContext): CreateTarget {
  const manual = optionalBooleanField(item, index, 'manual') ?? true;
  if ('template' in item) {
    const template = templateNamed(stringField(item, index, 'template'));
    requireWriteScope(context.access, { name: template.name, group_name: template.group, manual });
    return { index, row: templateAttributeRow(context, template, manual), fromTemplate: true };
  }
  const { label, group, valueType, labelName } = checkCustomItem(item, index);
  const name = clearOfTemplates(labelName);
  requireWriteScope(context.access, { name, group_name: group, manual });
  // Created with the tag priority, it is a tag exactly when the one definition says so.
  const isTag = isCustomTag({ group, valueType, priority: TAG_PRIORITY });
  const row: AttributeRow = {
    user_id: context.userId,
    name,
    label,
    template_name: null,
    group_name: group,
    value_type: valueType,
    priority: isTag ? TAG_PRIORITY : CREATED_PRIORITY,
    manual,
    active: true,
    owner_client_pk: context.clientPk,
    created_at: context.now,
  };
  return { index, row, fromTemplate: false };
}

function alreadyExists(target: CreateTarget): ItemError {
  const hint = target.fromTemplate ? ': acquire it instead' : '';
  return new ItemError('already_exists', `Attribute ${target.row.name} already exists${hint}.`);
}

/**
 * The one statement of a create batch: the insert of every new attribute (a name the person has is
 * left alone: `already_exists`), then the record that the service can handle those it created.
 * With `guard` (the request's first-statement guard: src/db/database.ts), it comes first and
 * nothing is written unless it lets the request proceed; the answer then has one row even when
 * nothing was created (the guard's columns, the attribute's null).
 */
function createStatement(guard: Sql | undefined, context: WriteContext, rows: AttributeRow[]): Sql {
  return sql`with ${guard ? sql`${guard}, ` : empty}created as (
    ${insertAttributesStatement(rows, guard !== undefined)}
  ),
  services as (
    ${servicesRemembered(context, sql`created as t`)}
  )
  select ${guard ? sql`guard.*, ` : empty}t.* from ${guard ? sql`guard left join created as t on true` : sql`created as t`}`;
}

/**
 * `POST /api/2/attributes/create/`: items from a template, or a label, an existing group and a
 * value type (manual by default). Creating needs the attribute absent (the v2 document's `createAttributes`): a
 * name the person already has, or one an earlier item of the batch takes, fails `already_exists`.
 * ONE statement whatever the batch's length, without a transaction of its own (docs/batch-writes.md):
 * creating depends on nothing stored but the names, which the insert itself decides atomically.
 */
export async function createAttributes(db: Database, context: WriteContext, items: Item[]): Promise<BatchResult<Created>> {
  const checked = checkEach(items, (item, index) => checkCreateItem(item, index, context));
  const targets = passed(checked);
  const outcomes = outcomesAfter<Created>(items, checked);
  if (targets.length === 0) return outcomes.result();
  const first = new Map<string, CreateTarget>();
  for (const target of targets) {
    if (first.has(target.row.name)) outcomes.fail(target.index, alreadyExists(target));
    else first.set(target.row.name, target);
  }
  // With the guard, a batch that created nothing answers one row of nulls (and the guard's columns).
  const rows = await db.write<WritableAttribute>((guard) =>
    createStatement(
      guard,
      context,
      [...first.values()].map((t) => t.row),
    ),
  );
  const created = new Map(rows.filter((row) => row.id !== null).map((row) => [row.name, row]));
  for (const target of first.values()) {
    const attribute = created.get(target.row.name);
    if (attribute)
      outcomes.succeed(target.index, {
        attribute,
        fromTemplate: target.fromTemplate,
        item: echoOf(items[target.index], attribute),
      });
    else outcomes.fail(target.index, alreadyExists(target));
  }
  return outcomes.result();
}

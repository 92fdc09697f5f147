/**
 * Creating attributes: from a template, or from a label, an existing group and a value type
 * (manual by default). The new attribute belongs to the calling service. A created attribute's
 * name derives from its label (DESIGN): lower-cased, runs of characters other than a-z and 0-9
 * turned into `_`, trimmed, `_2`, `_3`… on a clash; a custom tag keeps underscores for spaces.
 */
import type { Knex } from 'knex';
import { GROUP_NAMES, TEMPLATES_BY_NAME } from '../../db/catalogue';
import { type Item, ItemError, optionalBooleanField, requireFields, stringField } from './batch';
import { rememberService, requireWriteScope, WRITABLE_COLUMNS, type WritableAttribute, type WriteContext } from './context';
import { createFromTemplate, templateNamed } from './ownership';
import { CUSTOM_GROUP, TAG_PRIORITY } from './custom-tags';

export const LABEL_MAX_LENGTH = 100;
/** Priority of created attributes that are not tags: below 10, so they are shown by default. */
export const CREATED_PRIORITY = 5;
/** How many `_N` suffixes to try before giving up on a name. */
const MAX_SUFFIX = 1000;

/** The name a label gives, before clash suffixes. */
export function nameFromLabel(label: string): string {
  return label
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '') // accents off: "Café" -> "cafe"
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
}

function checkCustomItem(item: Item, index: number): { label: string; group: string; valueType: number } {
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
  if (nameFromLabel(label) === '') throw new ItemError('validation', `Item ${index}: the label needs at least one letter or digit.`);
  return { label, group, valueType };
}

/**
 * Inserts the attribute under the first free name from its label; concurrent creates take the next
 * suffix. Template names stay free for the template's own attribute, so "Steps" becomes `steps_2`.
 */
async function insertWithFreeName(trx: Knex.Transaction, context: WriteContext, row: Record<string, unknown>, base: string): Promise<WritableAttribute> {
  for (let suffix = TEMPLATES_BY_NAME.has(base) ? 2 : 1; suffix <= MAX_SUFFIX; suffix++) {
    const name = suffix === 1 ? base : `${base}_${suffix}`;
    const [created] = await trx('attributes')
      .insert({ ...row, user_id: context.userId, name })
      .onConflict(['user_id', 'name'])
      .ignore()
      .returning<WritableAttribute[]>(WRITABLE_COLUMNS);
    if (created) return created;
  }
  throw new ItemError('validation', `Too many attributes are named after "${base}".`);
}

export interface Created {
  attribute: WritableAttribute;
  /** A template item: answered with the full attribute object whatever `success_objects` says. */
  fromTemplate: boolean;
}

/** One create item. */
export async function createAttribute(trx: Knex.Transaction, context: WriteContext, item: Item, index: number): Promise<Created> {
  const manual = optionalBooleanField(item, index, 'manual') ?? true;
  if ('template' in item) {
    const template = templateNamed(stringField(item, index, 'template'));
    requireWriteScope(context.access, { name: template.name, group_name: template.group, manual });
    const { attribute, created } = await createFromTemplate(trx, context, template.name, manual);
    if (!created) throw new ItemError('already_exists', `Attribute ${template.name} already exists: acquire it instead.`);
    await rememberService(trx, context, attribute.id);
    return { attribute, fromTemplate: true };
  }
  const { label, group, valueType } = checkCustomItem(item, index);
  const base = nameFromLabel(label);
  requireWriteScope(context.access, { name: base, group_name: group, manual });
  const isTag = group === CUSTOM_GROUP && valueType === 0;
  const attribute = await insertWithFreeName(
    trx,
    context,
    {
      label,
      template_name: null,
      group_name: group,
      value_type: valueType,
      priority: isTag ? TAG_PRIORITY : CREATED_PRIORITY,
      manual,
      active: true,
      owner_client_pk: context.clientPk,
      created_at: context.now,
    },
    base,
  );
  await rememberService(trx, context, attribute.id);
  return { attribute, fromTemplate: false };
}

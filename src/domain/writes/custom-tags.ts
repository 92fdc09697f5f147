/**
 * Custom tags (DESIGN, Custom tags): a tag is an integer attribute of the custom group with
 * priority 2 or more, 1 on the days it was used. The `custom` string attribute is a convenience
 * text of a day's tags, kept in step whenever a tag is written, never the source of truth: the
 * tags with value 1, underscores shown as spaces, joined by ", " in write order, the oldest dropped
 * until it fits 250 characters.
 */
import type { Knex } from 'knex';
import type { WritableAttribute, WriteContext } from './context';

export const CUSTOM_GROUP = 'custom';
export const CUSTOM_STRING_TEMPLATE = 'custom';
/** Priority of tags created by clients; the `custom` string template itself has priority 1. */
export const TAG_PRIORITY = 2;
export const CUSTOM_STRING_MAX_LENGTH = 250;

export function isTag(attribute: Pick<WritableAttribute, 'group_name' | 'value_type' | 'priority'>): boolean {
  return attribute.group_name === CUSTOM_GROUP && attribute.value_type === 0 && attribute.priority >= TAG_PRIORITY;
}

/** The day's custom text from its tag names in write order (oldest first). */
export function customText(tagNames: string[]): string {
  const labels = tagNames.map((name) => name.replace(/_/g, ' '));
  while (labels.length > 1 && labels.join(', ').length > CUSTOM_STRING_MAX_LENGTH) labels.shift();
  const text = labels.join(', ');
  return text.length > CUSTOM_STRING_MAX_LENGTH ? text.slice(0, CUSTOM_STRING_MAX_LENGTH) : text;
}

/**
 * Rewrites the day's `custom` string after a tag changed. The `custom` attribute is created (owned
 * by the writing service) when the person lacks it and a tag is used; a day that had text and lost
 * its last tag gets an empty text, since a value is never set back to null.
 */
export async function refreshCustomText(trx: Knex.Transaction, context: WriteContext, date: string): Promise<void> {
  const tags = await trx('attribute_values as v')
    .join('attributes as a', function joinAttribute() {
      this.on('a.user_id', 'v.user_id').andOn('a.id', 'v.attribute_id');
    })
    .where({ 'v.user_id': context.userId, 'v.date': date, 'a.group_name': CUSTOM_GROUP, 'a.value_type': 0, 'v.value_num': 1 })
    .where('a.priority', '>=', TAG_PRIORITY)
    .orderBy([{ column: 'v.updated_at' }, { column: 'a.name' }])
    .select<Array<{ name: string }>>('a.name');
  let custom = await trx('attributes').where({ user_id: context.userId, name: CUSTOM_STRING_TEMPLATE }).first<{ id: number } | undefined>('id');
  if (!custom && tags.length === 0) return;
  if (!custom) {
    [custom] = await trx('attributes')
      .insert({
        user_id: context.userId,
        name: CUSTOM_STRING_TEMPLATE,
        label: 'Custom tags',
        template_name: CUSTOM_STRING_TEMPLATE,
        group_name: CUSTOM_GROUP,
        value_type: 2,
        priority: 1,
        manual: false,
        owner_client_pk: context.clientPk,
      })
      .onConflict(['user_id', 'name'])
      .merge(['user_id'])
      .returning('id');
  }
  const text = customText(tags.map((tag) => tag.name));
  const existing = await trx('attribute_values').where({ user_id: context.userId, attribute_id: custom!.id, date }).first('date');
  if (!existing && text === '') return;
  await trx('attribute_values')
    .insert({ user_id: context.userId, attribute_id: custom!.id, date, value_num: null, value_text: text, updated_at: context.now })
    .onConflict(['user_id', 'attribute_id', 'date'])
    .merge(['value_num', 'value_text', 'updated_at']);
}

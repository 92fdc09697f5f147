/**
 * Custom tags (docs/decisions.md, "Custom tags"): a tag is an integer attribute of the custom group with
 * priority 2 or more, 1 on the days it was used. The `custom` string attribute is a convenience
 * text of a day's tags, kept in step whenever a tag is written, never the source of truth: the
 * tags with value 1, underscores shown as spaces, joined by ", " in write order, the oldest dropped
 * until it fits 250 characters.
 */
import type { Knex } from 'knex';
import { inTransaction, raw, sql } from '../../../db/sql';
import { CUSTOM_GROUP, isCustomTag, isCustomTagSql } from '../custom-tag';
import type { WritableAttribute, WriteContext } from './context';

import { CUSTOM_STRING_TEMPLATE, fitLabels } from './custom-text';
import { upsertDays } from './stored-days';

export { CUSTOM_STRING_TEMPLATE } from './custom-text';

/** A written attribute is a tag by the one definition (src/domain/tracking/custom-tag.ts). */
export function isTag(attribute: Pick<WritableAttribute, 'group_name' | 'value_type' | 'priority'>): boolean {
  return isCustomTag({ group: attribute.group_name, valueType: attribute.value_type, priority: attribute.priority });
}

/** The day's custom text from its tag names in write order (oldest first). */
export function customText(tagNames: string[]): string {
  return fitLabels(tagNames.map((name) => name.replace(/_/g, ' ')));
}

interface DayTagRow {
  /** 0: the person's `custom` attribute itself (date null); 1: a day's tag or text. */
  part: number;
  date: string | null;
  name: string;
  attribute_id: number;
  /** The row is the day's custom text, not a tag. */
  is_text: boolean;
}

/** Creates the person's `custom` attribute (owned by the writing service); answers its id. */
async function createCustomAttribute(trx: Knex.Transaction, context: WriteContext): Promise<number> {
  const [created] = await trx('attributes')
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
    .ignore()
    .returning<Array<{ id: number }>>('id');
  if (created) return created.id;
  // Made meanwhile by another writer (the insert waited for it to commit): no lock taken on it.
  return (await trx('attributes').where({ user_id: context.userId, name: CUSTOM_STRING_TEMPLATE }).first<{ id: number }>('id')).id;
}

/**
 * Rewrites the `custom` text of the days whose tags changed, after the batch wrote them (the
 * caller holds those days' locks). One read of the `custom` attribute and the days' tags and
 * texts, one upsert of the texts. The `custom` attribute is created when the person lacks it and
 * a tag is used; a day that had text and lost its last tag gets an empty text, since a value is
 * never set back to null.
 */
export async function refreshCustomTexts(trx: Knex.Transaction, context: WriteContext, dates: Iterable<string>): Promise<void> {
  const days = [...new Set(dates)].sort();
  const rows = await inTransaction<DayTagRow>(
    trx,
    sql`(select 0 as part, null::date as date, a.name, a.id as attribute_id, false as is_text, null::timestamptz as updated_at
          from attributes a where a.user_id = ${context.userId} and a.name = ${CUSTOM_STRING_TEMPLATE})
       union all
       (select 1, v.date, a.name, a.id, a.name = ${CUSTOM_STRING_TEMPLATE}, v.updated_at
          from attribute_values v
          join attributes a on a.user_id = v.user_id and a.id = v.attribute_id
         where v.user_id = ${context.userId} and v.date = any(${days}::date[])
           and ((${isCustomTagSql(raw('a'))} and v.value_num = 1) or a.name = ${CUSTOM_STRING_TEMPLATE}))
       order by part, date, updated_at, name`,
  );
  const tagsOf = new Map<string, string[]>(days.map((date) => [date, []]));
  const withText = new Set<string>();
  let customId: number | undefined;
  for (const row of rows) {
    if (row.part === 0) customId = row.attribute_id;
    else if (row.is_text) withText.add(row.date!);
    else tagsOf.get(row.date!)!.push(row.name);
  }
  const texts = days.filter((date) => withText.has(date) || tagsOf.get(date)!.length > 0).map((date) => ({ date, text: customText(tagsOf.get(date)!) }));
  if (texts.length === 0) return;
  customId ??= await createCustomAttribute(trx, context);
  const textRows = sql`(select ${customId}::bigint as attribute_id, t.date, null::float8 as value_num, t.text as value_text, t.position
      from unnest(${texts.map((t) => t.date)}::date[], ${texts.map((t) => t.text)}::text[]) with ordinality as t(date, text, position)) as v`;
  await inTransaction(trx, upsertDays(context, textRows, { onStored: 'replace' }));
}

/**
 * What a custom tag is, in one place (docs/decisions.md, "Custom tags"). The v2 document ("Custom
 * tags"): "Custom tags are integer (type 0) attributes in the `custom` group with priority 2 or
 * higher"; "to list a day's tags, take the custom attributes with priority 2 or higher whose value
 * is 1". Both conditions together make a
 * tag: a boolean (type 7) of the custom group is an ordinary attribute, not a tag, for the writes
 * (the day's custom text) and for the statistics alike.
 */
import { sql, type Sql } from '../../db/sql';

export const CUSTOM_GROUP = 'custom';
/** A tag's value type: integer, 1 on the days it was used. */
export const TAG_VALUE_TYPE = 0;
/** Priority of created tags; the `custom` string template itself has priority 1. */
export const TAG_PRIORITY = 2;

/** True for a custom tag: a custom-group integer attribute with priority 2 or more. */
export function isCustomTag(attribute: { group: string; valueType: number; priority: number }): boolean {
  return attribute.group === CUSTOM_GROUP && attribute.valueType === TAG_VALUE_TYPE && attribute.priority >= TAG_PRIORITY;
}

/** The same rule in SQL: the attribute row `a` (a table alias, `raw('a')`) is a custom tag. */
export function isCustomTagSql(a: Sql): Sql {
  return sql`(${a}.group_name = ${CUSTOM_GROUP}::text and ${a}.value_type = ${TAG_VALUE_TYPE}::smallint and ${a}.priority >= ${TAG_PRIORITY}::integer)`;
}

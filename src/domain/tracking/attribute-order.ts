/**
 * The order of every list of a person's attributes (docs/decisions.md, "Lists and parameters"): group
 * priority, then attribute priority, then name. Names are unique per person, so paging through a
 * list never repeats or skips one.
 */
import { raw, sql, type Sql } from '../../db/sql';

/** The order over the columns that hold the group's priority, the attribute's priority and its name. */
export function attributeOrder(groupPriority: Sql, priority: Sql, name: Sql): Sql {
  return sql`${groupPriority}, ${priority}, ${name}`;
}

/** The order over `groups g` and `attributes a`. */
export const ATTRIBUTE_ORDER = attributeOrder(raw('g.priority'), raw('a.priority'), raw('a.name'));

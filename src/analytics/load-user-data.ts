/** Reads a person's numeric series for the statistics (series.ts holds the pure shapes they compute on). */
import { rows as queryRows, sql } from '../db/sql';
import { ATTRIBUTE_ORDER } from '../domain/tracking/attribute-order';
import type { Knex } from 'knex';
import { VALUE_TYPES } from '../db/catalogue-value-types';
import { buildUserData, type UserData } from './series';

interface Row {
  id: number;
  name: string;
  label: string;
  template_name: string | null;
  group_name: string;
  group_label: string;
  group_priority: number;
  priority: number;
  value_type: number;
  manual: boolean;
  unit: string | null;
  /** "dayIndex:value" pairs joined by commas (a text aggregate parses far faster than two arrays). */
  points: string | null;
}

/**
 * Loads every numeric attribute of `userId` with its values from `from` to `to` (inclusive), in
 * one query. Values that are not finite numbers are treated as missing.
 */
export async function loadUserData(db: Knex, userId: number, from: string, to: string): Promise<UserData> {
  const rows = await queryRows<Row>(
    db,
    sql`select a.id, a.name, a.label, a.template_name, a.group_name, g.label as group_label, g.priority as group_priority,
              a.priority, a.value_type, a.manual, t.unit,
              (select string_agg((v.date - ${from}::date)::text || ':' || v.value_num::text, ',')
                 from attribute_values v
                where v.user_id = a.user_id and v.attribute_id = a.id
                  and v.date between ${from}::date and ${to}::date
                  and v.value_num is not null) as points
         from attributes a
         join groups g on g.name = a.group_name
         left join templates t on t.name = a.template_name
        where a.user_id = ${userId} and a.value_type <> ${VALUE_TYPES.string}::smallint
        order by ${ATTRIBUTE_ORDER}`,
  );
  return buildUserData(
    userId,
    from,
    to,
    rows.map((row) => ({
      id: row.id,
      name: row.name,
      label: row.label,
      template: row.template_name,
      group: row.group_name,
      groupLabel: row.group_label,
      groupPriority: row.group_priority,
      priority: row.priority,
      valueType: row.value_type,
      manual: row.manual,
      unit: row.unit,
      points: parsePoints(row.points),
    })),
  );
}

/** "3:7.5,4:8" -> [[3, 7.5], [4, 8]]. */
function parsePoints(text: string | null): Array<[number, number]> {
  if (!text) return [];
  return text.split(',').map((point) => {
    const colon = point.indexOf(':');
    return [Number(point.slice(0, colon)), Number(point.slice(colon + 1))];
  });
}

/**
 * The catalogue of templates as the API lists it. Templates are never filtered by scope (docs/decisions.md,
 * "Visibility"): any valid credentials see the whole catalogue.
 */
import type { components } from '../../../generated/types/v2';
import type { Knex } from 'knex';
import { LOW_PRIORITY } from '../../db/catalogue-templates';
import { VALUE_TYPE_DESCRIPTIONS, type ValueType } from '../../db/catalogue-value-types';
import { groupObject, type Page, type PageWindow } from './attributes';
import { MAX_OFFSET } from './values';

/** The attribute template of the v2 document (openapi/v2/schemas/AttributeTemplate.yaml). */
export type TemplateObject = components['schemas']['AttributeTemplate'];

interface TemplateRow {
  name: string;
  label: string;
  group_name: string;
  group_label: string;
  group_priority: number;
  priority: number;
  value_type: number;
  total: number;
}

export function templateObject(row: Omit<TemplateRow, 'total'>): TemplateObject {
  return {
    name: row.name,
    label: row.label,
    group: groupObject(row),
    priority: row.priority,
    value_type: row.value_type as ValueType,
    value_type_description: VALUE_TYPE_DESCRIPTIONS[row.value_type],
  };
}

/**
 * A page of templates, ordered like attributes (group priority, template priority, name: total,
 * since names are unique). Low priority (>= 10) only when asked for. One query with a window count.
 */
export async function listTemplates(
  db: Knex,
  input: { groups?: readonly string[]; includeLowPriority?: boolean; page: PageWindow },
): Promise<Page<TemplateObject>> {
  const query = db('templates as t')
    .join('groups as g', 'g.name', 't.group_name')
    .select(
      't.name',
      't.label',
      't.group_name',
      'g.label as group_label',
      'g.priority as group_priority',
      't.priority',
      't.value_type',
      db.raw('count(*) over () as total'),
    )
    .orderBy([{ column: 'g.priority' }, { column: 't.priority' }, { column: 't.name' }])
    .limit(input.page.limit)
    .offset(Math.min(input.page.offset, MAX_OFFSET));
  if (input.groups) query.whereIn('t.group_name', [...input.groups]);
  if (!input.includeLowPriority) query.where('t.priority', '<', LOW_PRIORITY);
  const rows: TemplateRow[] = await query;
  return { count: rows[0]?.total ?? 0, results: rows.map(templateObject) };
}

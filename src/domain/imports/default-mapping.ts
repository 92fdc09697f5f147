/**
 * The mapping an import starts from when nobody chose one (the CLI; the page's preview starts from
 * it too). A Daybook export says what each column is: its template, or its name, label, group,
 * value type and priority, which a new attribute keeps, so a round trip gives the same attributes
 * and custom tags stay tags. An Apple Health export's columns are templates. Other files get the proposal of mapping.ts (existing attributes by
 * name or label, then templates, else a new custom attribute).
 */
import type { Knex } from 'knex';
import { GROUP_NAMES, GROUPS } from '../../db/catalogue-groups';
import { TEMPLATES_BY_NAME } from '../../db/catalogue-templates';
import { CUSTOM_GROUP, TAG_VALUE_TYPE } from '../tracking/custom-tag';
import { proposeMapping } from './mapping';
import type { ColumnTarget, FileColumn, ImportReader, Mapping } from './types';

/** A group by name, or by its label (Daybook's CSV export names groups by label: "Food and drink"). */
function groupNamed(group: string | undefined): string {
  if (group === undefined) return CUSTOM_GROUP;
  if ((GROUP_NAMES as readonly string[]).includes(group)) return group;
  return GROUPS.find((g) => g.label.toLowerCase() === group.toLowerCase())?.name ?? group;
}

/** What a column of a Daybook export becomes. */
export function exportedColumnTarget(column: FileColumn): ColumnTarget {
  const template = column.template ?? (column.name && TEMPLATES_BY_NAME.has(column.name) ? column.name : undefined);
  if (template && TEMPLATES_BY_NAME.has(template)) return { kind: 'template', template };
  // Daybook's CSV export has no value types: a custom-group column of 0/1 is read as a tag.
  const group = groupNamed(column.group);
  const inferredTag = group === CUSTOM_GROUP && (column.valueType === 7 || column.valueType === TAG_VALUE_TYPE) && column.priority === undefined;
  return {
    kind: 'new',
    label: column.label,
    group,
    valueType: inferredTag ? TAG_VALUE_TYPE : (column.valueType ?? 1),
    ...(column.name ? { name: column.name } : {}),
    ...(column.priority !== undefined ? { priority: column.priority } : {}),
  };
}

/** The starting mapping for the file. */
export async function defaultMapping(db: Knex, userId: number, reader: ImportReader): Promise<Mapping> {
  // Apple Health's columns are templates (docs/apple-health.md): each becomes its template's attribute.
  if (reader.format === 'daybook-json' || reader.format === 'daybook-csv' || reader.format === 'apple-health') {
    return Object.fromEntries(reader.columns.map((column) => [column.key, exportedColumnTarget(column)]));
  }
  return proposeMapping(db, userId, reader.columns);
}

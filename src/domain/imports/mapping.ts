/**
 * The mapping an import proposes before anything is written (docs/imports-csv.md, "The proposed
 * mapping"): for each column of the file, in this order,
 *
 * 1. an attribute the person has: by name, then by label, case-insensitively (the file's name for
 *    the column when it gives one, else its key, then its label);
 * 2. else a catalogue template: the one the file names, else one by name, then by label;
 * 3. else a new custom attribute with the column's label, its group when the file gives a group
 *    (Daybook's own export), else `custom`, and the value type inferred from the cells;
 * 4. a column with no value and nothing to match is skipped.
 *
 * A target already taken by an earlier column is passed over (two columns would write one day
 * twice), so the later column falls through to the next rule. The person changes any of it in the
 * preview; the CLI takes it as it is.
 */
import type { Knex } from 'knex';
import { GROUP_NAMES } from '../../db/catalogue-groups';
import { TEMPLATES, TEMPLATES_BY_NAME, type TemplateDef } from '../../db/catalogue-templates';
import { knexRaw } from '../../db/sql';
import { CUSTOM_GROUP } from '../tracking/custom-tag';
import { ATTRIBUTE_ORDER } from '../tracking/attribute-order';
import type { ColumnTarget, FileColumn, Mapping } from './types';

interface Named {
  name: string;
  label: string;
}

/** Finds things by name, then by label, case-insensitively; the first of equals (list order) wins. */
class Finder<T extends Named> {
  private readonly byName = new Map<string, T>();
  private readonly byLabel = new Map<string, T[]>();

  constructor(items: readonly T[]) {
    for (const item of items) {
      if (!this.byName.has(item.name.toLowerCase())) this.byName.set(item.name.toLowerCase(), item);
      const label = item.label.trim().toLowerCase();
      this.byLabel.set(label, [...(this.byLabel.get(label) ?? []), item]);
    }
  }

  /** The first item not taken whose name is one of `names`, else whose label is one of `labels`. */
  find(names: string[], labels: string[], taken: Set<string>): T | undefined {
    for (const name of names) {
      const item = this.byName.get(name.trim().toLowerCase());
      if (item && !taken.has(item.name)) return item;
    }
    for (const label of labels) {
      const item = this.byLabel.get(label.trim().toLowerCase())?.find((candidate) => !taken.has(candidate.name));
      if (item) return item;
    }
    return undefined;
  }
}

const GROUPS = new Set<string>(GROUP_NAMES);

/** The person's attributes (name, label), in the order of every attribute list. */
async function personsAttributes(db: Knex, userId: number): Promise<Named[]> {
  return db('attributes as a')
    .join('groups as g', 'g.name', 'a.group_name')
    .where('a.user_id', userId)
    .orderByRaw(...knexRaw(ATTRIBUTE_ORDER))
    .select('a.name', 'a.label');
}

/** The proposed target of every column (see the module's comment). */
export async function proposeMapping(db: Knex, userId: number, columns: FileColumn[]): Promise<Mapping> {
  const attributes = new Finder(await personsAttributes(db, userId));
  const templates = new Finder<TemplateDef>(TEMPLATES);
  /** Attribute names taken (a template's attribute is named as the template). */
  const taken = new Set<string>();
  const mapping: Mapping = {};
  for (const column of columns) {
    const names = [column.name ?? column.key, column.label];
    const labels = [column.label, column.key];
    const target = proposeTarget(column, names, labels, taken, attributes, templates);
    if (target.kind === 'attribute') taken.add(target.name);
    if (target.kind === 'template') taken.add(target.template);
    mapping[column.key] = target;
  }
  return mapping;
}

function proposeTarget(
  column: FileColumn,
  names: string[],
  labels: string[],
  taken: Set<string>,
  attributes: Finder<Named>,
  templates: Finder<TemplateDef>,
): ColumnTarget {
  const attribute = attributes.find(names, labels, taken);
  if (attribute) return { kind: 'attribute', name: attribute.name };
  const named = column.template === undefined ? undefined : TEMPLATES_BY_NAME.get(column.template);
  const template = named && !taken.has(named.name) ? named : templates.find(names, labels, taken);
  if (template) return { kind: 'template', template: template.name };
  if (column.valueType === undefined) return { kind: 'skip' };
  const group = column.group !== undefined && GROUPS.has(column.group) ? column.group : CUSTOM_GROUP;
  return { kind: 'new', label: column.label, group, valueType: column.valueType };
}

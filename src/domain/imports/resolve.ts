/**
 * A mapping made real (docs/imports.md, "Attributes and owners"): each column's target becomes
 * one of the person's attributes. Attributes the import needs and the person lacks (a template's,
 * a new custom one) are created owned by Daybook's built-in manual service, as tracking them on
 * the pages would; attributes that exist keep their owner, whoever it is: an import writes the
 * person's history, it never takes an attribute from an app.
 */
import type { Knex } from 'knex';
import { GROUP_NAMES } from '../../db/catalogue-groups';
import { TEMPLATES_BY_NAME } from '../../db/catalogue-templates';
import { isCustomTag, TAG_PRIORITY } from '../tracking/custom-tag';
import { CREATED_PRIORITY, createdName, LABEL_MAX_LENGTH } from '../tracking/writes/create';
import { type AttributeRow, insertAttributes, templateAttributeRow } from '../tracking/writes/ownership';
import { rememberServices, WRITABLE_COLUMNS, type WritableAttribute } from '../tracking/writes/context';
import { CUSTOM_STRING_TEMPLATE } from '../tracking/writes/custom-text';
import type { ColumnTarget, FileColumn, Mapping } from './types';

/** A column's attribute, as the engine writes it. */
export interface ResolvedColumn {
  key: string;
  /** In a dry run, an attribute the real run would create has id 0 (it has no values yet). */
  attribute: WritableAttribute;
  isTag: boolean;
  /** May `replace` replace this attribute's days? Not when an app owns it (docs/imports.md). */
  replaceable: boolean;
}

/** A mapping that cannot be applied: a column names an attribute the person lacks, a bad group... */
export class MappingProblem extends Error {
  constructor(
    readonly column: string,
    message: string,
  ) {
    super(message);
    this.name = 'MappingProblem';
  }
}

export interface Resolved {
  columns: Map<string, ResolvedColumn>;
  /** Names of the attributes created (or that a dry run would create). */
  created: string[];
}

const isTagAttribute = (a: Pick<WritableAttribute, 'group_name' | 'value_type' | 'priority'>) =>
  isCustomTag({ group: a.group_name, valueType: a.value_type, priority: a.priority });

/** The row a `new` target creates. */
function newAttributeRow(userId: number, ownerPk: number, key: string, target: Extract<ColumnTarget, { kind: 'new' }>, now: Date): AttributeRow {
  const label = target.label.trim();
  if (label.length === 0 || label.length > LABEL_MAX_LENGTH) throw new MappingProblem(key, `A label is 1 to ${LABEL_MAX_LENGTH} characters.`);
  if (!(GROUP_NAMES as readonly string[]).includes(target.group)) throw new MappingProblem(key, `There is no group named ${target.group}.`);
  if (!Number.isInteger(target.valueType) || target.valueType < 0 || target.valueType > 8) {
    throw new MappingProblem(key, 'A value type is an integer from 0 to 8.');
  }
  const name = target.name !== undefined && /^[a-z0-9_]{1,100}$/.test(target.name) ? target.name : createdName(label);
  if (name === '') throw new MappingProblem(key, 'The label needs at least one letter or digit (in any script).');
  const tag = isCustomTag({ group: target.group, valueType: target.valueType, priority: TAG_PRIORITY });
  const priority = target.priority !== undefined && Number.isInteger(target.priority) ? target.priority : tag ? TAG_PRIORITY : CREATED_PRIORITY;
  return {
    user_id: userId,
    name,
    label,
    template_name: null,
    group_name: target.group,
    value_type: target.valueType,
    priority,
    manual: true,
    active: true,
    owner_client_pk: ownerPk,
    created_at: now,
  };
}

/** The attribute a target wants: an existing one's name, or the row to create. */
function wanted(
  userId: number,
  ownerPk: number,
  key: string,
  target: Exclude<ColumnTarget, { kind: 'skip' }>,
  now: Date,
): { name: string; row?: AttributeRow } {
  if (target.kind === 'attribute') return { name: target.name };
  if (target.kind === 'template') {
    const template = TEMPLATES_BY_NAME.get(target.template);
    if (!template) throw new MappingProblem(key, `There is no template named ${target.template}.`);
    return { name: template.name, row: templateAttributeRow({ userId, clientPk: ownerPk, now }, template, true) };
  }
  const row = newAttributeRow(userId, ownerPk, key, target, now);
  return { name: row.name, row };
}

export interface ResolveInput {
  userId: number;
  /** Daybook's built-in manual service: owner of what the import creates. */
  manualPk: number;
  columns: FileColumn[];
  mapping: Mapping;
  /** Create what is missing (a real run) or only say what would be created (a dry run). */
  create: boolean;
  now: Date;
}

/**
 * Resolves every mapped column: one read of the person's attributes, then (a real run) one insert
 * of the missing ones in one transaction. Columns the file has but the mapping lacks are skipped.
 */
export async function resolveMapping(db: Knex, input: ResolveInput): Promise<Resolved> {
  const { userId, manualPk, now } = input;
  const wants = new Map<string, { name: string; row?: AttributeRow }>();
  for (const column of input.columns) {
    const target = input.mapping[column.key];
    if (!target || target.kind === 'skip') continue;
    wants.set(column.key, wanted(userId, manualPk, column.key, target, now));
  }
  return db.transaction(async (trx) => {
    const names = [...new Set([...wants.values()].map((w) => w.name))];
    const rows = await trx('attributes').where({ user_id: userId }).whereIn('name', names).select<WritableAttribute[]>(WRITABLE_COLUMNS);
    const existing = new Map(
      rows.map((row) => [row.name, { ...row, id: Number(row.id), owner_client_pk: row.owner_client_pk === null ? null : Number(row.owner_client_pk) }]),
    );
    // The day's custom text is rebuilt from its tags (custom-tags.ts), which also create the
    // `custom` attribute as every tag write does: with tags in the file, a column of the text
    // itself would only be overwritten, so it is left out.
    const rowOf = (want: { name: string; row?: AttributeRow }) => existing.get(want.name) ?? (want.row as unknown as WritableAttribute | undefined);
    if ([...wants.values()].some((want) => rowOf(want) && isTagAttribute(rowOf(want)!))) {
      for (const [key, want] of wants) if (want.name === CUSTOM_STRING_TEMPLATE || rowOf(want)?.template_name === CUSTOM_STRING_TEMPLATE) wants.delete(key);
    }
    const toCreate = new Map<string, AttributeRow>();
    for (const [key, want] of wants) {
      const found = existing.get(want.name);
      if (found) {
        if (want.row && want.row.value_type !== found.value_type) {
          throw new MappingProblem(key, `You already have an attribute ${want.name} with another value type; map the column to it or to another attribute.`);
        }
      } else if (!want.row) throw new MappingProblem(key, `You have no attribute named ${want.name}.`);
      else toCreate.set(want.name, want.row);
    }
    let created = new Map<string, WritableAttribute>();
    if (input.create && toCreate.size > 0) {
      created = await insertAttributes(trx, [...toCreate.values()]);
      if (created.size < toCreate.size) throw new MappingProblem('', 'Some attributes were created meanwhile; run the import again.');
      await rememberServices(
        trx,
        { userId, clientPk: manualPk, now },
        [...created.values()].map((a) => Number(a.id)),
      );
    } else {
      // A dry run: what the real run would create, with no id (nothing of it is stored yet).
      for (const [name, row] of toCreate) created.set(name, { ...(row as unknown as WritableAttribute), id: 0 });
    }
    const columns = new Map<string, ResolvedColumn>();
    for (const [key, want] of wants) {
      const attribute = existing.get(want.name) ?? { ...created.get(want.name)!, id: Number(created.get(want.name)!.id) };
      const owner = attribute.owner_client_pk === null ? null : Number(attribute.owner_client_pk);
      columns.set(key, { key, attribute, isTag: isTagAttribute(attribute), replaceable: owner === null || owner === manualPk });
    }
    return { columns, created: [...toCreate.keys()].sort() };
  });
}

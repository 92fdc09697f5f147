/**
 * The rules of an acquire batch (ownership.ts says what acquiring means), applied in memory over
 * the attributes the batch names, item after item (a later item sees an earlier one's effect), and
 * the update that hands the taken attributes to the service. Shared by the one-statement path
 * (verified-acquire.ts), which applies them to the attributes as read, and the locked path
 * (ownership.ts), which applies them to the attributes as locked.
 */
import type { TemplateDef } from '../../../db/catalogue-templates';
import { empty, sql, type Sql } from '../../../db/sql';
import { type Item, ItemError, optionalBooleanField, type Outcomes, stringField } from './batch';
import { foundAttribute, requireWriteScope, type WritableAttribute, type WriteContext } from './context';
import { type AttributeRow, templateAttributeRow, templateNamed } from './new-attributes';

/** An acquire item after the checks that need no database. */
export type AcquireTarget = { index: number; manual: boolean | undefined } & ({ template: TemplateDef } | { name: string });

export function checkAcquireItem(item: Item, index: number, context: WriteContext): AcquireTarget {
  if (!('template' in item) && !('name' in item)) {
    throw new ItemError('missing_field', `Item ${index} is missing required fields: template or name.`);
  }
  const manual = optionalBooleanField(item, index, 'manual');
  if (!('template' in item)) return { index, manual, name: stringField(item, index, 'name') };
  const template = templateNamed(stringField(item, index, 'template'));
  requireWriteScope(context.access, { name: template.name, group_name: template.group, manual: manual ?? false });
  return { index, manual, template };
}

export const nameOf = (target: AcquireTarget): string => ('template' in target ? target.template.name : target.name);

/** What an acquire batch changes, as its items decided. */
export interface AcquirePlan {
  /** Templates' attributes the person lacks: created, owned by the service. */
  toCreate: Map<string, AttributeRow>;
  /** Existing attributes the batch takes, by name, with the manual flag its items set (undefined: unchanged). */
  taken: Map<string, { manual: boolean | undefined }>;
}

/**
 * Applies the items' rules to `attributes` (the person's attributes the batch names, by name):
 * each item succeeds (its answer is the attribute's name) or fails in `outcomes`.
 */
export function planAcquires(
  context: WriteContext,
  attributes: ReadonlyMap<string, WritableAttribute>,
  outcomes: Outcomes<string>,
  targets: AcquireTarget[],
): AcquirePlan {
  const toCreate = new Map<string, AttributeRow>();
  const taken = new Map<string, { manual: boolean | undefined }>();
  /** The attribute as the earlier items of the batch left it. */
  const current = (name: string): { group_name: string; manual: boolean } => {
    const planned = toCreate.get(name);
    if (planned) return { group_name: planned.group_name, manual: planned.manual };
    const attribute = foundAttribute(attributes, name);
    return { group_name: attribute.group_name, manual: taken.get(name)?.manual ?? attribute.manual };
  };
  for (const target of targets) {
    const name = nameOf(target);
    const ok = outcomes.attempt(target.index, () => {
      if ('template' in target && !attributes.has(name) && !toCreate.has(name)) {
        // Created from the template: its group is the template's, already checked with the scopes.
        toCreate.set(name, templateAttributeRow(context, target.template, target.manual ?? false));
        return true;
      }
      const { group_name, manual } = current(name);
      requireWriteScope(context.access, { name, group_name, manual: target.manual ?? manual });
      if (toCreate.has(name)) toCreate.get(name)!.manual = target.manual ?? manual;
      else taken.set(name, { manual: target.manual ?? taken.get(name)?.manual });
      return true;
    });
    if (ok) outcomes.succeed(target.index, name);
  }
  return { toCreate, taken };
}

/** The taken attributes as ids (sorted: rows are locked and written in id order) with their manual flags. */
export function takenIds(plan: AcquirePlan, attributes: ReadonlyMap<string, WritableAttribute>): Array<{ id: number; manual: boolean | undefined }> {
  return [...plan.taken].map(([name, { manual }]) => ({ id: attributes.get(name)!.id, manual })).sort((a, b) => a.id - b.id);
}

/**
 * The update that makes the service the owner of the taken attributes and makes them active, with
 * the manual flag the items set. A row that already is exactly so is left alone (a service syncing
 * a person re-acquires what it owns: no new row version, and no ownership change either way for
 * the webhooks' trigger). `condition` (a fragment over the statement's other CTEs) gates it.
 */
export function takeOwnership(context: WriteContext, taken: Array<{ id: number; manual: boolean | undefined }>, from?: Sql, condition?: Sql): Sql {
  return sql`update attributes a set owner_client_pk = ${context.clientPk}::bigint, active = true, manual = coalesce(t.manual, a.manual)
      from ${from ? sql`${from}, ` : empty}unnest(${taken.map((t) => t.id)}::bigint[], ${taken.map((t) => t.manual ?? null)}::boolean[]) as t(id, manual)
     where ${condition ? sql`${condition} and ` : empty}a.user_id = ${context.userId} and a.id = t.id
       and (a.owner_client_pk is distinct from ${context.clientPk}::bigint or not a.active or a.manual <> coalesce(t.manual, a.manual))`;
}

/**
 * Who owns an attribute: exactly one service at a time, or nobody. Follows the v2 document's
 * `acquireAttributes` and `releaseAttributes`:
 * acquire by template creates the attribute when the person lacks it; acquire by name takes it from
 * any other service or from nobody (no approval needed beyond the token's scopes); release by the
 * owner hands it to another connected service that can handle it, else makes it inactive; release
 * by anyone else fails with `unauthorised` and changes nothing. A service that releases an
 * attribute can no longer handle it: ownership never comes back to it on another's release.
 *
 * Set-based (docs/batch-writes.md): one locking read of every named attribute (update locks, in id
 * order), the rules applied in memory item after item (a later item sees an earlier one's effect),
 * then one statement per kind of change.
 */
import type { Knex } from 'knex';
import { TEMPLATES_BY_NAME, type TemplateDef } from '../../../db/catalogue-templates';
import { inTransaction, raw, sql } from '../../../db/sql';
import { ableToHandle, lastConnected } from '../able-services';
import {
  type BatchResult,
  checkEach,
  inBatchTransaction,
  type Item,
  ItemError,
  optionalBooleanField,
  type Outcomes,
  outcomesAfter,
  passed,
  requireFields,
  stringField,
} from './batch';
import { foundAttribute, lockAttributes, rememberServices, requireWriteScope, WRITABLE_COLUMNS, type WritableAttribute, type WriteContext } from './context';

/** A template by name, or `not_found`. */
export function templateNamed(name: string): TemplateDef {
  const template = TEMPLATES_BY_NAME.get(name);
  if (!template) throw new ItemError('not_found', `There is no template named ${name}.`);
  return template;
}

/** A new attribute's row, as inserted. */
export type AttributeRow = Record<string, unknown> & { name: string };

/** The row a template's attribute starts as, owned by the calling service (the API's creation and the demo loader). */
export function templateAttributeRow(context: Pick<WriteContext, 'userId' | 'clientPk' | 'now'>, template: TemplateDef, manual: boolean): AttributeRow {
  return {
    user_id: context.userId,
    name: template.name,
    label: template.label,
    template_name: template.name,
    group_name: template.group,
    value_type: template.valueType,
    priority: template.priority,
    manual,
    active: true,
    owner_client_pk: context.clientPk,
    created_at: context.now,
  };
}

/**
 * Inserts attribute rows in name order (so concurrent batches creating the same names never wait
 * on each other in a cycle). Returns the created rows by name; a name that exists is left alone
 * and absent from the answer.
 */
export async function insertAttributes(trx: Knex.Transaction, rows: AttributeRow[]): Promise<Map<string, WritableAttribute>> {
  if (rows.length === 0) return new Map();
  const sorted = [...rows].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const created = await trx('attributes').insert(sorted).onConflict(['user_id', 'name']).ignore().returning<WritableAttribute[]>(WRITABLE_COLUMNS);
  return new Map(created.map((row) => [row.name, row]));
}

/** An acquire item after the checks that need no database. */
type AcquireTarget = { index: number; manual: boolean | undefined } & ({ template: TemplateDef } | { name: string });

function checkAcquireItem(item: Item, index: number, context: WriteContext): AcquireTarget {
  if (!('template' in item) && !('name' in item)) {
    throw new ItemError('missing_field', `Item ${index} is missing required fields: template or name.`);
  }
  const manual = optionalBooleanField(item, index, 'manual');
  if (!('template' in item)) return { index, manual, name: stringField(item, index, 'name') };
  const template = templateNamed(stringField(item, index, 'template'));
  requireWriteScope(context.access, { name: template.name, group_name: template.group, manual: manual ?? false });
  return { index, manual, template };
}

const nameOf = (target: AcquireTarget) => ('template' in target ? target.template.name : target.name);

/** A concurrent batch created a template's attribute between our read and our insert: start again. */
class CreatedMeanwhile extends Error {}

/** The database part of an acquire batch. */
async function applyAcquires(trx: Knex.Transaction, context: WriteContext, outcomes: Outcomes<string>, targets: AcquireTarget[]): Promise<void> {
  const attributes = await lockAttributes(trx, context.userId, targets.map(nameOf), 'update');
  const toCreate = new Map<string, AttributeRow>();
  /** Existing attributes this batch takes, with the manual flag its items set (undefined: unchanged). */
  const changed = new Map<string, { manual: boolean | undefined }>();
  /** The attribute as the earlier items of the batch left it. */
  const current = (name: string): { group_name: string; manual: boolean } => {
    const planned = toCreate.get(name);
    if (planned) return { group_name: planned.group_name as string, manual: planned.manual as boolean };
    const attribute = foundAttribute(attributes, name);
    return { group_name: attribute.group_name, manual: changed.get(name)?.manual ?? attribute.manual };
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
      else changed.set(name, { manual: target.manual ?? changed.get(name)?.manual });
      return true;
    });
    if (ok) outcomes.succeed(target.index, name);
  }
  const created = await insertAttributes(trx, [...toCreate.values()]);
  if (created.size < toCreate.size) throw new CreatedMeanwhile();
  const taken = [...changed].map(([name, { manual }]) => ({ id: attributes.get(name)!.id, manual }));
  if (taken.length > 0) {
    taken.sort((a, b) => a.id - b.id);
    await inTransaction(
      trx,
      sql`update attributes a set owner_client_pk = ${context.clientPk}, active = true, manual = coalesce(t.manual, a.manual)
         from unnest(${taken.map((t) => t.id)}::bigint[], ${taken.map((t) => t.manual ?? null)}::boolean[]) as t(id, manual)
        where a.user_id = ${context.userId} and a.id = t.id`,
    );
  }
  await rememberServices(trx, context, [...taken.map((t) => t.id), ...[...created.values()].map((a) => a.id)]);
}

/** Attempts of an acquire batch that keeps meeting templates created meanwhile by other batches. */
const MAX_ACQUIRE_ATTEMPTS = 5;

/**
 * `POST /api/2/attributes/acquire/`: items `{template}` or `{name}`, optional `manual`. The calling
 * service becomes the owner and the attribute active again; acquiring what it already owns
 * succeeds again. Each success is the attribute's name.
 */
export async function acquireAttributes(db: Knex, context: WriteContext, items: Item[]): Promise<BatchResult<string>> {
  const checked = checkEach(items, (item, index) => checkAcquireItem(item, index, context));
  const targets = passed(checked);
  if (targets.length === 0) return outcomesAfter<string>(items, checked).result();
  for (let attempt = 1; ; attempt++) {
    try {
      return await inBatchTransaction(db, async (trx) => {
        const outcomes = outcomesAfter<string>(items, checked);
        await applyAcquires(trx, context, outcomes, targets);
        return outcomes.result();
      });
    } catch (error) {
      // Rolled back; the next attempt's locking read finds the attribute the other batch made.
      if (!(error instanceof CreatedMeanwhile) || attempt >= MAX_ACQUIRE_ATTEMPTS) throw error;
    }
  }
}

/**
 * The services that take over attributes their owner releases (docs/decisions.md, "Values and writes"), one query for the batch:
 * per attribute, among the other services that acquired it before and are still connected to the
 * person (a live token; Daybook's built-in services need none), the most recently connected.
 */
async function nextOwners(trx: Knex.Transaction, context: WriteContext, attributeIds: number[]): Promise<Map<number, number>> {
  if (attributeIds.length === 0) return new Map();
  const rows = await inTransaction<{ attribute_id: number; client_pk: number }>(
    trx,
    sql`select distinct on (s.attribute_id) s.attribute_id, s.client_pk
      from attribute_services s join oauth_clients c on c.id = s.client_pk
     where s.user_id = ${context.userId} and s.attribute_id = any(${attributeIds}::bigint[]) and s.client_pk <> ${context.clientPk}
       and ${ableToHandle(raw('s'), raw('c'), context.now)}
     order by s.attribute_id, ${lastConnected(raw('s'), context.now)} desc nulls last, s.client_pk desc`,
  );
  return new Map(rows.map((row) => [row.attribute_id, row.client_pk]));
}

/** The database part of a release batch. */
async function applyReleases(
  trx: Knex.Transaction,
  context: WriteContext,
  outcomes: Outcomes<string>,
  targets: Array<{ index: number; name: string }>,
): Promise<void> {
  const attributes = await lockAttributes(
    trx,
    context.userId,
    targets.map((t) => t.name),
    'update',
  );
  const released = new Map<number, WritableAttribute>();
  for (const target of targets) {
    const ok = outcomes.attempt(target.index, () => {
      const attribute = foundAttribute(attributes, target.name);
      requireWriteScope(context.access, attribute);
      // Released earlier in this batch: no longer this service's.
      if (attribute.owner_client_pk !== context.clientPk || released.has(attribute.id)) {
        throw new ItemError('unauthorised', `Attribute ${attribute.name} does not belong to this service.`);
      }
      released.set(attribute.id, attribute);
      return true;
    });
    if (ok) outcomes.succeed(target.index, target.name);
  }
  if (released.size === 0) return;
  const ids = [...released.keys()].sort((a, b) => a - b);
  const next = await nextOwners(trx, context, ids);
  await inTransaction(
    trx,
    sql`update attributes a set owner_client_pk = t.owner, active = t.owner is not null
       from unnest(${ids}::bigint[], ${ids.map((id) => next.get(id) ?? null)}::bigint[]) as t(id, owner)
      where a.user_id = ${context.userId} and a.id = t.id`,
  );
  // It released them: it no longer "can handle" them (`available_services`, the v2 document's `releaseAttributes`).
  await trx('attribute_services').where({ user_id: context.userId, client_pk: context.clientPk }).whereIn('attribute_id', ids).delete();
}

/** `POST /api/2/attributes/release/`: items `{name}`. Each success is the attribute's name. */
export async function releaseAttributes(db: Knex, context: WriteContext, items: Item[]): Promise<BatchResult<string>> {
  const checked = checkEach(items, (item, index) => {
    requireFields(item, index, ['name']);
    return { index, name: stringField(item, index, 'name') };
  });
  const targets = passed(checked);
  if (targets.length === 0) return outcomesAfter<string>(items, checked).result();
  return inBatchTransaction(db, async (trx) => {
    const outcomes = outcomesAfter<string>(items, checked);
    await applyReleases(trx, context, outcomes, targets);
    return outcomes.result();
  });
}

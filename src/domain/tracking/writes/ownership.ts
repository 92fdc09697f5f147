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
import type { Database } from '../../../db/database';
import { inTransaction, raw, sql } from '../../../db/sql';
import { ableToHandle, lastConnected } from '../able-services';
import {
  type BatchResult,
  checkEach,
  inBatchTransaction,
  type Item,
  ItemError,
  type Outcomes,
  outcomesAfter,
  passed,
  requireFields,
  stringField,
} from './batch';
import { foundAttribute, lockAttributes, rememberServices, requireWriteScope, type WritableAttribute, type WriteContext } from './context';
import { type AcquireTarget, checkAcquireItem, nameOf, planAcquires, takenIds, takeOwnership } from './acquire-plan';
import { insertAttributes } from './new-attributes';
import { acquireInOneStatement } from './verified-acquire';

/** A concurrent batch created a template's attribute between our read and our insert: start again. */
class CreatedMeanwhile extends Error {}

/** The database part of an acquire batch on the locked path. */
async function applyAcquires(trx: Knex.Transaction, context: WriteContext, outcomes: Outcomes<string>, targets: AcquireTarget[]): Promise<void> {
  const attributes = await lockAttributes(trx, context.userId, targets.map(nameOf), 'update');
  const plan = planAcquires(context, attributes, outcomes, targets);
  const created = await insertAttributes(trx, [...plan.toCreate.values()]);
  if (created.size < plan.toCreate.size) throw new CreatedMeanwhile();
  const taken = takenIds(plan, attributes);
  if (taken.length > 0) await inTransaction(trx, takeOwnership(context, taken));
  await rememberServices(trx, context, [...taken.map((t) => t.id), ...[...created.values()].map((a) => a.id)]);
}

/** Attempts of an acquire batch that keeps meeting templates created meanwhile by other batches. */
const MAX_ACQUIRE_ATTEMPTS = 5;

/**
 * `POST /api/2/attributes/acquire/`: items `{template}` or `{name}`, optional `manual`. The calling
 * service becomes the owner and the attribute active again; acquiring what it already owns
 * succeeds again. Each success is the attribute's name.
 *
 * A batch that creates nothing (every attribute it names exists: a service syncing a person
 * re-acquires what it uses) is one statement (verified-acquire.ts); one that creates a template's
 * attribute takes the locked path: one transaction of a fixed number of statements.
 */
export async function acquireAttributes(db: Database, context: WriteContext, items: Item[]): Promise<BatchResult<string>> {
  const checked = checkEach(items, (item, index) => checkAcquireItem(item, index, context));
  const targets = passed(checked);
  if (targets.length === 0) return outcomesAfter<string>(items, checked).result();
  const done = await acquireInOneStatement(db, context, items, checked, targets);
  if (done) return done;
  // The locked path: its transaction starts once the request's guard has run (src/db/database.ts).
  const knex = await db.knex();
  for (let attempt = 1; ; attempt++) {
    try {
      return await inBatchTransaction(knex, async (trx) => {
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

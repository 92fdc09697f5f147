/**
 * Who owns an attribute: exactly one service at a time, or nobody. Follows the spec's state table:
 * acquire by template creates the attribute when the person lacks it; acquire by name takes it from
 * any other service or from nobody (no approval needed beyond the token's scopes); release by the
 * owner hands it to another connected service that can handle it, else makes it inactive; release
 * by anyone else fails with `unauthorised` and changes nothing.
 */
import type { Knex } from 'knex';
import { TEMPLATES_BY_NAME } from '../../db/catalogue';
import { liveTokenCondition } from '../tokens';
import { type Item, ItemError, optionalBooleanField, requireFields, stringField } from './batch';
import { lockAttribute, rememberService, requireWriteScope, WRITABLE_COLUMNS, type WritableAttribute, type WriteContext } from './context';

/** A template by name, or `not_found`. */
export function templateNamed(name: string) {
  const template = TEMPLATES_BY_NAME.get(name);
  if (!template) throw new ItemError('not_found', `There is no template named ${name}.`);
  return template;
}

/**
 * Creates the person's attribute from a template, owned by the calling service, unless it exists
 * (then the existing row is returned, locked). Safe against a concurrent create of the same name.
 */
export async function createFromTemplate(
  trx: Knex.Transaction,
  context: WriteContext,
  templateName: string,
  manual: boolean,
): Promise<{ attribute: WritableAttribute; created: boolean }> {
  const template = templateNamed(templateName);
  const [created] = await trx('attributes')
    .insert({
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
    })
    .onConflict(['user_id', 'name'])
    .ignore()
    .returning<WritableAttribute[]>(WRITABLE_COLUMNS);
  if (created) return { attribute: created, created: true };
  return { attribute: await lockAttribute(trx, context.userId, template.name, 'update'), created: false };
}

/**
 * One acquire item: `{template}` or `{name}`, optional `manual`. The calling service becomes the
 * owner and the attribute active again; acquiring what it already owns succeeds again. Returns the
 * attribute's name.
 */
export async function acquireAttribute(trx: Knex.Transaction, context: WriteContext, item: Item, index: number): Promise<string> {
  if (!('template' in item) && !('name' in item)) {
    throw new ItemError('missing_field', `Item ${index} is missing required fields: template or name.`);
  }
  const manual = optionalBooleanField(item, index, 'manual');
  let attribute: WritableAttribute;
  if ('template' in item) {
    const template = templateNamed(stringField(item, index, 'template'));
    requireWriteScope(context.access, { name: template.name, group_name: template.group, manual: manual ?? false });
    ({ attribute } = await createFromTemplate(trx, context, template.name, manual ?? false));
  } else {
    attribute = await lockAttribute(trx, context.userId, stringField(item, index, 'name'), 'update');
  }
  requireWriteScope(context.access, { ...attribute, manual: manual ?? attribute.manual });
  await trx('attributes')
    .where({ user_id: context.userId, id: attribute.id })
    .update({ owner_client_pk: context.clientPk, active: true, ...(manual === undefined ? {} : { manual }) });
  await rememberService(trx, context, attribute.id);
  return attribute.name;
}

/**
 * The service that takes over an attribute its owner released (DESIGN): among the other services
 * that acquired it before and are still connected to the person (a live token; Daybook's built-in
 * services need none), the most recently connected.
 */
export async function nextOwnerAfterRelease(trx: Knex.Transaction, context: WriteContext, attributeId: number): Promise<number | undefined> {
  const row = await trx('attribute_services as s')
    .join('oauth_clients as c', 'c.id', 's.client_pk')
    .leftJoin('tokens as t', function joinLiveTokens() {
      this.on('t.user_id', 's.user_id').andOn('t.client_pk', 's.client_pk').andOn(liveTokenCondition(trx, 't', context.now));
    })
    .where({ 's.user_id': context.userId, 's.attribute_id': attributeId })
    .whereNot('s.client_pk', context.clientPk)
    .where((connected) => connected.where('c.builtin', true).orWhereNotNull('t.id'))
    .groupBy('s.client_pk', 'c.builtin')
    .orderByRaw('max(t.created_at) desc nulls last, s.client_pk desc')
    .first<{ client_pk: number } | undefined>('s.client_pk');
  return row?.client_pk;
}

/** One release item: `{name}`. Returns the attribute's name. */
export async function releaseAttribute(trx: Knex.Transaction, context: WriteContext, item: Item, index: number): Promise<string> {
  requireFields(item, index, ['name']);
  const attribute = await lockAttribute(trx, context.userId, stringField(item, index, 'name'), 'update');
  requireWriteScope(context.access, attribute);
  if (attribute.owner_client_pk !== context.clientPk) {
    throw new ItemError('unauthorised', `Attribute ${attribute.name} does not belong to this service.`);
  }
  const next = await nextOwnerAfterRelease(trx, context, attribute.id);
  await trx('attributes')
    .where({ user_id: context.userId, id: attribute.id })
    .update(next === undefined ? { owner_client_pk: null, active: false } : { owner_client_pk: next });
  return attribute.name;
}

/**
 * Who is writing and what they may touch. Writing is for OAuth2 clients (the document's security
 * answers 403 to anyone else); a client writes only attributes whose group its token may write,
 * or manual attributes with `manual_write`. Checks use the attribute's current group.
 */
import type { Knex } from 'knex';
import { PREPARED } from '../../db/knex';
import type { Access } from '../scopes';
import { ItemError } from './batch';

export interface WriteContext {
  userId: number;
  /** The calling client (service): `oauth_clients.id`. */
  clientPk: number;
  access: Access;
  now: Date;
  /** The person's today, for increments without a date. */
  today: string;
}

/** The attribute columns the write rules need. */
export interface WritableAttribute {
  id: number;
  name: string;
  label: string;
  template_name: string | null;
  group_name: string;
  value_type: number;
  priority: number;
  manual: boolean;
  active: boolean;
  owner_client_pk: number | null;
}

export const WRITABLE_COLUMNS = ['id', 'name', 'label', 'template_name', 'group_name', 'value_type', 'priority', 'manual', 'active', 'owner_client_pk'];

/** May the token write an attribute of `group` that is (or will be) manual or not? */
export function mayWrite(access: Access, attribute: { group_name: string; manual: boolean }): boolean {
  return access.writableGroups.has(attribute.group_name) || (attribute.manual && access.manualWrite);
}

export function requireWriteScope(access: Access, attribute: { name: string; group_name: string; manual: boolean }): void {
  if (!mayWrite(access, attribute)) {
    throw new ItemError(
      'forbidden_scope',
      `This token may not write attribute ${attribute.name}: it needs the ${attribute.group_name}_write scope${attribute.manual ? ' or manual_write' : ''}.`,
    );
  }
}

/**
 * The person's attribute `name`, locked for the rest of the item's transaction, or `not_found`.
 * Value writes take a share lock (they may run side by side; an ownership change waits for them),
 * ownership changes an update lock (one at a time, so two acquires end with one owner).
 */
export async function lockAttribute(trx: Knex.Transaction, userId: number, name: string, mode: 'share' | 'update'): Promise<WritableAttribute> {
  const query = trx('attributes').where({ user_id: userId, name }).options(PREPARED);
  const locked = mode === 'share' ? query.forShare() : query.forUpdate();
  const attribute = await locked.first<WritableAttribute | undefined>(WRITABLE_COLUMNS);
  if (!attribute) throw new ItemError('not_found', `There is no attribute named ${name}.`);
  return attribute;
}

/** Values are written only by the attribute's owner (acquire or create it first). */
export function requireOwner(context: WriteContext, attribute: WritableAttribute): void {
  if (attribute.owner_client_pk !== context.clientPk) {
    throw new ItemError('unauthorised', `Attribute ${attribute.name} does not belong to this service: acquire it first.`);
  }
}

/** Records that the service can handle the attribute (DESIGN: it acquired it before). */
export async function rememberService(trx: Knex.Transaction, context: WriteContext, attributeId: number): Promise<void> {
  await trx('attribute_services')
    .insert({ user_id: context.userId, attribute_id: attributeId, client_pk: context.clientPk, acquired_at: context.now })
    .onConflict(['user_id', 'attribute_id', 'client_pk'])
    .merge({ acquired_at: context.now });
}

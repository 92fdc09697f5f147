/**
 * Who is writing and what they may touch. Writing is for OAuth2 clients (the document's security
 * answers 403 to anyone else); a client writes only attributes whose group its token may write,
 * or manual attributes with `manual_write`. Checks use the attribute's current group.
 */
import type { Knex } from 'knex';
import type { Database } from '../../../db/database';
import { inTransaction, raw, sql, type Sql } from '../../../db/sql';
import type { Access } from '../../apps-and-grants/scopes';
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
const WRITABLE_LIST = raw(WRITABLE_COLUMNS.join(', '));

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
 * How a batch locks the attributes it names, for the rest of its transaction. Value writes take a
 * share lock (they run side by side; an ownership change waits for them); ownership changes take
 * an update lock (one at a time, so two acquires end with one owner).
 */
export type AttributeLock = 'share' | 'update';

/** The person's attributes among `names`, by name, read without locks (the one-statement path checks them again). */
export async function readAttributes(db: Database, userId: number, names: Iterable<string>): Promise<Map<string, WritableAttribute>> {
  const wanted = [...new Set(names)];
  if (wanted.length === 0) return new Map();
  return byName(await db.read<WritableAttribute>(attributesNamed(userId, wanted, sql``)));
}

/**
 * The person's attributes among `names`, by name, locked in one statement. Rows are locked in id
 * order, so two batches naming the same attributes in different orders never wait on each other
 * in a cycle. Names the person lacks are simply absent from the map.
 */
export async function lockAttributes(
  trx: Knex.Transaction,
  userId: number,
  names: Iterable<string>,
  mode: AttributeLock,
): Promise<Map<string, WritableAttribute>> {
  const wanted = [...new Set(names)];
  if (wanted.length === 0) return new Map();
  return byName(await inTransaction<WritableAttribute>(trx, attributesNamed(userId, wanted, mode === 'share' ? sql` for share` : sql` for update`)));
}

/** The person's attributes named `names`, in id order, then `lock`. */
const attributesNamed = (userId: number, names: string[], lock: Sql) =>
  sql`select ${WRITABLE_LIST} from attributes where user_id = ${userId} and name = any(${names}::text[]) order by id${lock}`;

const byName = (rows: WritableAttribute[]) => new Map(rows.map((row) => [row.name, row]));

/** The named attribute from a batch's locked rows, or `not_found`. */
export function foundAttribute(attributes: ReadonlyMap<string, WritableAttribute>, name: string): WritableAttribute {
  const attribute = attributes.get(name);
  if (!attribute) throw new ItemError('not_found', `There is no attribute named ${name}.`);
  return attribute;
}

/** Values are written only by the attribute's owner (acquire or create it first). */
export function requireOwner(context: WriteContext, attribute: WritableAttribute): void {
  if (attribute.owner_client_pk !== context.clientPk) {
    throw new ItemError('unauthorised', `Attribute ${attribute.name} does not belong to this service: acquire it first.`);
  }
}

/**
 * The insert that records that the service can handle these attributes (docs/decisions.md: it
 * acquired them before), rows in id order; `ids` is a fragment of the ids as `t(id)`: a bound array,
 * or a CTE of the same statement (the one-statement acquire and create).
 */
export function servicesRemembered(context: Pick<WriteContext, 'userId' | 'clientPk' | 'now'>, ids: Sql): Sql {
  return sql`insert into attribute_services (user_id, attribute_id, client_pk, acquired_at)
       select ${context.userId}::bigint, t.id, ${context.clientPk}::bigint, ${context.now}::timestamptz from ${ids} order by t.id
       on conflict (user_id, attribute_id, client_pk) do update set acquired_at = excluded.acquired_at`;
}

/** Records, in one statement, that the service can handle these attributes. */
export async function rememberServices(
  trx: Knex.Transaction,
  context: Pick<WriteContext, 'userId' | 'clientPk' | 'now'>,
  attributeIds: Iterable<number>,
): Promise<void> {
  const ids = [...new Set(attributeIds)].sort((a, b) => a - b);
  if (ids.length === 0) return;
  await inTransaction(trx, servicesRemembered(context, sql`unnest(${ids}::bigint[]) as t(id)`));
}

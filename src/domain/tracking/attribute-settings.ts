/**
 * The person's own attribute settings (docs/decisions.md, "What Daybook takes from the interface":
 * the person chooses the owner too): who owns each attribute, handing it to another service able to handle it,
 * deactivating it, and version 1's per-attribute `private` flag.
 *
 * A service "able to handle" an attribute is the rule of docs/decisions.md ("Values and writes"), the same as the API's
 * available_services: a client connected to the person (a live token; built-in services always
 * are) that has acquired that attribute for them before (an attribute_services row).
 */
import type { Knex } from 'knex';
import { invalidInput, notFoundError } from '../errors';
import { knexRaw, raw } from '../../db/sql';
import { ableToHandle } from './able-services';
import { ATTRIBUTE_ORDER } from './attribute-order';

export interface ServiceRef {
  clientPk: number;
  /** The service name on the wire (the client id). */
  name: string;
  label: string;
}

export interface AttributeSetting {
  name: string;
  label: string;
  groupLabel: string;
  active: boolean;
  private: boolean;
  manual: boolean;
  owner: ServiceRef | null;
  /** Services that could own it now, the current owner included when it qualifies. */
  candidates: ServiceRef[];
}

/** Services able to handle each of the person's attributes (able-services.ts), keyed by attribute id, earliest acquirer first (as available_services). */
async function capableServices(db: Knex, userId: number, now: Date): Promise<Map<number, ServiceRef[]>> {
  const rows = await db('attribute_services as s')
    .join('oauth_clients as c', 'c.id', 's.client_pk')
    .where('s.user_id', userId)
    .whereRaw(...knexRaw(ableToHandle(raw('s'), raw('c'), now)))
    .orderBy([{ column: 's.acquired_at' }, { column: 'c.client_id' }])
    .select('s.attribute_id', 'c.id', 'c.client_id', 'c.name');
  const byAttribute = new Map<number, ServiceRef[]>();
  for (const row of rows) {
    const list = byAttribute.get(row.attribute_id) ?? [];
    list.push({ clientPk: row.id, name: row.client_id, label: row.name });
    byAttribute.set(row.attribute_id, list);
  }
  return byAttribute;
}

/** Every attribute of the person (inactive ones too), in display order, with owner and candidates. */
export async function listAttributeSettings(db: Knex, userId: number, now: Date): Promise<AttributeSetting[]> {
  const rows = await db('attributes as a')
    .join('groups as g', 'g.name', 'a.group_name')
    .leftJoin('oauth_clients as c', 'c.id', 'a.owner_client_pk')
    .where('a.user_id', userId)
    .orderByRaw(...knexRaw(ATTRIBUTE_ORDER))
    .select(
      'a.id',
      'a.name',
      'a.label',
      'a.active',
      'a.private',
      'a.manual',
      'g.label as group_label',
      'c.id as owner_pk',
      'c.client_id as owner_name',
      'c.name as owner_label',
    );
  const capable = await capableServices(db, userId, now);
  return rows.map((row) => ({
    name: row.name,
    label: row.label,
    groupLabel: row.group_label,
    active: row.active,
    private: row.private,
    manual: row.manual,
    owner: row.owner_pk ? { clientPk: row.owner_pk, name: row.owner_name, label: row.owner_label } : null,
    candidates: capable.get(row.id) ?? [],
  }));
}

async function attributeId(db: Knex, userId: number, name: string): Promise<number> {
  const row = await db('attributes').where({ user_id: userId, name }).first('id');
  if (!row) throw notFoundError(`You have no attribute named ${name}.`);
  return row.id;
}

/** Hands an attribute to another service able to handle it; the attribute becomes active. */
export async function changeAttributeOwner(db: Knex, userId: number, name: string, serviceName: string, now: Date): Promise<ServiceRef> {
  const id = await attributeId(db, userId, name);
  const service = ((await capableServices(db, userId, now)).get(id) ?? []).find((candidate) => candidate.name === serviceName);
  if (!service) {
    throw invalidInput(`${serviceName} cannot own ${name}: only a connected app that has handled this attribute before can.`);
  }
  await db('attributes').where({ user_id: userId, id }).update({ owner_client_pk: service.clientPk, active: true });
  return service;
}

/** Deactivates an attribute: nobody owns it and lists hide it unless inactive ones are asked for. */
export async function deactivateAttribute(db: Knex, userId: number, name: string): Promise<void> {
  const id = await attributeId(db, userId, name);
  await db('attributes').where({ user_id: userId, id }).update({ owner_client_pk: null, active: false });
}

/** Version 1's `private` flag: a private attribute never appears in another person's view. */
export async function setAttributePrivate(db: Knex, userId: number, name: string, isPrivate: boolean): Promise<void> {
  const id = await attributeId(db, userId, name);
  await db('attributes').where({ user_id: userId, id }).update({ private: isPrivate });
}

/**
 * A person's attributes as the API lists them: the filters, the visibility rule, the order, and the
 * spec's Attribute object (with `service` and `available_services`), plus the with-values variant.
 *
 * Every list is one query: the page's rows carry a window count of all matching rows, and per-row
 * data (available services, the window of values) comes from correlated subqueries evaluated only
 * for the page's rows. So the cost does not grow with the page size in round trips.
 */
import type { components } from '../../../generated/types/v2';
import type { Knex } from 'knex';
import { LOW_PRIORITY, VALUE_TYPE_DESCRIPTIONS, type GroupName, type ValueType } from '../../db/catalogue';
import { DeferredCheck } from '../apps-and-grants/recent-credentials';
import { daysEndingAt } from '../time';
import { liveTokenCondition } from '../apps-and-grants/tokens';
import { MAX_OFFSET, typedValue, type JsonValue, type ValueObject } from './values';
import { whereVisible, type Visibility } from '../apps-and-grants/visibility';

/** A group embedded in an attribute or template. */
export type GroupObject = components['schemas']['Group'];

/** A service: an OAuth2 client's `client_id` as `name` and its name as `label`. */
export type ServiceObject = components['schemas']['Service'];

/** The spec's Attribute (version 2). */
export type AttributeObject = components['schemas']['Attribute'];

/** The with-values variant: no `available_services` (the spec), a window of values instead. */
export type AttributeWithValuesObject = components['schemas']['AttributeWithValues'];

/** One row of `selectAttributes`. */
export interface AttributeRow {
  id: number;
  user_id: number;
  name: string;
  label: string;
  template_name: string | null;
  group_name: string;
  group_label: string;
  group_priority: number;
  value_type: number;
  priority: number;
  manual: boolean;
  active: boolean;
  /** Version 1's per-attribute flag (docs/decisions.md, "Visibility"); not part of the v2 object. */
  private: boolean;
  service_name: string | null;
  service_label: string | null;
  available_services: ServiceObject[];
}

/** The person's attributes with every column `attributeObject` needs except `available_services`. */
function baseAttributes(db: Knex, userId: number): Knex.QueryBuilder {
  return db('attributes as a')
    .join('groups as g', 'g.name', 'a.group_name')
    .leftJoin('oauth_clients as o', 'o.id', 'a.owner_client_pk')
    .where('a.user_id', userId)
    .select(
      'a.id',
      'a.user_id',
      'a.name',
      'a.label',
      'a.template_name',
      'a.group_name',
      'g.label as group_label',
      'g.priority as group_priority',
      'a.value_type',
      'a.priority',
      'a.manual',
      'a.active',
      'a.private',
      'o.client_id as service_name',
      'o.name as service_label',
    );
}

/**
 * `available_services` of the attribute row `alias` as a JSON array (docs/decisions.md, "Values and writes"): services that
 * acquired the attribute before and are still connected to the person, i.e. hold a live token
 * (`liveTokenCondition`: not revoked, not replaced by a refresh, not expired at `now`). Daybook's
 * built-in services (manual tracking, demo data) need no token, so they always count as
 * connected. Oldest acquisition first.
 */
function availableServicesColumn(db: Knex, now: Date, alias: string): Knex.Raw {
  return db.raw(
    `coalesce((
       select json_agg(json_build_object('name', c.client_id, 'label', c.name) order by s.acquired_at, c.client_id)
       from attribute_services s
       join oauth_clients c on c.id = s.client_pk
       where s.user_id = ??.user_id and s.attribute_id = ??.id
         and (c.builtin or exists (
           select 1 from tokens t
           where t.user_id = s.user_id and t.client_pk = s.client_pk and ?))
     ), '[]'::json) as available_services`,
    [alias, alias, liveTokenCondition(db, 't', now)],
  );
}

/**
 * The base query for full attribute objects of one person, as `attributes as a` (so
 * `whereVisible` and further filters apply). For paths that answer with a few full objects, such
 * as the write endpoints' `success_objects`; the paged lists below select the same columns.
 */
export function selectAttributes(db: Knex, userId: number, now: Date): Knex.QueryBuilder {
  return baseAttributes(db, userId).select(availableServicesColumn(db, now, 'a'));
}

/**
 * The order of every attribute list: group priority, attribute priority, name. Names are unique per
 * person, so the order is total and paging never repeats or skips an attribute.
 */
export function orderAttributes(query: Knex.QueryBuilder, alias = 'a', groupAlias = 'g'): Knex.QueryBuilder {
  return query.orderBy([{ column: `${groupAlias}.priority` }, { column: `${alias}.priority` }, { column: `${alias}.name` }]);
}

/** The embedded Group from a row's `group_name`, `group_label`, `group_priority` (groups are rows of the catalogue). */
export function groupObject(row: { group_name: string; group_label: string; group_priority: number }): GroupObject {
  return { name: row.group_name as GroupName, label: row.group_label, priority: row.group_priority };
}

/** The spec's Attribute from a row of `selectAttributes`. */
export function attributeObject(row: AttributeRow): AttributeObject {
  return {
    template: row.template_name,
    name: row.name,
    label: row.label,
    group: groupObject(row),
    service: row.service_name === null ? null : { name: row.service_name, label: row.service_label ?? row.service_name },
    active: row.active,
    priority: row.priority,
    manual: row.manual,
    value_type: row.value_type as ValueType,
    value_type_description: VALUE_TYPE_DESCRIPTIONS[row.value_type],
    available_services: row.available_services,
  };
}

/** The filters of the attribute lists. Absent means no filter; an empty name list matches nothing. */
export interface AttributeFilters {
  groups?: readonly string[];
  /** Attribute names. */
  names?: readonly string[];
  /** Template names the attributes were created from. */
  templates?: readonly string[];
  /** Only attributes created from a template. */
  excludeCustom?: boolean;
  /** true: only manual; false: no manual; undefined: both. */
  manual?: boolean;
  includeInactive?: boolean;
  /** Include priority >= 10. */
  includeLowPriority?: boolean;
  /** Only attributes owned by this client (`oauth_clients.id`); null: owned by nobody asking, so nothing. */
  ownerClientPk?: number | null;
}

export interface PageWindow {
  limit: number;
  offset: number;
}

export interface Page<T> {
  /** Matching rows over all pages. */
  count: number;
  results: T[];
}

function applyFilters(query: Knex.QueryBuilder, visibility: Visibility, filters: AttributeFilters): Knex.QueryBuilder {
  whereVisible(query, visibility);
  if (filters.groups) query.whereIn('a.group_name', [...filters.groups]);
  if (filters.names) query.whereIn('a.name', [...filters.names]);
  if (filters.templates) query.whereIn('a.template_name', [...filters.templates]);
  if (filters.excludeCustom) query.whereNotNull('a.template_name');
  if (filters.manual !== undefined) query.where('a.manual', filters.manual);
  if (!filters.includeInactive) query.where('a.active', true);
  if (!filters.includeLowPriority) query.where('a.priority', '<', LOW_PRIORITY);
  if (filters.ownerClientPk === null) query.whereRaw('false');
  else if (filters.ownerClientPk !== undefined) query.where('a.owner_client_pk', filters.ownerClientPk);
  return query;
}

/**
 * One page of matching attribute rows, ordered, with `total`: a window count of every matching row
 * (a page past the end has no rows and so no total; callers need one only for page 1, where no
 * rows means 0). Per-row extras are selected around it, so they are computed for the page only.
 */
function pageQuery(db: Knex, userId: number, visibility: Visibility, filters: AttributeFilters, page: PageWindow): Knex.QueryBuilder {
  const query = baseAttributes(db, userId).select(db.raw('count(*) over () as total'));
  applyFilters(query, visibility, filters);
  return orderAttributes(query).limit(page.limit).offset(Math.min(page.offset, MAX_OFFSET));
}

/** The list order again, on the page subquery `p` (a subquery's ORDER BY does not bind the outer query). */
function orderPage(query: Knex.QueryBuilder): Knex.QueryBuilder {
  return query.orderBy([{ column: 'p.group_priority' }, { column: 'p.priority' }, { column: 'p.name' }]);
}

/**
 * A page of the person's attributes that `visibility` shows and `filters` keep, as Attribute
 * objects, in the list order. One query. Filters combine with AND.
 */
export async function listAttributes(
  db: Knex,
  input: { userId: number; visibility: Visibility; filters: AttributeFilters; page: PageWindow; now: Date; check?: DeferredCheck },
): Promise<Page<AttributeObject>> {
  if (input.filters.ownerClientPk === null) return { count: 0, results: [] };
  const page = pageQuery(db, input.userId, input.visibility, input.filters, input.page).as('p');
  const query = orderPage(db.from(page).select('p.*', availableServicesColumn(db, input.now, 'p')));
  const rows = await DeferredCheck.read<AttributeRow & { total: number }>(db, query, input.check, 'id');
  return { count: rows[0]?.total ?? 0, results: rows.map(attributeObject) };
}

/** An attribute row (with version 1's `private` flag) and its window of values, newest first. */
export interface AttributeRowWithValues {
  row: Omit<AttributeRow, 'available_services'>;
  values: ValueObject[];
}

/**
 * The rule behind with-values (v2) and the v1 attributes and today lists: attributes each with their
 * values for the `days` days ending at `dateMax`, newest first, null on a day without data. Inactive
 * and low-priority attributes are left out unless the list is narrowed by attribute or template
 * names (the named ones are wanted whatever their state). Without `page`, every matching attribute.
 * One query: each row gathers its window of stored values as JSON; the days without data are
 * filled in here.
 */
export async function listAttributeRowsWithValues(
  db: Knex,
  input: { userId: number; visibility: Visibility; filters: AttributeFilters; page?: PageWindow; dateMax: string; days: number; check?: DeferredCheck },
): Promise<Page<AttributeRowWithValues>> {
  const dates = daysEndingAt(input.dateMax, input.days);
  const named = input.filters.names !== undefined || input.filters.templates !== undefined;
  const filters: AttributeFilters = {
    ...input.filters,
    includeInactive: input.filters.includeInactive ?? named,
    includeLowPriority: input.filters.includeLowPriority ?? named,
  };
  const page = pageQuery(db, input.userId, input.visibility, filters, input.page ?? { limit: MAX_OFFSET, offset: 0 }).as('p');
  const storedValues = db.raw(
    `coalesce((
       select json_agg(json_build_object('date', v.date, 'num', v.value_num, 'text', v.value_text))
       from attribute_values v
       where v.user_id = p.user_id and v.attribute_id = p.id and v.date between ? and ?
     ), '[]'::json) as stored_values`,
    [dates[dates.length - 1], dates[0]],
  );
  type Row = Omit<AttributeRow, 'available_services'> & { total: number; stored_values: Array<{ date: string; num: unknown; text: unknown }> };
  const rows = await DeferredCheck.read<Row>(db, orderPage(db.from(page).select('p.*', storedValues)), input.check, 'id');
  return {
    count: rows[0]?.total ?? 0,
    results: rows.map(({ total: _total, stored_values: stored, ...row }) => {
      const byDate = new Map<string, JsonValue>(stored.map((v) => [v.date, typedValue(row.value_type, v.num, v.text)]));
      return { row, values: dates.map((date) => ({ date, value: byDate.get(date) ?? null })) };
    }),
  };
}

/** A page of attributes with values (`listAttributeRowsWithValues`) as v2 with-values objects. */
export async function listAttributesWithValues(
  db: Knex,
  input: { userId: number; visibility: Visibility; filters: AttributeFilters; page: PageWindow; dateMax: string; days: number; check?: DeferredCheck },
): Promise<Page<AttributeWithValuesObject>> {
  const page = await listAttributeRowsWithValues(db, input);
  return {
    count: page.count,
    results: page.results.map(({ row, values }) => {
      const { available_services: _none, ...attribute } = attributeObject({ ...row, available_services: [] });
      return { ...attribute, values };
    }),
  };
}

/** The full Attribute objects of a person's named attributes, in one query (the answers of batch writes). */
export async function attributeObjectsNamed(db: Knex, userId: number, names: string[], now: Date): Promise<Map<string, AttributeObject>> {
  if (names.length === 0) return new Map();
  const rows: AttributeRow[] = await selectAttributes(db, userId, now).whereIn('a.name', [...new Set(names)]);
  return new Map(rows.map((row) => [row.name, attributeObject(row)]));
}

/** Label and value type of a person's named attributes (the pages show labels and parse typed input). */
export async function attributeLabels(db: Knex, userId: number, names: string[]): Promise<Map<string, { label: string; value_type: number }>> {
  const rows: Array<{ name: string; label: string; value_type: number }> = await db('attributes')
    .where({ user_id: userId })
    .whereIn('name', names)
    .select('name', 'label', 'value_type');
  return new Map(rows.map((row) => [row.name, { label: row.label, value_type: row.value_type }]));
}

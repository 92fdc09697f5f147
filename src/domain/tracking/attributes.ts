/**
 * A person's attributes as the API lists them: the filters, the visibility rule, the order, and the
 * v2 document's Attribute object (with `service` and `available_services`), plus the with-values variant.
 *
 * Every list is one query: the page's rows carry a window count of all matching rows, and per-row
 * data (available services, the window of values) comes from correlated subqueries evaluated only
 * for the page's rows. So the cost does not grow with the page size in round trips.
 */
import type { components } from '../../../generated/types/v2';
import type { Knex } from 'knex';
import { LOW_PRIORITY } from '../../db/catalogue-templates';
import { VALUE_TYPE_DESCRIPTIONS, type ValueType } from '../../db/catalogue-value-types';
import type { GroupName } from '../../db/catalogue-groups';
import type { Database } from '../../db/database';
import { empty, fragment, raw, sql, type Sql } from '../../db/sql';
import { daysEndingAt } from '../time';
import { availableServices } from './able-services';
import { ATTRIBUTE_ORDER, attributeOrder } from './attribute-order';
import { MAX_OFFSET, typedValue, type JsonValue, type ValueObject } from './values';
import { visibleTo, type Visibility } from '../apps-and-grants/visibility';

/** A group embedded in an attribute or template. */
export type GroupObject = components['schemas']['Group'];

/** A service: an OAuth2 client's `client_id` as `name` and its name as `label`. */
export type ServiceObject = components['schemas']['Service'];

/** The Attribute of the v2 document (openapi/v2/schemas/Attribute.yaml). */
export type AttributeObject = components['schemas']['Attribute'];

/** The with-values variant: no `available_services` (openapi/v2/schemas/AttributeWithValues.yaml), a window of values instead. */
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

/** The columns of an attribute row (AttributeRow but its services), over `attributes a`, `groups g` and `oauth_clients o`. */
const ATTRIBUTE_COLUMNS = raw(`a.id, a.user_id, a.name, a.label, a.template_name, a.group_name, g.label as group_label, g.priority as group_priority,
       a.value_type, a.priority, a.manual, a.active, a.private, o.client_id as service_name, o.name as service_label`);

/**
 * The base query for full attribute objects of one person, as `attributes as a` (so
 * `whereVisible` and further filters apply). For paths that answer with a few full objects, such
 * as the write endpoints' `success_objects`; the paged lists below select the same columns.
 */
export function selectAttributes(db: Knex, userId: number, now: Date): Knex.QueryBuilder {
  return db('attributes as a')
    .join('groups as g', 'g.name', 'a.group_name')
    .leftJoin('oauth_clients as o', 'o.id', 'a.owner_client_pk')
    .where('a.user_id', userId)
    .select(fragment(db, sql`${ATTRIBUTE_COLUMNS}, ${availableServices(raw('a'), now)} as available_services`));
}

/** The embedded Group from a row's `group_name`, `group_label`, `group_priority` (groups are rows of the catalogue). */
export function groupObject(row: { group_name: string; group_label: string; group_priority: number }): GroupObject {
  return { name: row.group_name as GroupName, label: row.group_label, priority: row.group_priority };
}

/** The embedded service that owns an attribute, from a row's `service_name` and `service_label`; null when no service does. */
function serviceObject(row: { service_name: string | null; service_label: string | null }): AttributeObject['service'] {
  return row.service_name === null ? null : { name: row.service_name, label: row.service_label ?? row.service_name };
}

/** The v2 document's Attribute from a row of `selectAttributes`. */
export function attributeObject(row: AttributeRow): AttributeObject {
  return {
    template: row.template_name,
    name: row.name,
    label: row.label,
    group: groupObject(row),
    service: serviceObject(row),
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

/**
 * The one rule of every attribute list (docs/decisions.md, "Named attributes are shown"): a list
 * narrowed by attribute or template names shows the named attributes whatever their state or
 * priority, since the client asked for them by name; otherwise inactive and low-priority ones are
 * shown only when their flag asks for them.
 */
function namedShowsAll(filters: AttributeFilters): AttributeFilters {
  const named = filters.names !== undefined || filters.templates !== undefined;
  if (!named) return filters;
  return { ...filters, includeInactive: true, includeLowPriority: true };
}

/**
 * One page of matching attribute rows, in the list order (attribute-order.ts), with `total`: a
 * window count of every matching row (a page past the end has no rows and so no total; callers
 * need one only for page 1, where no rows means 0). Per-row extras are selected around it (as `p`),
 * so they are computed for the page only. Each filter given adds its condition (filters combine
 * with AND; an empty name list matches nothing); each combination of filters is a statement text
 * of its own, prepared once per connection. The person's index narrows the rows to their few dozen
 * attributes before any condition is tested. Inactive and low-priority attributes are left out
 * unless asked for: by their flags, or by naming them (`namedShowsAll`).
 */
function attributePage(userId: number, visibility: Visibility, filters: AttributeFilters, page: PageWindow): Sql {
  const f = namedShowsAll(filters);
  return sql`select ${ATTRIBUTE_COLUMNS}, count(*) over () as total
  from attributes a join groups g on g.name = a.group_name left join oauth_clients o on o.id = a.owner_client_pk
 where a.user_id = ${userId} and ${visibleTo(visibility, raw('a'))}
   ${f.groups ? sql`and a.group_name = any(${[...f.groups]}::text[])` : empty}
   ${f.names ? sql`and a.name = any(${[...f.names]}::text[])` : empty}
   ${f.templates ? sql`and a.template_name = any(${[...f.templates]}::text[])` : empty}
   ${f.excludeCustom ? sql`and a.template_name is not null` : empty}
   ${f.manual === undefined ? empty : sql`and a.manual = ${f.manual}::boolean`}
   ${f.includeInactive ? empty : sql`and a.active`}
   ${f.includeLowPriority ? empty : sql`and a.priority < ${LOW_PRIORITY}::integer`}
   ${f.ownerClientPk === undefined || f.ownerClientPk === null ? empty : sql`and a.owner_client_pk = ${f.ownerClientPk}::bigint`}
 order by ${ATTRIBUTE_ORDER}
 limit ${page.limit}::bigint offset ${Math.min(page.offset, MAX_OFFSET)}::bigint`;
}

/** The list order again, on the page subquery `p` (a subquery's ORDER BY does not bind the outer query). */
const PAGE_ORDER = attributeOrder(raw('p.group_priority'), raw('p.priority'), raw('p.name'));

/**
 * A page of the person's attributes that `visibility` shows and `filters` keep, as Attribute
 * objects, in the list order. One query. Filters combine with AND.
 */
export async function listAttributes(
  db: Database,
  input: { userId: number; visibility: Visibility; filters: AttributeFilters; page: PageWindow; now: Date },
): Promise<Page<AttributeObject>> {
  if (input.filters.ownerClientPk === null) return { count: 0, results: [] };
  const rows = await db.read<AttributeRow & { total: number }>(
    sql`select p.*, ${availableServices(raw('p'), input.now)} as available_services
  from (${attributePage(input.userId, input.visibility, input.filters, input.page)}) as p order by ${PAGE_ORDER}`,
  );
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
 * and low-priority attributes are left out unless asked for (`namedShowsAll`). Without `page`,
 * every matching attribute.
 * One query: each row gathers its window of stored values as JSON; the days without data are
 * filled in here. Each stored day is a JSON array `[date, num, text]`, not an object with the keys
 * spelled out for every value: the same answer, built and sent with about a quarter less time
 * (docs/statements.md, "The hot statements against the plainest ones").
 */
export async function listAttributeRowsWithValues(
  db: Database,
  input: { userId: number; visibility: Visibility; filters: AttributeFilters; page?: PageWindow; dateMax: string; days: number },
): Promise<Page<AttributeRowWithValues>> {
  const dates = daysEndingAt(input.dateMax, input.days);
  const filters = input.filters;
  if (filters.ownerClientPk === null) return { count: 0, results: [] };
  /** A stored day: its date, `value_num` and `value_text`. */
  type StoredDay = [date: string, num: unknown, text: unknown];
  type Row = Omit<AttributeRow, 'available_services'> & { total: number; stored_values: StoredDay[] };
  const rows = await db.read<Row>(sql`select p.*, coalesce((
       select json_agg(json_build_array(v.date, v.value_num, v.value_text))
         from attribute_values v
        where v.user_id = p.user_id and v.attribute_id = p.id and v.date between ${dates[dates.length - 1]}::date and ${dates[0]}::date
     ), '[]'::json) as stored_values
  from (${attributePage(input.userId, input.visibility, filters, input.page ?? { limit: MAX_OFFSET, offset: 0 })}) as p order by ${PAGE_ORDER}`);
  return {
    count: rows[0]?.total ?? 0,
    results: rows.map(({ total: _total, stored_values: stored, ...row }) => {
      const byDate = new Map<string, JsonValue>();
      for (const [date, num, text] of stored) byDate.set(date, typedValue(row.value_type, num, text)); // no array of pairs in between
      return { row, values: dates.map((date) => ({ date, value: byDate.get(date) ?? null })) };
    }),
  };
}

/** A page of attributes with values (`listAttributeRowsWithValues`) as v2 with-values objects. */
export async function listAttributesWithValues(
  db: Database,
  input: { userId: number; visibility: Visibility; filters: AttributeFilters; page: PageWindow; dateMax: string; days: number },
): Promise<Page<AttributeWithValuesObject>> {
  const page = await listAttributeRowsWithValues(db, input);
  return {
    count: page.count,
    results: page.results.map(({ row, values }) => withValuesObject(row, values)),
  };
}

/**
 * The v2 with-values object: `attributeObject`'s fields but `available_services`, in its order, then
 * `values`. Written out rather than spread from `attributeObject` and pruned, which copied every
 * field three times (a row spread, a rest pattern, a spread): 3 % of a with-values request's own
 * CPU in the bench's profile (docs/request-path.md, "Issue 35, second stop").
 */
function withValuesObject(row: AttributeRowWithValues['row'], values: ValueObject[]): AttributeWithValuesObject {
  return {
    template: row.template_name,
    name: row.name,
    label: row.label,
    group: groupObject(row),
    service: serviceObject(row),
    active: row.active,
    priority: row.priority,
    manual: row.manual,
    value_type: row.value_type as ValueType,
    value_type_description: VALUE_TYPE_DESCRIPTIONS[row.value_type],
    values,
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

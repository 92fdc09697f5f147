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
import { empty, knexRaw, raw, sql, type Sql } from '../../db/sql';
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

/** A row of ATTRIBUTE_COLUMNS with its `available_services` (the with-values rows have no services). */
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

/** VALUE_TYPE_DESCRIPTIONS as an SQL array constant, indexed from 1 (the code + 1). */
const VALUE_TYPE_DESCRIPTION_ARRAY = raw(`(array[${VALUE_TYPE_DESCRIPTIONS.map((text) => `'${text.replace(/'/g, "''")}'`).join(', ')}]::text[])`);

/**
 * The v2 document's Attribute (openapi/v2/schemas/Attribute.yaml) of the row `p`, which has the
 * columns of ATTRIBUTE_COLUMNS: laterals to put after `p` in a FROM list, the last of which, `x`,
 * holds the object's fields in their order (`group` and `service` as their embedded objects, a
 * service without a name of its own labelled with its `client_id`; `available_services` as
 * `availableServices` lists them at `now`), so that `ATTRIBUTE_TEXT` is its JSON text.
 *
 * The text is what `JSON.stringify` writes for the same object: `row_to_json` writes no space
 * between fields (json_build_object and json_agg do), PostgreSQL escapes a string's characters as
 * `JSON.stringify` does (`"`, `\`, the control characters as `\b`, `\n`… or `\u00XX`; nothing
 * else), and an attribute has no float. So a list's answer carries the page's text as it is: no
 * row parsed by pg, no object made, nothing serialised again (docs/request-path.md, "Issue 35,
 * fourth stop"; test/api/v2/attributes.test.ts holds the text equal to `JSON.stringify`'s).
 */
function attributeLaterals(p: Sql, now: Date): Sql {
  return sql`cross join lateral (select ${p}.group_name as name, ${p}.group_label as label, ${p}.group_priority as priority) as attribute_group
  cross join lateral (select ${p}.service_name as name, coalesce(${p}.service_label, ${p}.service_name) as label) as attribute_service
  cross join lateral (select ${p}.template_name as template, ${p}.name, ${p}.label, row_to_json(attribute_group) as "group",
       case when ${p}.service_name is null then null else row_to_json(attribute_service) end as service,
       ${p}.active, ${p}.priority, ${p}.manual, ${p}.value_type, ${VALUE_TYPE_DESCRIPTION_ARRAY}[${p}.value_type + 1] as value_type_description,
       ${availableServices(p, now)} as available_services) as x`;
}

/** The JSON text of the Attribute `attributeLaterals` put in `x`. */
const ATTRIBUTE_TEXT = raw('row_to_json(x)::text');

/** The embedded Group from a row's `group_name`, `group_label`, `group_priority` (groups are rows of the catalogue). */
export function groupObject(row: { group_name: string; group_label: string; group_priority: number }): GroupObject {
  return { name: row.group_name as GroupName, label: row.group_label, priority: row.group_priority };
}

/** The embedded service that owns an attribute, from a row's `service_name` and `service_label`; null when no service does (as `attributeLaterals` writes it). */
function serviceObject(row: { service_name: string | null; service_label: string | null }): AttributeObject['service'] {
  return row.service_name === null ? null : { name: row.service_name, label: row.service_label ?? row.service_name };
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

/** A page of Attribute objects as JSON text: the objects on the page (`shown`), the matching ones (`count`), and the page's objects as a JSON array written as `JSON.stringify` writes them (`attributeLaterals`). */
export interface AttributePageText {
  count: number;
  shown: number;
  results: string;
}

/**
 * A page of the person's attributes that `visibility` shows and `filters` keep, as the JSON text of
 * their Attribute objects, in the list order. One query, one row: the objects' text joined in the
 * list order, with the window count. Filters combine with AND.
 */
export async function listAttributesText(
  db: Database,
  input: { userId: number; visibility: Visibility; filters: AttributeFilters; page: PageWindow; now: Date },
): Promise<AttributePageText> {
  if (input.filters.ownerClientPk === null) return { count: 0, shown: 0, results: '[]' };
  const [page] = await db.read<{ total: number | null; shown: number; results: string | null }>(
    sql`select max(p.total) as total, count(*) as shown, '[' || string_agg(${ATTRIBUTE_TEXT}, ',' order by ${PAGE_ORDER}) || ']' as results
  from (${attributePage(input.userId, input.visibility, input.filters, input.page)}) as p ${attributeLaterals(raw('p'), input.now)}`,
  );
  return { count: page?.total ?? 0, shown: page?.shown ?? 0, results: page?.results ?? '[]' };
}

/** `listAttributesText`'s page as Attribute objects (the pages' lists). */
export async function listAttributes(
  db: Database,
  input: { userId: number; visibility: Visibility; filters: AttributeFilters; page: PageWindow; now: Date },
): Promise<Page<AttributeObject>> {
  const page = await listAttributesText(db, input);
  return { count: page.count, results: JSON.parse(page.results) as AttributeObject[] };
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
 * The v2 with-values object: the Attribute's fields (`attributeLaterals`) but `available_services`, in
 * their order, then `values`. Written out rather than spread from an Attribute object and pruned, which copied every
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
  const statement = sql`select p.name, ${ATTRIBUTE_TEXT} as attribute
  from (select ${ATTRIBUTE_COLUMNS}
          from attributes a join groups g on g.name = a.group_name left join oauth_clients o on o.id = a.owner_client_pk
         where a.user_id = ${userId} and a.name = any(${[...new Set(names)]}::text[])) as p ${attributeLaterals(raw('p'), now)}`;
  const { rows } = (await db.raw(...knexRaw(statement))) as { rows: Array<{ name: string; attribute: string }> };
  return new Map(rows.map((row) => [row.name, JSON.parse(row.attribute) as AttributeObject]));
}

/** Label and value type of a person's named attributes (the pages show labels and parse typed input). */
export async function attributeLabels(db: Knex, userId: number, names: string[]): Promise<Map<string, { label: string; value_type: number }>> {
  const rows: Array<{ name: string; label: string; value_type: number }> = await db('attributes')
    .where({ user_id: userId })
    .whereIn('name', names)
    .select('name', 'label', 'value_type');
  return new Map(rows.map((row) => [row.name, { label: row.label, value_type: row.value_type }]));
}

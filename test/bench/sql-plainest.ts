/**
 * The plainest correct statement for each of Daybook's hot answers, written by hand for
 * `sql-compare` (issue 35 item 3): the same rows in the same order under the same rules
 * (visibility, the list's filters and order, the recheck of a remembered credential and the exact
 * count), with nothing else: one level of select, the conditions spelled out, no fragments.
 *
 * Every read is behind the plainest guard: the token's and the person's rows at the versions
 * remembered (two primary-key probes), the request counted on its connection's row, the data only
 * within the limit. Its values are taken from Daybook's own statement (`ours`), which starts with
 * the guard's: $1 token id, $2 and $3 the rows' versions, $6 the window's end if it starts now,
 * $7 now (epoch ms), $9 the limit. A variant that is not the plainest but worth the measure says so
 * in its label.
 */
import type pg from 'pg';
import { LOW_PRIORITY } from '../../src/db/catalogue-templates';
import type { Statement } from './sql-capture';

export interface Context {
  userId: number;
  clientPk: number;
  today: string;
  ours: Statement[];
}

export interface Variant {
  label: string;
  statements: Statement[];
}

/** The guard's CTEs (`checked`, `counted`) and its values, $1-$7. */
function plainGuard(context: Context): { ctes: string; values: unknown[] } {
  const v = context.ours[0].values;
  return {
    ctes: `checked as (
    select from tokens t, users u where t.id = $1 and t.xmin = $2::xid and u.id = $3 and u.xmin = $4::xid and t.user_id = u.id
  ), counted as (
    insert into rate_limits (key, points, expire) select $5, 1, $6::bigint from checked
    on conflict (key) do update set
      points = case when rate_limits.expire <= $7::bigint then 1 else rate_limits.points + 1 end,
      expire = case when rate_limits.expire <= $7::bigint then excluded.expire else rate_limits.expire end
    returning points, expire
  )`,
    values: [v[0], v[1], context.userId, v[2], `api:person:${context.userId}:app:${context.clientPk}`, v[5], v[6]],
  };
}

/** A read behind the plain guard: the guard's columns on every row, the data (from $9 on) only within the limit ($8). */
function guarded(context: Context, read: string, values: unknown[]): Statement {
  const guard = plainGuard(context);
  return {
    text: `with ${guard.ctes}
select counted.points as quota_points, counted.expire as quota_expire, counted.points <= $8 as guard_proceed, d.*
  from counted left join lateral (${read}) as d on counted.points <= $8`,
    values: [...guard.values, context.ours[0].values[8], ...values],
  };
}

const ATTRIBUTE_COLUMNS = `a.id, a.user_id, a.name, a.label, a.template_name, a.group_name, g.label as group_label, g.priority as group_priority,
       a.value_type, a.priority, a.manual, a.active, a.private, o.client_id as service_name, o.name as service_label`;
const FROM_ATTRIBUTES = `attributes a join groups g on g.name = a.group_name left join oauth_clients o on o.id = a.owner_client_pk`;
/** The default list: the person's visible ($9 groups, $10 manual), active attributes below low priority, in the list order. */
const DEFAULT_LIST = `where a.user_id = $11 and (a.group_name = any($9) or ($10 and a.manual)) and a.active and a.priority < ${LOW_PRIORITY}
 order by g.priority, a.priority, a.name`;

/** Visibility's values from Daybook's statement: the groups (an array) and the manual flag after it. */
function visibilityOf(values: unknown[]): [string[], boolean] {
  const at = values.findIndex((value) => Array.isArray(value));
  return [values[at] as string[], values[at + 1] as boolean];
}

function withValues(context: Context): Variant[] {
  const v = context.ours[0].values;
  const [from, to] = [v[9], v[10]];
  const [groups, manual] = visibilityOf(v);
  const values = [groups, manual, context.userId, from, to];
  const oneLevel = `select ${ATTRIBUTE_COLUMNS}, count(*) over () as total, coalesce((
       select json_agg(json_build_array(v.date, v.value_num, v.value_text)) from attribute_values v
        where v.user_id = a.user_id and v.attribute_id = a.id and v.date between $12::date and $13::date), '[]'::json) as stored_values
  from ${FROM_ATTRIBUTES}
 ${DEFAULT_LIST} limit 20`;
  const flat = `select p.*, v.date, v.value_num, v.value_text from (select ${ATTRIBUTE_COLUMNS}, count(*) over () as total from ${FROM_ATTRIBUTES}
 ${DEFAULT_LIST} limit 20) as p left join attribute_values v on v.user_id = p.user_id and v.attribute_id = p.id and v.date between $12::date and $13::date
 order by p.group_priority, p.priority, p.name, v.date desc`;
  return [
    { label: 'plainest: one level, values as JSON', statements: [guarded(context, oneLevel, values)] },
    { label: 'plain join: a row per value, no JSON', statements: [guarded(context, flat, values)] },
  ];
}

function valuesList(context: Context): Variant[] {
  const v = context.ours[0].values;
  const [groups, manual] = visibilityOf(v);
  const read = `select v.date, v.value_num, v.value_text, a.value_type, count(*) over () as total
  from attributes a join attribute_values v on v.user_id = a.user_id and v.attribute_id = a.id and v.date <= $12::date
 where a.user_id = $11 and a.name = $13 and (a.group_name = any($9) or ($10 and a.manual))
 order by v.date desc limit 100`;
  return [{ label: 'plainest: one join, window count', statements: [guarded(context, read, [groups, manual, context.userId, v[9], 'steps'])] }];
}

/**
 * The read's time (the services' tokens are live at it) from Daybook's statement: its first
 * timestamp value, found by its kind rather than by position (the read's values moved once
 * already, and a position then bound the person's key as the time).
 */
function readTimeOf(values: unknown[]): Date | string {
  const found = values.find((value) => value instanceof Date || (typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(value)));
  if (found === undefined) throw new Error("The attributes read's statement has no timestamp value.");
  return found as Date | string;
}

function attributesList(context: Context): Variant[] {
  const v = context.ours[0].values;
  const [groups, manual] = visibilityOf(v);
  const read = `select ${ATTRIBUTE_COLUMNS}, count(*) over () as total, coalesce((
       select json_agg(json_build_object('name', c.client_id, 'label', c.name) order by s.acquired_at, c.client_id)
         from attribute_services s join oauth_clients c on c.id = s.client_pk
        where s.user_id = a.user_id and s.attribute_id = a.id and (c.builtin or exists (
          select from tokens t where t.user_id = s.user_id and t.client_pk = s.client_pk and t.revoked_at is null and t.replaced_at is null
             and coalesce(t.refresh_expires_at, t.access_expires_at) > $12::timestamptz))), '[]'::json) as available_services
  from ${FROM_ATTRIBUTES}
 ${DEFAULT_LIST} limit 100`;
  return [{ label: 'plainest: one level', statements: [guarded(context, read, [groups, manual, context.userId, readTimeOf(v)])] }];
}

function correlationsList(context: Context): Variant[] {
  const v = context.ours[0].values;
  const [groups, manual] = visibilityOf(v);
  const read = `select c.date, c.period, c."offset", a1.name as attribute, a2.name as attribute2, c.value, c.p, c.percentage, c.stars,
       c.second_person, c.second_person_elements, c.strength_description, c.stars_description, count(*) over () as total
  from correlations c
  join attributes a1 on a1.user_id = c.user_id and a1.id = c.attribute_id
  join attributes a2 on a2.user_id = c.user_id and a2.id = c.attribute2_id
 where c.user_id = $11 and c.date = (select max(w.date) from derived_weeks w where w.user_id = $11)
   and (a1.group_name = any($9) or ($10 and a1.manual) or a2.group_name = any($9) or ($10 and a2.manual))
 order by abs(c.value) desc, a1.name, a2.name, c."offset" desc limit 100`;
  return [{ label: 'plainest: the groups bound once', statements: [guarded(context, read, [groups, manual, context.userId])] }];
}

/** The recheck and the count alone (a profile's statement, or a `before` operation's). */
function recheckAlone(context: Context): Variant[] {
  const guard = plainGuard(context);
  const text = `with ${guard.ctes} select counted.points as quota_points, counted.expire as quota_expire, counted.points <= $8 as guard_proceed from counted`;
  return [{ label: 'plainest: pk probes, the key bound', statements: [{ text, values: [...guard.values, context.ours[0].values[8]] }] }];
}

/** The credential read in full and counted: as two statements (the lookup, then the count), the plainest way to write it. */
function lookup(context: Context): Variant[] {
  const v = context.ours[0].values;
  const lookupText = `select t.id, t.user_id, t.scopes, t.access_expires_at, t.revoked_at, t.replaced_at, t.last_used_at, t.xmin::text as token_version, u.xmin::text as user_version,
       u.*, c.id as client_pk, c.client_id from tokens t join users u on u.id = t.user_id join oauth_clients c on c.id = t.client_pk where t.access_hash = $1`;
  const countText = `insert into rate_limits (key, points, expire) values ($1, 1, $2::bigint)
    on conflict (key) do update set
      points = case when rate_limits.expire <= $3::bigint then 1 else rate_limits.points + 1 end,
      expire = case when rate_limits.expire <= $3::bigint then excluded.expire else rate_limits.expire end
    returning points, expire`;
  const nowMs = Number(v[v.length - 2]);
  const key = `api:person:${context.userId}:app:${context.clientPk}`;
  return [
    {
      label: 'two statements: the lookup (every column), then the count',
      statements: [
        { text: lookupText, values: [v[0]] },
        { text: countText, values: [key, nowMs + 3600_000, nowMs] },
      ],
    },
  ];
}

/** The plainest statements of a scenario (none where Daybook's is the only one measured: the writes). */
export function plainestOf(scenario: string, context: Context): Variant[] {
  switch (scenario) {
    case 'with-values':
      return withValues(context);
    case 'values':
      return valuesList(context);
    case 'attributes':
      return attributesList(context);
    case 'correlations':
      return correlationsList(context);
    case 'recheck':
      return recheckAlone(context);
    case 'lookup':
      return lookup(context);
    default:
      return [];
  }
}

/**
 * The attributes page, from Daybook's one row (the total and the page's JSON text, made by
 * PostgreSQL in the answer's shape) or from the plainest's row per attribute: the total, and each
 * attribute's name and available services, in the list's order. (Compared as rows, the two never
 * matched: one is a page of text, the other rows.)
 */
function attributesDigest(rows: Array<Record<string, unknown>>): string {
  type Listed = { name: string; available_services: unknown };
  const page = rows.length === 1 && typeof rows[0].results === 'string' ? rows[0] : undefined;
  const listed: Listed[] = page ? (JSON.parse(page.results as string) as Listed[]) : (rows as Listed[]);
  const total = page ? page.total : (rows[0]?.total ?? 0);
  return JSON.stringify({ total: Number(total), attributes: listed.map((a) => [a.name, a.available_services]) });
}

/** What a request's answer is made of, from a statement's rows: the data without the count (each call counts one more). */
function digest(scenario: string, rows: Array<Record<string, unknown>>): string {
  // The guard's columns dropped wherever they stand (first in a read of objects, last in one of arrays).
  const data = rows
    .filter((row) => row.guard_proceed !== false)
    .map(({ quota_points: _p, quota_expire: _e, guard_found: _f, guard_proceed: _g, ...rest }) => rest);
  if (scenario === 'attributes') return attributesDigest(data);
  if (scenario !== 'with-values') return JSON.stringify(data.filter((row) => Object.values(row).some((value) => value !== null && value !== true)));
  // with-values: per attribute (in order) its stored days, from JSON or from a row per value.
  const days = new Map<string, string[]>();
  for (const row of data) {
    const list = days.get(row.name as string) ?? [];
    days.set(row.name as string, list);
    if (Array.isArray(row.stored_values)) for (const day of row.stored_values as unknown[][]) list.push(JSON.stringify(day));
    else if (row.date) list.push(JSON.stringify([row.date, row.value_num, row.value_text]));
  }
  return JSON.stringify([...days].map(([name, list]) => [name, list.sort()]));
}

/** Undefined when the plain statements answer what Daybook's answers (the last statement's rows), else how they differ. */
export async function sameAnswer(client: pg.Client, scenario: string, ours: Statement[], plain: Statement[]): Promise<string | undefined> {
  if (scenario === 'lookup') return undefined; // the same row; its columns are named differently
  const answer = async (statements: Statement[]) => {
    let last: Array<Record<string, unknown>> = [];
    for (const statement of statements) last = (await client.query(statement.text, statement.values)).rows;
    return digest(scenario, last);
  };
  const [a, b] = [await answer(ours), await answer(plain)];
  return a === b ? undefined : `${a.length} against ${b.length} characters: ${a.slice(0, 200)} | ${b.slice(0, 200)}`;
}

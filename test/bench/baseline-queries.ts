/**
 * What the bare baseline asks Postgres, and how it shapes the answer: the SQL text Daybook's domain
 * functions send for the same requests (copied from Knex's output, with the same parameters, so
 * Postgres does the same work and plans it the same way), run with `pg` directly. The JSON is
 * built with the same pure shaping helpers Daybook uses, so both answer the same bytes of data;
 * the bench checks that before it measures.
 *
 * Every statement runs as a named prepared statement, as Daybook runs these (PREPARED in
 * src/db/knex.ts), so both servers leave parsing and planning to the first use on a connection.
 *
 * Nothing else: no query builder, no validation of input or values, no scopes (every bench token
 * has every scope, so the visibility filter lists every group), no rate limit.
 */
import crypto from 'node:crypto';
import type pg from 'pg';
import { GROUP_NAMES, LOW_PRIORITY } from '../../src/db/catalogue';
import { attributeObject, type AttributeRow } from '../../src/domain/tracking/attributes';
import { correlationObject } from '../../src/domain/derived/correlations';
import { typedValue, type JsonValue } from '../../src/domain/tracking/values';
import { daysEndingAt } from '../../src/domain/time';
import { createdName } from '../../src/domain/tracking/writes/create';

/** `($from, …, $to)`: the IN list of group names Knex writes for the visibility filter. */
function groupList(first: number): string {
  return `(${GROUP_NAMES.map((_, i) => `$${first + i}`).join(', ')})`;
}
const G = GROUP_NAMES.length;

const ATTRIBUTE_COLUMNS =
  '"a"."id", "a"."user_id", "a"."name", "a"."label", "a"."template_name", "a"."group_name", "g"."label" as "group_label", "g"."priority" as "group_priority", ' +
  '"a"."value_type", "a"."priority", "a"."manual", "a"."active", "a"."private", "o"."client_id" as "service_name", "o"."name" as "service_label"';

/** The page of visible, active, normal-priority attributes; parameters from `$first`: user, groups, manual, active, priority, limit. */
function attributePage(first: number): string {
  const g = first + 1;
  return (
    `(select ${ATTRIBUTE_COLUMNS}, count(*) over () as total from "attributes" as "a" inner join "groups" as "g" on "g"."name" = "a"."group_name" ` +
    `left join "oauth_clients" as "o" on "o"."id" = "a"."owner_client_pk" where "a"."user_id" = $${first} and ("a"."group_name" in ${groupList(g)} or "a"."manual" = $${g + G}) ` +
    `and "a"."active" = $${g + G + 1} and "a"."priority" < $${g + G + 2} order by "g"."priority" asc, "a"."priority" asc, "a"."name" asc limit $${g + G + 3}` +
    ' offset $' +
    (g + G + 4) +
    ') as "p" order by "p"."group_priority" asc, "p"."priority" asc, "p"."name" asc'
  );
}

function pageParams(userId: number, limit: number, offset: number): unknown[] {
  return [userId, ...GROUP_NAMES, true, true, LOW_PRIORITY, limit, offset];
}

const WITH_VALUES_SQL =
  `select "p".*, coalesce((
       select json_agg(json_build_object('date', v.date, 'num', v.value_num, 'text', v.value_text))
       from attribute_values v
       where v.user_id = p.user_id and v.attribute_id = p.id and v.date between $1 and $2
     ), '[]'::json) as stored_values from ` + attributePage(3);

const ATTRIBUTES_SQL =
  `select "p".*, coalesce((
       select json_agg(json_build_object('name', c.client_id, 'label', c.name) order by s.acquired_at, c.client_id)
       from attribute_services s
       join oauth_clients c on c.id = s.client_pk
       where s.user_id = "p".user_id and s.attribute_id = "p".id
         and (c.builtin or exists (
           select 1 from tokens t
           where t.user_id = s.user_id and t.client_pk = s.client_pk and t.revoked_at is null and t.replaced_at is null and coalesce(t.refresh_expires_at, t.access_expires_at) > $1))
     ), '[]'::json) as available_services from ` + attributePage(2);

const VALUES_SQL =
  'select "v"."date", "v"."value_num", "v"."value_text", "a"."value_type", "n"."total" from (select "a"."id", "a"."user_id", "a"."value_type" from "attributes" as "a" ' +
  `where "a"."user_id" = $1 and "a"."name" = $2 and ("a"."group_name" in ${groupList(3)} or "a"."manual" = $${3 + G})) as "a" cross join lateral (
         select count(*) as total from attribute_values c
         where c.user_id = a.user_id and c.attribute_id = a.id and c.date <= $${4 + G}
       ) as n cross join lateral (
         select v.date, v.value_num, v.value_text from attribute_values v
         where v.user_id = a.user_id and v.attribute_id = a.id and v.date <= $${5 + G}
         order by v.date desc limit $${6 + G} offset $${7 + G}
       ) as v order by "v"."date" desc`;

const CORRELATIONS_SQL =
  'select "c"."date", "c"."period", "c"."offset", "a1"."name" as "attribute", "a2"."name" as "attribute2", "c"."value", "c"."p", "c"."percentage", "c"."stars", ' +
  '"c"."second_person", "c"."second_person_elements", "c"."strength_description", "c"."stars_description", count(*) over () as total from "correlations" as "c" ' +
  'inner join "attributes" as "a1" on "a1"."user_id" = "c"."user_id" and "a1"."id" = "c"."attribute_id" ' +
  'inner join "attributes" as "a2" on "a2"."user_id" = "c"."user_id" and "a2"."id" = "c"."attribute2_id" ' +
  `where "c"."user_id" = $1 and ((("a1"."group_name" in ${groupList(2)} or "a1"."manual" = $${2 + G})) or (("a2"."group_name" in ${groupList(3 + G)} or "a2"."manual" = $${3 + 2 * G}))) ` +
  `and c.date = (select max(w.date) from derived_weeks w where w.user_id = $${4 + 2 * G}) order by abs(c.value) desc, a1.name, a2.name, c."offset" desc limit $${5 + 2 * G} offset $${6 + 2 * G}`;

const PROFILE_SQL =
  'select "id", "username", "first_name", "last_name", "avatar", "bio", "url", "timezone", "private", "imperial_distance", "imperial_weight", "imperial_energy", ' +
  '"imperial_liquid", "imperial_temperature", "trial", "delinquent", "simple_token_version" from "users" where "id" = $1 limit $2';

/**
 * The writes, as the fastest correct plain server would make them: each batch is ONE statement
 * (an implicit transaction): the items as arrays through unnest, joined with the person's
 * attributes for the ownership check, upserted with ON CONFLICT, and the changed days recorded,
 * in one round trip. Checks it makes: the attribute exists and the service owns it, and the
 * value's JSON type and range suit the attribute (in SQL, below); it skips scopes (every bench
 * token has every scope) and increments only types without a range (integers, floats, periods),
 * refusing the others rather than checking their totals. An upsert cannot touch a row twice, so
 * repeated (attribute, day) pairs of one batch are merged in the statement: the last update wins,
 * increments are summed and each answers its running total.
 */
const VALID_VALUE = `case when a.value_type = 2 then jsonb_typeof(i.value) = 'string'
         when jsonb_typeof(i.value) <> 'number' then false
         else case when a.value_type not in (1, 5) and (i.value)::numeric % 1 <> 0 then false
                   when a.value_type = 7 then (i.value)::numeric in (0, 1)
                   when a.value_type = 8 then (i.value)::numeric between 1 and 9
                   when a.value_type = 5 then (i.value)::numeric between 0 and 1
                   when a.template_name = 'mood' then (i.value)::numeric between 1 and 9
                   else true end end`;

const UPDATE_BATCH_SQL = `with items as (
    select * from unnest($3::text[], $4::date[], $5::jsonb[]) with ordinality as i(name, date, value, position)
  ), accepted as (
    select i.position, a.id as attribute_id, i.date,
           case when a.value_type = 2 then null else (i.value)::float8 end as value_num,
           case when a.value_type = 2 then i.value #>> '{}' end as value_text
      from items i join attributes a on a.user_id = $1 and a.name = i.name and a.owner_client_pk = $2
     where ${VALID_VALUE}
  ), written as (
    insert into attribute_values (user_id, attribute_id, date, value_num, value_text, updated_at)
    select distinct on (attribute_id, date) $1::bigint, attribute_id, date, value_num, value_text, $6::timestamptz
      from accepted order by attribute_id, date, position desc
    on conflict (user_id, attribute_id, date) do update set value_num = excluded.value_num, value_text = excluded.value_text, updated_at = excluded.updated_at
    returning date
  ), changed as (
    insert into value_changes (user_id, date, changed_at)
    select distinct $1::bigint, date, $6::timestamptz from written order by 2
    on conflict (user_id, date) do update set changed_at = excluded.changed_at
  )
  select position from accepted`;

const INCREMENT_BATCH_SQL = `with items as (
    select * from unnest($3::text[], $4::date[], $5::jsonb[]) with ordinality as i(name, date, value, position)
  ), accepted as (
    select i.position, a.id as attribute_id, i.date, (i.value)::float8 as delta
      from items i join attributes a on a.user_id = $1 and a.name = i.name and a.owner_client_pk = $2
     where a.value_type in (0, 1, 3) and a.template_name is distinct from 'mood' and jsonb_typeof(i.value) = 'number'
       and (a.value_type = 1 or (i.value)::numeric % 1 = 0)
  ), written as (
    insert into attribute_values (user_id, attribute_id, date, value_num, value_text, updated_at)
    select $1::bigint, attribute_id, date, sum(delta), null, $6::timestamptz from accepted group by attribute_id, date order by attribute_id, date
    on conflict (user_id, attribute_id, date) do update set value_num = coalesce(attribute_values.value_num, 0) + excluded.value_num, updated_at = excluded.updated_at
    returning attribute_id, date, value_num
  ), changed as (
    insert into value_changes (user_id, date, changed_at)
    select distinct $1::bigint, date, $6::timestamptz from written order by 2
    on conflict (user_id, date) do update set changed_at = excluded.changed_at
  )
  -- Each item's total: the day's new total less the deltas of the later items of that day.
  select a.position, w.value_num - coalesce(sum(a.delta) over (partition by a.attribute_id, a.date order by a.position desc
                                                              rows between unbounded preceding and 1 preceding), 0) as current
    from accepted a join written w on w.attribute_id = a.attribute_id and w.date = a.date`;

const ACQUIRE_BATCH_SQL = `with items as (
    select * from unnest($3::text[]) with ordinality as i(name, position)
  ), taken as (
    update attributes a set owner_client_pk = $2, active = true
      from items i where a.user_id = $1 and a.name = i.name
    returning a.id, a.name
  ), remembered as (
    insert into attribute_services (user_id, attribute_id, client_pk, acquired_at)
    select $1, id, $2, $4 from taken order by id
    on conflict (user_id, attribute_id, client_pk) do update set acquired_at = excluded.acquired_at
  )
  select i.position, t.name is not null as taken from items i left join taken t on t.name = i.name order by i.position`;

const CREATE_BATCH_SQL = `with items as (
    select * from unnest($3::text[], $4::text[], $5::text[], $6::int[]) with ordinality as i(name, label, group_name, value_type, position)
  ), created as (
    insert into attributes (user_id, name, label, template_name, group_name, value_type, priority, manual, active, owner_client_pk, created_at)
    select $1, name, label, null, group_name, value_type, case when group_name = 'custom' and value_type = 0 then 2 else 5 end, true, true, $2, $7
      from items order by name
    on conflict (user_id, name) do nothing
    returning id, name
  ), remembered as (
    insert into attribute_services (user_id, attribute_id, client_pk, acquired_at)
    select $1, id, $2, $7 from created order by id
  )
  select i.position, c.name is not null as created from items i left join created c on c.name = i.name order by i.position`;

/** A named prepared statement of this text (the same naming as Daybook's). */
function prepared(text: string, values: unknown[]): pg.QueryConfig {
  return { name: `daybook_${crypto.createHash('sha1').update(text).digest('base64url')}`, text, values };
}

export interface Page<T> {
  count: number;
  results: T[];
}

type StoredValue = { date: string; num: unknown; text: unknown };

export async function withValues(pool: pg.Pool, userId: number, dateMax: string, days: number, limit: number, offset: number): Promise<Page<unknown>> {
  const dates = daysEndingAt(dateMax, days);
  const { rows } = await pool.query(prepared(WITH_VALUES_SQL, [dates[dates.length - 1], dates[0], ...pageParams(userId, limit, offset)]));
  return {
    count: rows[0]?.total ?? 0,
    results: rows.map(({ total: _total, stored_values: stored, ...row }: AttributeRow & { total: number; stored_values: StoredValue[] }) => {
      const byDate = new Map<string, JsonValue>(stored.map((v) => [v.date, typedValue(row.value_type, v.num, v.text)]));
      const { available_services: _none, ...attribute } = attributeObject({ ...row, available_services: [] });
      return { ...attribute, values: dates.map((date) => ({ date, value: byDate.get(date) ?? null })) };
    }),
  };
}

export async function attributes(pool: pg.Pool, userId: number, now: Date, limit: number, offset: number): Promise<Page<unknown>> {
  const { rows } = await pool.query(prepared(ATTRIBUTES_SQL, [now, ...pageParams(userId, limit, offset)]));
  return { count: rows[0]?.total ?? 0, results: rows.map(attributeObject) };
}

export async function values(pool: pg.Pool, userId: number, attribute: string, dateMax: string, limit: number, offset: number): Promise<Page<unknown>> {
  const { rows } = await pool.query(prepared(VALUES_SQL, [userId, attribute, ...GROUP_NAMES, true, dateMax, dateMax, limit, offset]));
  return {
    count: rows[0]?.total ?? 0,
    results: rows.map((row: { date: string; value_num: number | null; value_text: string | null; value_type: number }) => ({
      date: row.date,
      value: typedValue(row.value_type, row.value_num, row.value_text),
    })),
  };
}

export async function correlations(pool: pg.Pool, userId: number, limit: number, offset: number): Promise<Page<unknown>> {
  const { rows } = await pool.query(prepared(CORRELATIONS_SQL, [userId, ...GROUP_NAMES, true, ...GROUP_NAMES, true, userId, limit, offset]));
  return { count: rows[0]?.total ?? 0, results: rows.map(correlationObject) };
}

export async function profile(pool: pg.Pool, userId: number): Promise<Record<string, unknown> | undefined> {
  const { rows } = await pool.query(prepared(PROFILE_SQL, [userId, 1]));
  return rows[0];
}

export interface Writer {
  userId: number;
  clientPk: number;
  today: string;
}

type Item = Record<string, unknown>;

interface BatchAnswer {
  success: Item[];
  failed: Item[];
}

/** The answer, items in the order sent; `accepted(index)` gives a success's answer item or undefined. */
function answerOf(items: Item[], accepted: (index: number) => Item | undefined, code: string): BatchAnswer {
  const answer: BatchAnswer = { success: [], failed: [] };
  items.forEach((item, index) => {
    const success = accepted(index);
    if (success) answer.success.push(success);
    else answer.failed.push({ ...item, error: `Item ${index} was not applied.`, error_code: code });
  });
  return answer;
}

export async function update(pool: pg.Pool, writer: Writer, items: Item[], now: Date): Promise<BatchAnswer> {
  const { rows } = await pool.query(
    prepared(UPDATE_BATCH_SQL, [
      writer.userId,
      writer.clientPk,
      items.map((i) => i.name),
      items.map((i) => i.date),
      items.map((i) => JSON.stringify(i.value)),
      now,
    ]),
  );
  const applied = new Set((rows as Array<{ position: string | number }>).map((row) => Number(row.position) - 1));
  return answerOf(items, (index) => (applied.has(index) ? items[index] : undefined), 'validation');
}

export async function increment(pool: pg.Pool, writer: Writer, items: Item[], now: Date): Promise<BatchAnswer> {
  const dateOf = (item: Item) => (item.date as string | undefined) ?? writer.today;
  const { rows } = await pool.query(
    prepared(INCREMENT_BATCH_SQL, [
      writer.userId,
      writer.clientPk,
      items.map((i) => i.name),
      items.map(dateOf),
      items.map((i) => JSON.stringify(i.value)),
      now,
    ]),
  );
  const current = new Map((rows as Array<{ position: string | number; current: number }>).map((row) => [Number(row.position) - 1, row.current]));
  return answerOf(
    items,
    (index) => (current.has(index) ? { ...items[index], date: dateOf(items[index]), current: current.get(index) } : undefined),
    'validation',
  );
}

export async function acquire(pool: pg.Pool, writer: Writer, items: Item[], now: Date): Promise<BatchAnswer> {
  const { rows } = await pool.query(prepared(ACQUIRE_BATCH_SQL, [writer.userId, writer.clientPk, items.map((i) => i.name), now]));
  const taken = (rows as Array<{ taken: boolean }>).map((row) => row.taken);
  return answerOf(items, (index) => (taken[index] ? { name: items[index].name, active: true } : undefined), 'not_found');
}

export async function create(pool: pg.Pool, writer: Writer, items: Item[], now: Date): Promise<BatchAnswer> {
  const names = items.map((i) => createdName(String(i.label)));
  const { rows } = await pool.query(
    prepared(CREATE_BATCH_SQL, [
      writer.userId,
      writer.clientPk,
      names,
      items.map((i) => i.label),
      items.map((i) => i.group),
      items.map((i) => i.value_type),
      now,
    ]),
  );
  const created = (rows as Array<{ created: boolean }>).map((row) => row.created);
  return answerOf(items, (index) => (created[index] ? { ...items[index], name: names[index] } : undefined), 'already_exists');
}

/** The read statements with the parameters of one request each, for EXPLAIN (explain.ts). */
export function readStatements(userId: number, today: string, now: Date): Array<{ name: string; text: string; values: unknown[] }> {
  const window = daysEndingAt(today, 31);
  return [
    { name: 'with-values', text: WITH_VALUES_SQL, values: [window[window.length - 1], window[0], ...pageParams(userId, 20, 0)] },
    { name: 'values', text: VALUES_SQL, values: [userId, 'steps', ...GROUP_NAMES, true, today, today, 100, 0] },
    { name: 'attributes', text: ATTRIBUTES_SQL, values: [now, ...pageParams(userId, 100, 0)] },
    { name: 'correlations', text: CORRELATIONS_SQL, values: [userId, ...GROUP_NAMES, true, ...GROUP_NAMES, true, userId, 100, 0] },
    { name: 'profile', text: PROFILE_SQL, values: [userId, 1] },
  ];
}

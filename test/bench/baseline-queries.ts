/**
 * What the baseline asks Postgres, and how it shapes the answer. Each request is ONE statement (an
 * implicit transaction, one round trip), in this order of CTEs:
 *
 * 1. the caller (`caller`): in the checked mode (the default), the access token's row by its hash
 *    (`tokens.access_hash`, hashed as Daybook hashes it: hashCredential), its liveness (not revoked,
 *    not replaced by a refresh, access not expired) and its person's time zone; the request counted
 *    on the shared `rate_limits` table under the same key as Daybook's (quota.ts: person and app
 *    for an OAuth token; the client's address when the token is not live), an atomic upsert whose
 *    window starts again when it has ended; `caller` has a row only when the token is live and the
 *    count is within the limit. In the bare mode (`--bare-baseline`: no authentication, no count)
 *    `caller` is the person, app and day handed over as parameters;
 * 2. the request's data, read or written through `caller` only, so nothing is read or written for
 *    a token that is not live or a request past the limit: reads take the person from
 *    `(select user_id from caller)` (null without a caller: no rows), the writes' data-modifying
 *    CTEs join `caller` (no caller: no rows changed).
 *
 * The reads send the SQL Daybook's reads send (copied from Knex's output, with the person from
 * `caller`), so Postgres does the same work for the data; 'today' (the default `date_max`, an
 * increment's default day) is the day at `now` in the person's time zone, computed in SQL as
 * Daybook computes it in JavaScript (localDate). The JSON is built with the same pure shaping
 * helpers Daybook uses, so both answer the same bytes of data; the bench checks that before it
 * measures. Every statement runs as a named prepared statement, as Daybook runs its hot ones.
 *
 * Nothing else: no query builder, no validation of input, no scopes (every bench token has every
 * scope, so the visibility filter lists every group), no "last used" of the token.
 */
import crypto from 'node:crypto';
import type pg from 'pg';
import { GROUP_NAMES, type GroupName } from '../../src/db/catalogue-groups';
import { LOW_PRIORITY } from '../../src/db/catalogue-templates';
import type { AttributeObject, AttributeRow } from '../../src/domain/tracking/attributes';
import { correlationObject } from '../../src/domain/derived/correlations';
import { VALUE_TYPE_DESCRIPTIONS, type ValueType } from '../../src/db/catalogue-value-types';
import { typedValue, type JsonValue } from '../../src/domain/tracking/values';
import { daysEndingAt } from '../../src/domain/time';
import { createdName } from '../../src/domain/tracking/writes/create';
import { hashCredential } from '../../src/domain/identity/credentials';
import { QUOTA_PREFIX } from '../../src/domain/apps-and-grants/quota';

/** One hour: the rate limit's window (http/rate-limit.ts WINDOW_SECONDS). */
export const WINDOW_MS = 3600 * 1000;

/** Who asks: a Bearer token to check and count (checked), or a person handed over (bare). */
export type Asker =
  { mode: 'checked'; token: string; now: Date; limit: number; address: string } | { mode: 'bare'; userId: number; clientPk: number; today: string; now: Date };

/** What the statement said about the caller. */
export type Gate =
  | { pass: true; today: string; count?: { points: number; expire: number } }
  | { pass: false; problem: 'unknown' | 'revoked' | 'expired' | 'limited'; count: { points: number; expire: number } };

/**
 * The checked caller: $1 the token's hash, $2 now, $3 now in epoch ms, $4 the window's end if it
 * starts now (epoch ms), $5 the limit, $6 the address's rate-limit key. `asker` is always one row;
 * `counted` counts every request (the person's connection when the token is live, else the address,
 * as Daybook's rate limit counts a request without a principal).
 */
const CHECKED_PREFIX = `with t as (
    select t.user_id, t.client_pk, u.timezone, t.revoked_at is not null or t.replaced_at is not null as revoked, t.access_expires_at <= $2 as expired
      from tokens t join users u on u.id = t.user_id
     where t.access_hash = $1 limit 1
  ), asker as (
    select t.user_id, t.client_pk, t.timezone, coalesce(not t.revoked and not t.expired, false) as live, t.revoked, t.expired
      from (values (1)) as one (x) left join t on true
  ), counted as (
    insert into rate_limits (key, points, expire)
    select case when asker.live then '${QUOTA_PREFIX}:person:' || asker.user_id || ':app:' || asker.client_pk else $6 end, 1, $4::bigint from asker
    on conflict (key) do update set
      points = case when rate_limits.expire <= $3 then 1 else rate_limits.points + 1 end,
      expire = case when rate_limits.expire <= $3 then excluded.expire else rate_limits.expire end
    returning points, expire
  ),
  caller as (
    select asker.user_id, asker.client_pk, ($2::timestamptz at time zone asker.timezone)::date as today
      from asker join counted on counted.points <= $5 where asker.live
  )`;
const CHECKED_HEAD =
  'select asker.live, asker.revoked, asker.expired, counted.points as quota_points, counted.expire as quota_expire, caller.today as caller_today';
const CHECKED_FROM = 'from asker left join counted on true left join caller on true';

/** The bare caller: $1 the person, $2 the app, $3 today. */
const BARE_PREFIX = 'with caller as (select $1::bigint as user_id, $2::bigint as client_pk, $3::date as today)';
const BARE_HEAD = 'select true as live, caller.today as caller_today';
const BARE_FROM = 'from caller';

/**
 * A request's statement: `ctes` (the data's own CTEs, after the caller's) and `select` (the data,
 * joined laterally to the caller's row, so the head columns come back even without data; a join
 * `on true` can only be a nested loop over the one head row, so the data keeps its order), written
 * with `{user}`, `{client}` and `{today}` for the caller's columns and their own parameters from $1.
 */
interface Query {
  ctes?: string;
  select: string;
}

function render(query: Query, mode: Asker['mode']): string {
  const first = mode === 'checked' ? 6 : 3;
  const fill = (text: string) =>
    text
      .replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + first}`)
      .replace(/\{user\}/g, '(select user_id from caller)')
      .replace(/\{client\}/g, '(select client_pk from caller)')
      .replace(/\{today\}/g, '(select today from caller)');
  const [prefix, head, from] = mode === 'checked' ? [CHECKED_PREFIX, CHECKED_HEAD, CHECKED_FROM] : [BARE_PREFIX, BARE_HEAD, BARE_FROM];
  return `${prefix}${query.ctes ? `, ${fill(query.ctes)}` : ''}\n  ${head}, d.* ${from} left join lateral (${fill(query.select)}) as d on true`;
}

/** The caller's parameters ($1 … of the statement). */
function askerParams(asker: Asker): unknown[] {
  if (asker.mode === 'bare') return [asker.userId, asker.clientPk, asker.today];
  const nowMs = asker.now.getTime();
  return [hashCredential(asker.token), asker.now, nowMs, nowMs + WINDOW_MS, asker.limit, `${QUOTA_PREFIX}:ip:${asker.address}`];
}

interface HeadRow {
  live: boolean;
  revoked: boolean | null;
  expired: boolean | null;
  quota_points?: number | string;
  quota_expire?: number | string;
  caller_today: string | null;
}

function gateOf(asker: Asker, head: HeadRow): Gate {
  if (asker.mode === 'bare') return { pass: true, today: asker.today };
  const count = { points: Number(head.quota_points), expire: Number(head.quota_expire) };
  if (count.points > asker.limit) return { pass: false, problem: 'limited', count };
  if (!head.live) return { pass: false, problem: head.revoked ? 'revoked' : head.expired ? 'expired' : 'unknown', count };
  return { pass: true, today: head.caller_today!, count };
}

/** A named prepared statement of this text (the same naming as Daybook's). */
function prepared(text: string, values: unknown[]): pg.QueryConfig {
  return { name: `daybook_${crypto.createHash('sha1').update(text).digest('base64url')}`, text, values };
}

const rendered = new Map<Query, Record<Asker['mode'], string>>();

/** Runs the request's statement; the data rows (none unless the gate passed) and the gate. */
async function run<R>(pool: pg.Pool, asker: Asker, query: Query, values: unknown[]): Promise<{ gate: Gate; rows: R[] }> {
  let texts = rendered.get(query);
  if (!texts) rendered.set(query, (texts = { checked: render(query, 'checked'), bare: render(query, 'bare') }));
  const { rows } = await pool.query(prepared(texts[asker.mode], [...askerParams(asker), ...values]));
  const gate = gateOf(asker, rows[0] as HeadRow);
  // A left join without data leaves one row of nulls: no data.
  return { gate, rows: gate.pass ? (rows as R[]).filter((row) => (row as { d_present?: boolean }).d_present) : [] };
}

/** What a request answers: the gate, and the data when it passed. */
export type Answered<T> = { ok: true; gate: Gate; result: T } | { ok: false; gate: Gate & { pass: false } };

/** `($from, …, $to)`: the IN list of group names Knex writes for the visibility filter. */
function groupList(first: number): string {
  return `(${GROUP_NAMES.map((_, i) => `$${first + i}`).join(', ')})`;
}
const G = GROUP_NAMES.length;

const ATTRIBUTE_COLUMNS =
  '"a"."id", "a"."user_id", "a"."name", "a"."label", "a"."template_name", "a"."group_name", "g"."label" as "group_label", "g"."priority" as "group_priority", ' +
  '"a"."value_type", "a"."priority", "a"."manual", "a"."active", "a"."private", "o"."client_id" as "service_name", "o"."name" as "service_label"';

/** The page of the caller's visible, active, normal-priority attributes; parameters from `$first`: groups, manual, active, priority, limit, offset. */
function attributePage(first: number): string {
  const g = first;
  return (
    `(select ${ATTRIBUTE_COLUMNS}, count(*) over () as total from "attributes" as "a" inner join "groups" as "g" on "g"."name" = "a"."group_name" ` +
    `left join "oauth_clients" as "o" on "o"."id" = "a"."owner_client_pk" where "a"."user_id" = {user} and ("a"."group_name" in ${groupList(g)} or "a"."manual" = $${g + G}) ` +
    `and "a"."active" = $${g + G + 1} and "a"."priority" < $${g + G + 2} order by "g"."priority" asc, "a"."priority" asc, "a"."name" asc limit $${g + G + 3}` +
    ' offset $' +
    (g + G + 4) +
    ') as "p" order by "p"."group_priority" asc, "p"."priority" asc, "p"."name" asc'
  );
}

function pageParams(limit: number, offset: number): unknown[] {
  return [...GROUP_NAMES, true, true, LOW_PRIORITY, limit, offset];
}

/** $1 date_max (null: today), $2 days, then the page's. */
const WITH_VALUES: Query = {
  select:
    `select "p".*, coalesce((
       select json_agg(json_build_object('date', v.date, 'num', v.value_num, 'text', v.value_text))
       from attribute_values v
       where v.user_id = p.user_id and v.attribute_id = p.id and v.date between coalesce($1::date, {today}) - ($2::int - 1) and coalesce($1::date, {today})
     ), '[]'::json) as stored_values, true as d_present from ` + attributePage(3),
};

/** $1 now, then the page's. */
const ATTRIBUTES: Query = {
  select:
    `select "p".*, coalesce((
       select json_agg(json_build_object('name', c.client_id, 'label', c.name) order by s.acquired_at, c.client_id)
       from attribute_services s
       join oauth_clients c on c.id = s.client_pk
       where s.user_id = "p".user_id and s.attribute_id = "p".id
         and (c.builtin or exists (
           select 1 from tokens t
           where t.user_id = s.user_id and t.client_pk = s.client_pk and t.revoked_at is null and t.replaced_at is null and coalesce(t.refresh_expires_at, t.access_expires_at) > $1))
     ), '[]'::json) as available_services, true as d_present from ` + attributePage(2),
};

/** $1 the attribute, the groups, manual, date_max (null: today), limit, offset. */
const VALUES: Query = {
  select:
    'select "v"."date", "v"."value_num", "v"."value_text", "a"."value_type", "n"."total", true as d_present from (select "a"."id", "a"."user_id", "a"."value_type" from "attributes" as "a" ' +
    `where "a"."user_id" = {user} and "a"."name" = $1 and ("a"."group_name" in ${groupList(2)} or "a"."manual" = $${2 + G})) as "a" cross join lateral (
         select count(*) as total from attribute_values c
         where c.user_id = a.user_id and c.attribute_id = a.id and c.date <= coalesce($${3 + G}::date, {today})
       ) as n cross join lateral (
         select v.date, v.value_num, v.value_text from attribute_values v
         where v.user_id = a.user_id and v.attribute_id = a.id and v.date <= coalesce($${3 + G}::date, {today})
         order by v.date desc limit $${4 + G} offset $${5 + G}
       ) as v order by "v"."date" desc`,
};

/** The groups, manual, the groups, manual, limit, offset. */
const CORRELATIONS: Query = {
  select:
    'select "c"."date", "c"."period", "c"."offset", "a1"."name" as "attribute", "a2"."name" as "attribute2", "c"."value", "c"."p", "c"."percentage", "c"."stars", ' +
    '"c"."second_person", array_to_json("c"."second_person_elements") as "second_person_elements", "c"."strength_description", "c"."stars_description", count(*) over () as total, true as d_present from "correlations" as "c" ' +
    'inner join "attributes" as "a1" on "a1"."user_id" = "c"."user_id" and "a1"."id" = "c"."attribute_id" ' +
    'inner join "attributes" as "a2" on "a2"."user_id" = "c"."user_id" and "a2"."id" = "c"."attribute2_id" ' +
    `where "c"."user_id" = {user} and ((("a1"."group_name" in ${groupList(1)} or "a1"."manual" = $${1 + G})) or (("a2"."group_name" in ${groupList(2 + G)} or "a2"."manual" = $${2 + 2 * G}))) ` +
    `and c.date = (select max(w.date) from derived_weeks w where w.user_id = {user}) order by abs(c.value) desc, a1.name, a2.name, c."offset" desc limit $${3 + 2 * G} offset $${4 + 2 * G}`,
};

/** $1 the row limit (1). */
const PROFILE: Query = {
  select:
    'select "id", "username", "first_name", "last_name", "avatar", "bio", "url", "timezone", "private", "imperial_distance", "imperial_weight", "imperial_energy", ' +
    '"imperial_liquid", "imperial_temperature", "trial", "delinquent", "simple_token_version", true as d_present from "users" where "id" = {user} limit $1',
};

/**
 * The writes, as the fastest correct plain server would make them: each batch is part of the
 * request's one statement: the items as arrays through unnest, joined with the caller (no caller:
 * nothing written) and the person's attributes for the ownership check, upserted with ON CONFLICT,
 * and the changed days recorded. Checks it makes: the attribute exists and the service owns it,
 * and the value's JSON type and range suit the attribute (in SQL, below); it skips scopes (every
 * bench token has every scope) and increments only types without a range (integers, floats,
 * periods), refusing the others rather than checking their totals. An upsert cannot touch a row
 * twice, so repeated (attribute, day) pairs of one batch are merged in the statement: the last
 * update wins, increments are summed and each answers its running total.
 */
const VALID_VALUE = `case when a.value_type = 2 then jsonb_typeof(i.value) = 'string'
         when jsonb_typeof(i.value) <> 'number' then false
         else case when a.value_type not in (1, 5) and (i.value)::numeric % 1 <> 0 then false
                   when a.value_type = 7 then (i.value)::numeric in (0, 1)
                   when a.value_type = 8 then (i.value)::numeric between 1 and 9
                   when a.value_type = 5 then (i.value)::numeric between 0 and 1
                   when a.template_name = 'mood' then (i.value)::numeric between 1 and 9
                   else true end end`;

/** $1 names, $2 days, $3 values (JSON), $4 now. */
const UPDATE_BATCH: Query = {
  ctes: `items as (
    select * from unnest($1::text[], $2::date[], $3::jsonb[]) with ordinality as i(name, date, value, position)
  ), accepted as (
    select i.position, caller.user_id, a.id as attribute_id, i.date,
           case when a.value_type = 2 then null else (i.value)::float8 end as value_num,
           case when a.value_type = 2 then i.value #>> '{}' end as value_text
      from caller join attributes a on a.user_id = caller.user_id and a.owner_client_pk = caller.client_pk join items i on a.name = i.name
     where ${VALID_VALUE}
  ), written as (
    insert into attribute_values (user_id, attribute_id, date, value_num, value_text, updated_at)
    select distinct on (attribute_id, date) user_id, attribute_id, date, value_num, value_text, $4::timestamptz
      from accepted order by attribute_id, date, position desc
    on conflict (user_id, attribute_id, date) do update set value_num = excluded.value_num, value_text = excluded.value_text, updated_at = excluded.updated_at
    returning user_id, date
  ), changed as (
    insert into value_changes (user_id, date, changed_at)
    select distinct user_id, date, $4::timestamptz from written order by 2
    on conflict (user_id, date) do update set changed_at = excluded.changed_at
  )`,
  select: 'select position, true as d_present from accepted',
};

/** $1 names, $2 days (null: today), $3 deltas (JSON), $4 now. */
const INCREMENT_BATCH: Query = {
  ctes: `items as (
    select * from unnest($1::text[], $2::date[], $3::jsonb[]) with ordinality as i(name, date, value, position)
  ), accepted as (
    select i.position, caller.user_id, a.id as attribute_id, coalesce(i.date, caller.today) as date, (i.value)::float8 as delta
      from caller join attributes a on a.user_id = caller.user_id and a.owner_client_pk = caller.client_pk join items i on a.name = i.name
     where a.value_type in (0, 1, 3) and a.template_name is distinct from 'mood' and jsonb_typeof(i.value) = 'number'
       and (a.value_type = 1 or (i.value)::numeric % 1 = 0)
  ), written as (
    insert into attribute_values (user_id, attribute_id, date, value_num, value_text, updated_at)
    select user_id, attribute_id, date, sum(delta), null, $4::timestamptz from accepted group by user_id, attribute_id, date order by attribute_id, date
    on conflict (user_id, attribute_id, date) do update set value_num = coalesce(attribute_values.value_num, 0) + excluded.value_num, updated_at = excluded.updated_at
    returning user_id, attribute_id, date, value_num
  ), changed as (
    insert into value_changes (user_id, date, changed_at)
    select distinct user_id, date, $4::timestamptz from written order by 2
    on conflict (user_id, date) do update set changed_at = excluded.changed_at
  )`,
  // Each item's total: the day's new total less the deltas of the later items of that day.
  select: `select a.position, a.date, w.value_num - coalesce(sum(a.delta) over (partition by a.attribute_id, a.date order by a.position desc
                                                              rows between unbounded preceding and 1 preceding), 0) as current, true as d_present
    from accepted a join written w on w.attribute_id = a.attribute_id and w.date = a.date`,
};

/** $1 names, $2 now. */
const ACQUIRE_BATCH: Query = {
  ctes: `items as (
    select * from unnest($1::text[]) with ordinality as i(name, position)
  ), taken as (
    update attributes a set owner_client_pk = caller.client_pk, active = true
      from caller, items i where a.user_id = caller.user_id and a.name = i.name
    returning a.user_id, a.id, a.name, a.owner_client_pk
  ), remembered as (
    insert into attribute_services (user_id, attribute_id, client_pk, acquired_at)
    select user_id, id, owner_client_pk, $2 from taken order by id
    on conflict (user_id, attribute_id, client_pk) do update set acquired_at = excluded.acquired_at
  )`,
  select: 'select i.position, t.name is not null as taken, true as d_present from items i left join taken t on t.name = i.name',
};

/** $1 names, $2 labels, $3 groups, $4 value types, $5 now. */
const CREATE_BATCH: Query = {
  ctes: `items as (
    select * from unnest($1::text[], $2::text[], $3::text[], $4::int[]) with ordinality as i(name, label, group_name, value_type, position)
  ), created as (
    insert into attributes (user_id, name, label, template_name, group_name, value_type, priority, manual, active, owner_client_pk, created_at)
    select caller.user_id, i.name, i.label, null, i.group_name, i.value_type, case when i.group_name = 'custom' and i.value_type = 0 then 2 else 5 end, true, true, caller.client_pk, $5
      from caller, items i order by i.name
    on conflict (user_id, name) do nothing
    returning user_id, id, name, owner_client_pk, priority, manual
  ), remembered as (
    insert into attribute_services (user_id, attribute_id, client_pk, acquired_at)
    select user_id, id, owner_client_pk, $5 from created order by id
  )`,
  select: 'select i.position, c.name is not null as created, c.priority, c.manual, true as d_present from items i left join created c on c.name = i.name',
};

export interface Page<T> {
  count: number;
  results: T[];
}

/**
 * The v2 Attribute from a row, shaped in JavaScript as a plain server would (Daybook has
 * PostgreSQL write it: attributeLaterals in src/domain/tracking/attributes.ts; the bench's check of
 * equal answers holds the two together).
 */
function attributeObject(row: AttributeRow): AttributeObject {
  return {
    template: row.template_name,
    name: row.name,
    label: row.label,
    group: { name: row.group_name as GroupName, label: row.group_label, priority: row.group_priority },
    service: row.service_name === null ? null : { name: row.service_name, label: row.service_label ?? row.service_name },
    active: row.active,
    priority: row.priority,
    manual: row.manual,
    value_type: row.value_type as ValueType,
    value_type_description: VALUE_TYPE_DESCRIPTIONS[row.value_type],
    available_services: row.available_services,
  };
}

type StoredValue = { date: string; num: unknown; text: unknown };

/** The answer when the gate passed: `shape` of the data rows. */
function answered<R, T>(outcome: { gate: Gate; rows: R[] }, shape: (rows: R[], today: string) => T): Answered<T> {
  return outcome.gate.pass ? { ok: true, gate: outcome.gate, result: shape(outcome.rows, outcome.gate.today) } : { ok: false, gate: outcome.gate };
}

export async function withValues(
  pool: pg.Pool,
  asker: Asker,
  dateMax: string | null,
  days: number,
  limit: number,
  offset: number,
): Promise<Answered<Page<unknown>>> {
  type Row = AttributeRow & { total: number; stored_values: StoredValue[] };
  return answered(await run<Row>(pool, asker, WITH_VALUES, [dateMax, days, ...pageParams(limit, offset)]), (rows, today) => {
    const dates = daysEndingAt(dateMax ?? today, days);
    return {
      count: rows[0]?.total ?? 0,
      results: rows.map(({ total: _total, stored_values: stored, ...row }) => {
        const byDate = new Map<string, JsonValue>(stored.map((v) => [v.date, typedValue(row.value_type, v.num, v.text)]));
        const { available_services: _none, ...attribute } = attributeObject({ ...row, available_services: [] });
        return { ...attribute, values: dates.map((date) => ({ date, value: byDate.get(date) ?? null })) };
      }),
    };
  });
}

export async function attributes(pool: pg.Pool, asker: Asker, limit: number, offset: number): Promise<Answered<Page<unknown>>> {
  return answered(await run<AttributeRow & { total: number }>(pool, asker, ATTRIBUTES, [asker.now, ...pageParams(limit, offset)]), (rows) => ({
    count: rows[0]?.total ?? 0,
    results: rows.map(attributeObject),
  }));
}

export async function values(
  pool: pg.Pool,
  asker: Asker,
  attribute: string,
  dateMax: string | null,
  limit: number,
  offset: number,
): Promise<Answered<Page<unknown>>> {
  type Row = { date: string; value_num: number | null; value_text: string | null; value_type: number; total: number };
  return answered(await run<Row>(pool, asker, VALUES, [attribute, ...GROUP_NAMES, true, dateMax, limit, offset]), (rows) => ({
    count: rows[0]?.total ?? 0,
    results: rows.map((row) => ({ date: row.date, value: typedValue(row.value_type, row.value_num, row.value_text) })),
  }));
}

export async function correlations(pool: pg.Pool, asker: Asker, limit: number, offset: number): Promise<Answered<Page<unknown>>> {
  type Row = Parameters<typeof correlationObject>[0] & { total: number };
  return answered(await run<Row>(pool, asker, CORRELATIONS, [...GROUP_NAMES, true, ...GROUP_NAMES, true, limit, offset]), (rows) => ({
    count: rows[0]?.total ?? 0,
    results: rows.map(correlationObject),
  }));
}

/** The person's row, or undefined when the account is gone. */
export async function profile(pool: pg.Pool, asker: Asker): Promise<Answered<Record<string, unknown> | undefined>> {
  return answered(await run<Record<string, unknown>>(pool, asker, PROFILE, [1]), (rows) => rows[0]);
}

type Item = Record<string, unknown>;

export interface BatchAnswer {
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

/** Rows by item index (`position` counts from 1). */
function byIndex<R extends { position: string | number }>(rows: R[]): Map<number, R> {
  return new Map(rows.map((row) => [Number(row.position) - 1, row]));
}

export async function update(pool: pg.Pool, asker: Asker, items: Item[]): Promise<Answered<BatchAnswer>> {
  const values = [items.map((i) => i.name), items.map((i) => i.date), items.map((i) => JSON.stringify(i.value)), asker.now];
  return answered(await run<{ position: string }>(pool, asker, UPDATE_BATCH, values), (rows) => {
    const applied = byIndex(rows);
    return answerOf(items, (index) => (applied.has(index) ? items[index] : undefined), 'validation');
  });
}

export async function increment(pool: pg.Pool, asker: Asker, items: Item[]): Promise<Answered<BatchAnswer>> {
  const values = [items.map((i) => i.name), items.map((i) => i.date ?? null), items.map((i) => JSON.stringify(i.value)), asker.now];
  return answered(await run<{ position: string; date: string; current: number }>(pool, asker, INCREMENT_BATCH, values), (rows) => {
    const applied = byIndex(rows);
    return answerOf(
      items,
      (index) => {
        const row = applied.get(index);
        return row ? { ...items[index], date: row.date, current: row.current } : undefined;
      },
      'validation',
    );
  });
}

export async function acquire(pool: pg.Pool, asker: Asker, items: Item[]): Promise<Answered<BatchAnswer>> {
  return answered(await run<{ position: string; taken: boolean }>(pool, asker, ACQUIRE_BATCH, [items.map((i) => i.name), asker.now]), (rows) => {
    const taken = byIndex(rows);
    return answerOf(items, (index) => (taken.get(index)?.taken ? { name: items[index].name, active: true } : undefined), 'not_found');
  });
}

export async function create(pool: pg.Pool, asker: Asker, items: Item[]): Promise<Answered<BatchAnswer>> {
  const names = items.map((i) => createdName(String(i.label)));
  const values = [names, items.map((i) => i.label), items.map((i) => i.group), items.map((i) => i.value_type), asker.now];
  return answered(await run<{ position: string; created: boolean; priority: number; manual: boolean }>(pool, asker, CREATE_BATCH, values), (rows) => {
    const created = byIndex(rows);
    // The echo carries what was stored (issue 31 item 5), as Daybook's does.
    return answerOf(
      items,
      (index) => {
        const row = created.get(index);
        return row?.created ? { ...items[index], name: names[index], priority: row.priority, manual: row.manual } : undefined;
      },
      'already_exists',
    );
  });
}

/**
 * The read statements as the checked baseline sends them, with the parameters of one request each,
 * for EXPLAIN (explain.ts). They count a request under the token's rate-limit key, as a request does.
 */
export function readStatements(token: string, now: Date, limit: number): Array<{ name: string; text: string; values: unknown[] }> {
  const asker: Asker = { mode: 'checked', token, now, limit, address: '127.0.0.1' };
  const statement = (name: string, query: Query, values: unknown[]) => ({ name, text: render(query, 'checked'), values: [...askerParams(asker), ...values] });
  return [
    statement('with-values', WITH_VALUES, [null, 31, ...pageParams(20, 0)]),
    statement('values', VALUES, ['steps', ...GROUP_NAMES, true, null, 100, 0]),
    statement('attributes', ATTRIBUTES, [now, ...pageParams(100, 0)]),
    statement('correlations', CORRELATIONS, [...GROUP_NAMES, true, ...GROUP_NAMES, true, 100, 0]),
    statement('profile', PROFILE, [1]),
  ];
}

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
import { attributeObject, type AttributeRow } from '../../src/domain/attributes';
import { correlationObject } from '../../src/domain/correlations';
import { typedValue, storedValue, type JsonValue } from '../../src/domain/values';
import { daysEndingAt } from '../../src/domain/time';

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
    ' offset $' + (g + G + 4) + ') as "p" order by "p"."group_priority" asc, "p"."priority" asc, "p"."name" asc'
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

const LOCK_ATTRIBUTE_SQL =
  'select "id", "name", "label", "template_name", "group_name", "value_type", "priority", "manual", "active", "owner_client_pk" from "attributes" ' +
  'where "user_id" = $1 and "name" = $2 limit $3 for share';

const UPDATE_VALUE_SQL =
  'insert into "attribute_values" ("attribute_id", "date", "updated_at", "user_id", "value_num", "value_text") values ($1, $2, $3, $4, $5, $6) ' +
  'on conflict ("user_id", "attribute_id", "date") do update set "value_num" = excluded."value_num", "value_text" = excluded."value_text", "updated_at" = excluded."updated_at"';

const INCREMENT_VALUE_SQL =
  'insert into "attribute_values" ("attribute_id", "date", "updated_at", "user_id", "value_num", "value_text") values ($1, $2, $3, $4, $5, $6) ' +
  'on conflict ("user_id", "attribute_id", "date") do update set "value_num" = coalesce(attribute_values.value_num, 0) + excluded.value_num, "updated_at" = $7 returning "value_num"';

const RECORD_CHANGE_SQL =
  'insert into "value_changes" ("changed_at", "date", "user_id") values ($1, $2, $3) on conflict ("user_id", "date") do update set "changed_at" = excluded."changed_at"';

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

/** Runs each item in its own transaction, as Daybook does (a failed item never undoes another). */
async function batch(pool: pg.Pool, items: Item[], apply: (client: pg.PoolClient, item: Item) => Promise<Item>) {
  const success: Item[] = [];
  const failed: Item[] = [];
  for (const item of items) {
    const client = await pool.connect();
    try {
      await client.query('BEGIN;');
      const result = await apply(client, item);
      await client.query('COMMIT;');
      success.push(result);
    } catch (error) {
      await client.query('ROLLBACK');
      if (!(error instanceof Error && error.message === 'unauthorised')) throw error;
      failed.push({ ...item, error: error.message, error_code: 'unauthorised' });
    } finally {
      client.release();
    }
  }
  return { success, failed };
}

async function ownedAttribute(client: pg.PoolClient, writer: Writer, name: string): Promise<{ id: number; value_type: number }> {
  const { rows } = await client.query(prepared(LOCK_ATTRIBUTE_SQL, [writer.userId, name, 1]));
  if (rows.length === 0 || Number(rows[0].owner_client_pk) !== writer.clientPk) throw new Error('unauthorised');
  return rows[0];
}

export function update(pool: pg.Pool, writer: Writer, items: Item[], now: Date) {
  return batch(pool, items, async (client, item) => {
    const attribute = await ownedAttribute(client, writer, item.name as string);
    const stored = storedValue(attribute.value_type, item.value as number | string);
    await client.query(prepared(UPDATE_VALUE_SQL, [attribute.id, item.date, now, writer.userId, stored.value_num, stored.value_text]));
    await client.query(prepared(RECORD_CHANGE_SQL, [now, item.date, writer.userId]));
    return item;
  });
}

export function increment(pool: pg.Pool, writer: Writer, items: Item[], now: Date) {
  return batch(pool, items, async (client, item) => {
    const attribute = await ownedAttribute(client, writer, item.name as string);
    const date = (item.date as string | undefined) ?? writer.today;
    const { rows } = await client.query(prepared(INCREMENT_VALUE_SQL, [attribute.id, date, now, writer.userId, item.value, null, now]));
    await client.query(prepared(RECORD_CHANGE_SQL, [now, date, writer.userId]));
    return { ...item, date, current: rows[0].value_num };
  });
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

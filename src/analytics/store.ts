/**
 * Writing derived data, each kind in one statement (a JSON parameter, not bindings per row), inside
 * the caller's transaction. A week's averages and correlations replace that week's earlier set;
 * other weeks stay as history. Insights are inserted once: their dedupe key makes a rerun a no-op
 * (a change to their source days rechecks them: recheck.ts).
 */
import type { Knex } from 'knex';
import { knexRaw, sql } from '../db/sql';
import type { AverageSet } from './averages';
import type { CorrelationRecord } from './correlations';
import { dedupeKey, type Insight } from './insights';

/** Replaces the person's averages dated `date` with `sets`. */
export async function replaceAverages(trx: Knex.Transaction, userId: number, date: string, sets: AverageSet[]): Promise<void> {
  await trx('averages').where({ user_id: userId, date }).delete();
  if (sets.length === 0) return;
  const rows = sets.map((s) => ({ attribute_id: s.attributeId, overall: s.overall, ...s.weekdays }));
  await trx.raw(
    ...knexRaw(sql`insert into averages (user_id, attribute_id, date, overall, monday, tuesday, wednesday, thursday, friday, saturday, sunday)
     select ${userId}::bigint, r.attribute_id, ${date}::date, r.overall, r.monday, r.tuesday, r.wednesday, r.thursday, r.friday, r.saturday, r.sunday
     from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as r(attribute_id bigint, overall double precision, monday double precision,
       tuesday double precision, wednesday double precision, thursday double precision, friday double precision,
       saturday double precision, sunday double precision)`),
  );
}

/** Replaces the person's correlations dated `date` with `records`. */
export async function replaceCorrelations(trx: Knex.Transaction, userId: number, date: string, records: CorrelationRecord[]): Promise<void> {
  await trx('correlations').where({ user_id: userId, date }).delete();
  if (records.length === 0) return;
  const rows = records.map((c) => ({
    attribute_id: c.attributeId,
    attribute2_id: c.attribute2Id,
    offset: c.offset,
    period: c.period,
    value: c.value,
    p: c.p,
    q: c.q,
    percentage: c.percentage,
    stars: c.stars,
    strength_description: c.strengthDescription,
    stars_description: c.starsDescription,
    second_person: c.secondPerson,
    second_person_elements: c.secondPersonElements,
  }));
  await trx.raw(
    ...knexRaw(sql`insert into correlations (user_id, date, attribute_id, attribute2_id, "offset", period, value, p, q, percentage, stars,
       strength_description, stars_description, second_person, second_person_elements)
     select ${userId}::bigint, ${date}::date, r.attribute_id, r.attribute2_id, r."offset", r.period, r.value, r.p, r.q, r.percentage, r.stars,
       r.strength_description, r.stars_description, r.second_person,
       array(select jsonb_array_elements_text(r.second_person_elements))
     from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as r(attribute_id bigint, attribute2_id bigint, "offset" smallint, period integer,
       value double precision, p double precision, q double precision, percentage double precision, stars smallint,
       strength_description text, stars_description text, second_person text, second_person_elements jsonb)`),
  );
}

/**
 * Stores the insights not stored before, found as of the person's local date `asOf` from the values
 * of `sourceFrom` to `asOf` (their source days, recheck.ts); returns how many were new.
 */
export async function insertInsights(
  trx: Knex.Transaction,
  userId: number,
  insights: Insight[],
  created: Date,
  source: { asOf: string; sourceFrom: string },
): Promise<number> {
  if (insights.length === 0) return 0;
  const rows = insights.map((i) => ({
    type_name: i.type.name,
    period: i.type.period,
    priority: i.type.priority,
    attribute_id: i.attribute.id,
    target_date: i.targetDate,
    html: i.html,
    text: i.text,
    value: i.value ?? null,
    value2: i.value2 ?? null,
    dedupe_key: dedupeKey(i),
  }));
  // knex's raw (not `inTransaction`): the answer is the row count, not rows.
  const result = await trx.raw(
    ...knexRaw(sql`insert into insights (user_id, type_name, period, priority, attribute_id, target_date, created, html, text, value, value2, dedupe_key, as_of, source_from)
     select ${userId}::bigint, r.type_name, r.period, r.priority, r.attribute_id, r.target_date, ${created.toISOString()}::timestamptz, r.html, r.text, r.value, r.value2, r.dedupe_key,
       ${source.asOf}::date, ${source.sourceFrom}::date
     from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as r(type_name text, period integer, priority smallint, attribute_id bigint,
       target_date date, html text, text text, value text, value2 text, dedupe_key text)
     on conflict (user_id, dedupe_key) do nothing`),
  );
  return result.rowCount ?? 0;
}

/** Records a computed week (in the same transaction as its set). */
export async function recordWeek(
  trx: Knex.Transaction,
  row: { userId: number; date: string; attributes: number; tests: number; published: number; averages: number; durationMs: number; computedAt: Date },
): Promise<void> {
  await trx.raw(
    ...knexRaw(sql`insert into derived_weeks (user_id, date, attributes, tests, published, averages, duration_ms, computed_at)
     values (${row.userId}, ${row.date}, ${row.attributes}, ${row.tests}, ${row.published}, ${row.averages}, ${row.durationMs}, ${row.computedAt.toISOString()})
     on conflict (user_id, date) do update set attributes = excluded.attributes, tests = excluded.tests,
       published = excluded.published, averages = excluded.averages, duration_ms = excluded.duration_ms,
       computed_at = excluded.computed_at`),
  );
}

/** Remembers the local date insights were generated for. */
export async function markInsightsRun(trx: Knex.Transaction, userId: number, today: string): Promise<void> {
  await trx.raw(
    ...knexRaw(sql`insert into derive_state (user_id, insights_on, updated_at) values (${userId}, ${today}, now())
     on conflict (user_id) do update set insights_on = excluded.insights_on, updated_at = now()`),
  );
}

/** A value_changes row as read at the start of a run. */
export interface SeenChange {
  date: string;
  /** As Postgres' text, which keeps the microseconds a JS Date would drop. */
  changed_at: string;
}

/**
 * The person's pending value changes. Read before the data, so every change listed here is in
 * the data the run loads (the write that recorded it had committed).
 */
export async function pendingChanges(trx: Knex.Transaction, userId: number): Promise<SeenChange[]> {
  return trx('value_changes').where({ user_id: userId }).select('date', trx.raw('changed_at::text as changed_at'));
}

/**
 * Deletes the changes the run saw, unless they were recorded again since (a newer changed_at):
 * those stay for the next run. The rows are locked in date order first, the order in which batch
 * writes record their days (domain/tracking/writes/values.ts), so the two never wait on each other in a cycle.
 */
export async function drainChanges(trx: Knex.Transaction, userId: number, seen: SeenChange[]): Promise<void> {
  if (seen.length === 0) return;
  await trx.raw(
    ...knexRaw(sql`delete from value_changes c
      using (select v.date from value_changes v
               join jsonb_to_recordset(${JSON.stringify(seen)}::jsonb) as s(date date, changed_at timestamptz) on v.date = s.date and v.changed_at = s.changed_at
              where v.user_id = ${userId}
              order by v.date
                for update of v) as locked
      where c.user_id = ${userId} and c.date = locked.date`),
  );
}

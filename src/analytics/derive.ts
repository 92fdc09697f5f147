/**
 * One person's derive: load, compute, write, all inside one transaction.
 *
 * - A transaction-scoped advisory lock on the person serialises every derive and insight run of
 *   that person, whatever started it (the queue's workers on any instance, `npm run derive`).
 * - The person's values come from ONE query (series.ts), read in the same transaction, or with
 *   DATABASE_REPLICA_URLS on a replica that holds every write of the person (`loadFrom`).
 * - The week's averages and correlations replace that week's earlier set, insights are added once,
 *   and the week is recorded, in the same transaction: a run killed half-way (process, connection
 *   or an error) rolls back and leaves the previous results in place.
 */
import type { Knex } from 'knex';
import { addDays, isValidTimeZone, localDate } from '../domain/time';
import { computeAverages } from './averages';
import { computeCorrelations } from './correlations';
import { INSIGHT_LOOKBACK_DAYS, findInsights } from './insights';
import type { UserData } from './series';
import { loadUserData } from './load-user-data';
import { recheckInsights } from './recheck';
import { drainChanges, insertInsights, markInsightsRun, pendingChanges, recordWeek, replaceAverages, replaceCorrelations } from './store';
import { CORRELATION_WINDOW_DAYS, weekDate } from './week';
import { recordDerivedUpdated } from '../domain/webhooks/record';
import { ADVISORY_LOCKS } from '../db/advisory-locks';
import { knexRaw, sql } from '../db/sql';

/** Test seams: run inside the transaction at the named point (a test throws or kills the connection here). */
export interface DeriveHooks {
  /** After the week's averages and correlations are written, before insights and commit. */
  afterWrite?: (trx: Knex.Transaction) => Promise<void>;
}

export interface DeriveOptions {
  /** The clock: decides the person's today and so the week. */
  now: Date;
  hooks?: DeriveHooks;
  /**
   * Where the person's data is loaded from: a streaming replica that holds every write of the
   * person (src/db/replicas.ts `knexFor`, asked after the person's pending changes were read), or,
   * by default, the derive's own transaction on the primary.
   */
  loadFrom?: (userId: number) => Promise<Knex>;
}

/** What one derive did. */
export interface DeriveSummary {
  userId: number;
  /** The week's date (its Monday). */
  date: string;
  /** Numeric attributes loaded. */
  attributes: number;
  /** Attributes with enough data to be tested. */
  tested: number;
  /** Correlation tests run (pairs x offsets with enough paired days). */
  tests: number;
  published: number;
  averages: number;
  /** New insights stored. */
  insights: number;
  values: number;
  ms: number;
  /** Where the time went: waiting for the person's lock and loading, computing, writing (ms). */
  phases: { loadMs: number; computeMs: number; writeMs: number };
}

async function lockPerson(trx: Knex.Transaction, userId: number): Promise<void> {
  await trx.raw(...knexRaw(sql`select pg_advisory_xact_lock(${ADVISORY_LOCKS.derivedData}::int, (${userId}::bigint % 2147483647)::int)`));
}

/** The person's time zone (UTC if the stored name is not one this runtime knows); undefined if the person is gone. */
async function timezoneOf(db: Knex, userId: number): Promise<string | undefined> {
  const row = await db('users').where({ id: userId }).first<{ timezone: string } | undefined>('timezone');
  if (!row) return undefined;
  return isValidTimeZone(row.timezone) ? row.timezone : 'UTC';
}

/** An insight run's source days: the insights it stores as of `today` come from these (recheck.ts). */
function insightSource(today: string): { asOf: string; sourceFrom: string } {
  return { asOf: today, sourceFrom: addDays(today, -INSIGHT_LOOKBACK_DAYS) };
}

function countValues(data: UserData): number {
  return data.attributes.reduce((sum, a) => sum + a.count, 0);
}

/**
 * Computes the person's weekly set (averages, correlations) for the week containing their today,
 * and their insights; undefined when the person does not exist.
 */
export async function deriveUser(db: Knex, userId: number, options: DeriveOptions): Promise<DeriveSummary | undefined> {
  const started = performance.now();
  const timezone = await timezoneOf(db, userId);
  if (timezone === undefined) return undefined;
  const today = localDate(options.now, timezone);
  const date = weekDate(today);
  const from = [addDays(date, -CORRELATION_WINDOW_DAYS), addDays(today, -INSIGHT_LOOKBACK_DAYS)].sort()[0];
  return db.transaction(async (trx) => {
    const t0 = performance.now();
    await lockPerson(trx, userId);
    const changes = await pendingChanges(trx, userId);
    const data = await loadUserData((await options.loadFrom?.(userId)) ?? trx, userId, from, today);
    const t1 = performance.now();
    const averages = computeAverages(data, date);
    const correlations = computeCorrelations(data, date);
    const insights = findInsights(data, today);
    const t2 = performance.now();
    await replaceAverages(trx, userId, date, averages);
    await replaceCorrelations(trx, userId, date, correlations.published);
    await options.hooks?.afterWrite?.(trx);
    const rechecked = await recheckInsights(trx, userId, changes);
    const added = await insertInsights(trx, userId, insights, options.now, insightSource(today));
    await markInsightsRun(trx, userId, today);
    await drainChanges(trx, userId, changes);
    const ms = performance.now() - started;
    await recordWeek(trx, {
      userId,
      date,
      attributes: correlations.attributes,
      tests: correlations.tests,
      published: correlations.published.length,
      averages: averages.length,
      durationMs: ms,
      computedAt: options.now,
    });
    await recordDerivedUpdated(trx, userId, ['averages', 'correlations', ...(added + rechecked.updated + rechecked.withdrawn > 0 ? ['insights'] : [])], date);
    return {
      userId,
      date,
      attributes: data.attributes.length,
      tested: correlations.attributes,
      tests: correlations.tests,
      published: correlations.published.length,
      averages: averages.length,
      insights: added,
      values: countValues(data),
      ms: performance.now() - started,
      phases: { loadMs: t1 - t0, computeMs: t2 - t1, writeMs: performance.now() - t2 },
    };
  });
}

/** What one insight run did. */
export interface InsightRunSummary {
  userId: number;
  today: string;
  found: number;
  added: number;
  /** Stored insights brought up to date, and withdrawn, after their source days changed (recheck.ts). */
  updated: number;
  withdrawn: number;
}

/**
 * Generates the person's insights as of their today (after writes, and once a day): the same
 * findings as a derive, without the weekly statistics. Rechecks the stored insights whose source
 * days changed (recheck.ts) and drains the value changes it saw.
 */
export async function generateInsights(db: Knex, userId: number, options: Pick<DeriveOptions, 'now' | 'loadFrom'>): Promise<InsightRunSummary | undefined> {
  const timezone = await timezoneOf(db, userId);
  if (timezone === undefined) return undefined;
  const today = localDate(options.now, timezone);
  return db.transaction(async (trx) => {
    await lockPerson(trx, userId);
    const changes = await pendingChanges(trx, userId);
    const data = await loadUserData((await options.loadFrom?.(userId)) ?? trx, userId, addDays(today, -INSIGHT_LOOKBACK_DAYS), today);
    const insights = findInsights(data, today);
    const { updated, withdrawn } = await recheckInsights(trx, userId, changes);
    const added = await insertInsights(trx, userId, insights, options.now, insightSource(today));
    await markInsightsRun(trx, userId, today);
    await drainChanges(trx, userId, changes);
    if (added + updated + withdrawn > 0) await recordDerivedUpdated(trx, userId, ['insights'], today);
    return { userId, today, found: insights.length, added, updated, withdrawn };
  });
}

/**
 * The derived-data jobs on pg-boss, a queue in the same Postgres (its own `pgboss` schema, created
 * by `boss.start()`; no other server).
 *
 * Queues (all with pg-boss's `stately` policy: per singleton key at most one job waiting and one
 * running, on every instance together):
 * - `derive-user` {userId}: the person's weekly averages and correlations, plus insights.
 * - `insights-user` {userId}: the person's insights (after writes, and once a day).
 *   Both keyed `user:<id>`, so a person's job never runs twice at once, and a burst of requests
 *   for one person collapses into one waiting job. A transaction-scoped advisory lock in derive.ts
 *   also serialises a person's derive and insight runs against each other and the CLI.
 * - `derive-sweep` (cron hourly at :05, and once at start): enqueues `derive-user` for everyone
 *   with data whose current local week has no set yet (so each person's week starts on their own
 *   Monday, and a week missed while no worker ran is caught up), and `insights-user` for everyone
 *   whose insights have not run on their local today yet (the daily run).
 * - `value-changes-sweep` (cron every minute): enqueues `insights-user` for everyone with rows in
 *   `value_changes`, which the write endpoints insert in the same transaction as a write; the run
 *   deletes the rows it saw. `enqueueInsights(userId)` does the same at once.
 * - `import-run` {importId} and `import-sweep` (cron every minute): imports of /settings/import
 *   (jobs/import-jobs.ts).
 * - `housekeeping` (cron hourly at :17): deletes expired sessions, ended rate-limit windows, dead
 *   grants' tokens, old authorisation codes and idempotency keys past 24 hours (domain/housekeeping.ts).
 *
 * A job killed half-way leaves its transaction rolled back (the previous results stay); pg-boss
 * expires it after EXPIRE_SECONDS and retries it.
 */
import os from 'node:os';
import path from 'node:path';
import PgBoss from 'pg-boss';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { localDate } from '../domain/time';
import { deriveUser, generateInsights } from '../analytics/derive';
import type { Replicas } from '../db/replicas';
import { weekDate } from '../analytics/week';
import { sweepExpired } from '../domain/housekeeping';
import { DEFAULT_WEBHOOK_SETTINGS, DELIVER_QUEUE, startWebhookJobs, type WebhookSettings, type Webhooks } from './webhook-delivery';
import { ADVISORY_LOCKS, withSessionLock } from '../db/advisory-locks';
import { IMPORT_QUEUES, startImportJobs, type ImportJobs } from './import-jobs';
import { DEFAULT_IMPORT_ENGINE, type ImportEngine } from './import-engine';
import { knexRaw, raw, sql } from '../db/sql';
import { trackConnections } from '../db/pool';

export const QUEUES = {
  derive: 'derive-user',
  insights: 'insights-user',
  sweep: 'derive-sweep',
  changes: 'value-changes-sweep',
  housekeeping: 'housekeeping',
} as const;

/** Cron schedules (UTC). */
export const SCHEDULES = {
  sweep: '5 * * * *',
  changes: '* * * * *',
  housekeeping: '17 * * * *',
} as const;

const EXPIRE_SECONDS = 15 * 60;

/** People the hourly sweep reads per query. */
const SWEEP_PAGE = 1000;

/** pg-boss's schema (its default), whose `job` table the sweep reads. */
const BOSS_SCHEMA = 'pgboss';

export interface PersonJob {
  userId: number;
}

export interface JobsOptions {
  connectionString: string;
  db: Knex;
  logger: Logger;
  now: () => Date;
  /** Run job handlers in this process (default true); false only enqueues. */
  work?: boolean;
  /** Register the cron schedules (default: same as `work`). */
  schedule?: boolean;
  /** Handlers per queue per process (default 1). */
  concurrency?: number;
  /** How often an idle worker looks for jobs, in seconds (default 2, at least 0.5). */
  pollingIntervalSeconds?: number;
  /** People the hourly sweep reads per query (default SWEEP_PAGE). */
  sweepPageSize?: number;
  /** How often pg-boss's maintenance runs (expiring the jobs of dead workers), in seconds (pg-boss's default 120; tests shorten it). */
  maintenanceIntervalSeconds?: number;
  /** Webhook delivery settings (src/jobs/webhook-delivery.ts). */
  webhooks?: WebhookSettings;
  /** The streaming replicas the derive jobs load a person's data from (src/db/replicas.ts), when set. */
  replicas?: Replicas;
  /** The upload folder of imports (config IMPORT_DIR), whose orphaned files the import sweep removes. */
  importDir?: string;
  /** The import engine (tests may give another). */
  importEngine?: ImportEngine;
  /** Replaces the per-person work (tests). */
  run?: { derive?: (userId: number) => Promise<unknown>; insights?: (userId: number) => Promise<unknown> };
}

export interface Jobs {
  boss: PgBoss;
  /** Queues the person's weekly derive; null when one is already waiting. */
  enqueueDerive(userId: number): Promise<string | null>;
  /** Queues the person's insight run; null when one is already waiting. */
  enqueueInsights(userId: number): Promise<string | null>;
  /** The hourly sweep's work, callable directly. */
  sweep(): Promise<{ derive: number; insights: number }>;
  /** The value-changes sweep's work, callable directly. */
  sweepChanges(): Promise<number>;
  /** The webhook dispatcher and delivery queue (src/jobs/webhook-delivery.ts). */
  webhooks: Webhooks;
  /** The imports' queue (jobs/import-jobs.ts). */
  imports: ImportJobs;
  /** Waiting jobs (created or retrying) per queue, for the metrics. */
  queueSizes(): Promise<Record<string, number>>;
  /** Stops taking jobs, lets running ones finish (up to `timeoutMs`), closes pg-boss's pool. */
  stop(timeoutMs?: number): Promise<void>;
}

const personOptions = (userId: number): PgBoss.SendOptions => ({
  singletonKey: `user:${userId}`,
  retryLimit: 3,
  retryDelay: 60,
  retryBackoff: true,
  expireInSeconds: EXPIRE_SECONDS,
});

function safeLocalDate(now: Date, timezone: string): string {
  try {
    return localDate(now, timezone);
  } catch {
    return localDate(now, 'UTC');
  }
}

/**
 * Runs `work` while holding the queue set-up lock (a session advisory lock). pg-boss creates
 * each queue's partition with DDL (CREATE TABLE, ATTACH PARTITION, foreign keys) that deadlocks when
 * two processes create queues at once: found by test/robustness/instances.test.ts, where the second
 * of two instances started together on a fresh database failed to start ("deadlock detected").
 */
function serialised<T>(db: Knex, work: () => Promise<T>): Promise<T> {
  return withSessionLock(db, ADVISORY_LOCKS.queueSetup, work);
}

/** Starts pg-boss (creating or migrating its schema), its queues, and, when asked, workers and schedules. */
export async function startJobs(options: JobsOptions): Promise<Jobs> {
  const { db, logger, now } = options;
  const work = options.work ?? true;
  // pg-boss's pool ends without waiting for its connections to close: they are tracked, so that the
  // stop waits for them before PostgreSQL stops (db/pool.ts, `trackConnections`).
  const connections = trackConnections();
  const boss = new PgBoss({
    connectionString: options.connectionString,
    max: 3,
    application_name: 'daybook-jobs',
    ...({ Client: connections.Client } as object), // handed on to pg.Pool as is (pg-boss's types omit it)
    ...(options.maintenanceIntervalSeconds ? { maintenanceIntervalSeconds: options.maintenanceIntervalSeconds } : {}),
  });
  boss.on('error', (error) => logger.error({ err: error }, 'job queue error'));
  await boss.start();
  await serialised(db, async () => {
    for (const name of Object.values(QUEUES)) {
      await boss.createQueue(name, { name, policy: 'stately' });
    }
    await boss.createQueue(DELIVER_QUEUE, { name: DELIVER_QUEUE, policy: 'standard' });
    for (const name of IMPORT_QUEUES) await boss.createQueue(name, { name, policy: 'stately' });
  });

  const enqueueDerive = (userId: number) => boss.send(QUEUES.derive, { userId }, personOptions(userId));
  const enqueueInsights = (userId: number) => boss.send(QUEUES.insights, { userId }, personOptions(userId));

  const pageSize = options.sweepPageSize ?? SWEEP_PAGE;

  /** One page of the people with data, after the person `afterId`, with what the sweep decides on. */
  async function sweepPage(
    afterId: number,
  ): Promise<Array<{ id: number; timezone: string; last_week: string | null; insights_on: string | null; deriving: boolean }>> {
    // A person whose derive is waiting or running is left alone: that run records the week. (Found
    // by test/robustness/instances.test.ts: with two instances, the second start-up sweep ran while
    // the first's derive was still running, saw no week yet, and queued the same derive again; the
    // stately queue takes one waiting job besides a running one.) Read in the same statement as
    // the weeks: a job is marked completed only after its week committed.
    return (
      await db.raw(
        ...knexRaw(sql`select u.id, u.timezone, (select max(w.date) from derived_weeks w where w.user_id = u.id) as last_week, s.insights_on,
                exists (select 1 from ${raw(BOSS_SCHEMA)}.job j
                         where j.name = ${QUEUES.derive} and j.singleton_key = 'user:' || u.id and j.state in ('created', 'retry', 'active')) as deriving
           from users u
           left join derive_state s on s.user_id = u.id
          where u.id > ${afterId} and exists (select 1 from attribute_values v where v.user_id = u.id)
          order by u.id
          limit ${pageSize}`),
      )
    ).rows;
  }

  /** Queues what is due for everyone with data, a page of people at a time (in id order). */
  async function sweep(): Promise<{ derive: number; insights: number }> {
    const at = now();
    let derive = 0;
    let insights = 0;
    for (let rows = await sweepPage(0); rows.length > 0; rows = rows.length < pageSize ? [] : await sweepPage(rows[rows.length - 1].id)) {
      for (const row of rows) {
        const today = safeLocalDate(at, row.timezone);
        if (row.last_week === null || row.last_week < weekDate(today)) {
          if (!row.deriving && (await enqueueDerive(row.id))) derive++;
        } else if (row.insights_on === null || row.insights_on < today) {
          if (await enqueueInsights(row.id)) insights++;
        }
      }
    }
    return { derive, insights };
  }

  async function sweepChanges(): Promise<number> {
    const rows: Array<{ user_id: number }> = await db('value_changes').distinct('user_id');
    let queued = 0;
    for (const row of rows) if (await enqueueInsights(row.user_id)) queued++;
    return queued;
  }

  const replicas = options.replicas;
  const loadFrom = replicas && ((userId: number) => replicas.knexFor(userId));
  const runDerive = options.run?.derive ?? ((userId: number) => deriveUser(db, userId, { now: now(), loadFrom }));
  const runInsights = options.run?.insights ?? ((userId: number) => generateInsights(db, userId, { now: now(), loadFrom }));

  const webhooks = await startWebhookJobs({
    boss,
    db,
    logger,
    now,
    settings: options.webhooks ?? DEFAULT_WEBHOOK_SETTINGS,
    work,
    pollingIntervalSeconds: options.pollingIntervalSeconds ?? 2,
  });
  const imports = await startImportJobs({
    boss,
    db,
    logger,
    now,
    engine: options.importEngine ?? DEFAULT_IMPORT_ENGINE,
    dir: options.importDir ?? path.join(os.tmpdir(), 'daybook-imports'),
    work,
    schedule: options.schedule ?? work,
    pollingIntervalSeconds: options.pollingIntervalSeconds ?? 2,
    onImported: enqueueDerive,
  });
  if (work) {
    const pollingIntervalSeconds = options.pollingIntervalSeconds ?? 2;
    const concurrency = options.concurrency ?? 1;
    for (let i = 0; i < concurrency; i++) {
      await boss.work<PersonJob>(QUEUES.derive, { pollingIntervalSeconds }, async ([job]) => {
        const summary = await runDerive(job.data.userId);
        logger.info({ job: QUEUES.derive, userId: job.data.userId, summary }, 'derived data computed');
        return summary;
      });
      await boss.work<PersonJob>(QUEUES.insights, { pollingIntervalSeconds }, async ([job]) => {
        const summary = await runInsights(job.data.userId);
        logger.debug({ job: QUEUES.insights, userId: job.data.userId, summary }, 'insights generated');
        return summary;
      });
    }
    await boss.work(QUEUES.sweep, { pollingIntervalSeconds }, async () => {
      const queued = await sweep();
      logger.info({ job: QUEUES.sweep, queued }, 'derived-data sweep');
      return queued;
    });
    await boss.work(QUEUES.changes, { pollingIntervalSeconds }, async () => ({ queued: await sweepChanges() }));
    await boss.work(QUEUES.housekeeping, { pollingIntervalSeconds }, async () => {
      const deleted = await sweepExpired(db, now());
      logger.info({ job: QUEUES.housekeeping, deleted }, 'housekeeping');
      return deleted;
    });
  }
  if (options.schedule ?? work) {
    await boss.schedule(QUEUES.sweep, SCHEDULES.sweep);
    await boss.schedule(QUEUES.changes, SCHEDULES.changes);
    await boss.schedule(QUEUES.housekeeping, SCHEDULES.housekeeping);
    // Catch up at start rather than at the next hour (a fresh start, a week missed while down).
    await boss.send(QUEUES.sweep, {});
  }

  return {
    boss,
    enqueueDerive,
    enqueueInsights,
    sweep,
    sweepChanges,
    webhooks,
    imports,
    async queueSizes() {
      const names = [...Object.values(QUEUES), DELIVER_QUEUE, ...IMPORT_QUEUES];
      const sizes = await Promise.all(names.map((name) => boss.getQueueSize(name)));
      return Object.fromEntries(names.map((name, i) => [name, sizes[i] ?? 0]));
    },
    async stop(timeoutMs = 20_000) {
      await webhooks.stop();
      await boss.stop({ graceful: true, timeout: timeoutMs, wait: true });
      await connections.ended();
    },
  };
}

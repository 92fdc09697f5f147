/**
 * Prometheus metrics for operators (prom-client) at GET /metrics, served only when METRICS_TOKEN
 * is set and only to `Authorization: Bearer <METRICS_TOKEN>`. Each app has a registry of its own
 * (never prom-client's global one), so several apps in one process keep separate counts.
 *
 * - `daybook_http_requests_total` and `daybook_http_request_duration_seconds` by method, route
 *   template (ctx.state.route, recorded by serve.ts `recordRoute`; `unmatched` for unknown
 *   paths) and status; `daybook_rate_limited_total`: answers 429 (API rate limit, sign-in and sign-up throttles).
 * - `daybook_db_pool_connections{state}`: the database pool's (db/pool.ts) used, free and pending (waiting for a
 *   connection) counts, read at scrape time.
 * - `daybook_job_queue_size{queue}`: waiting jobs per pg-boss queue, only in a process that runs
 *   the job workers (Deps.jobs).
 * - `daybook_webhook_*`: webhook deliveries (src/http/webhook-metrics.ts), read from PostgreSQL at
 *   scrape time, so the same on every instance whichever process delivered.
 * - Node's process metrics (`daybook_process_*`, `daybook_nodejs_*`).
 *
 * The other counts are this instance's: Prometheus scrapes every instance and sums them.
 */
import crypto from 'node:crypto';
import Router from '@koa/router';
import type Koa from 'koa';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { poolCounts } from '../db/pool';
import { batchDeadlockRetries } from '../domain/tracking/writes/batch';
import { unauthorized } from './errors';
import { UNMATCHED_ROUTE } from './serve';
import { registerWebhookMetrics } from './webhook-metrics';

export const METRICS_PATH = '/metrics';

const PREFIX = 'daybook_';

export interface MetricsOptions {
  /** METRICS_TOKEN. */
  token: string;
  db: Knex;
  logger: Logger;
  /** Waiting jobs per queue, when this process runs the job workers (Jobs.queueSizes). */
  queueSizes?: () => Promise<Record<string, number>>;
}

export interface Metrics {
  registry: Registry;
  /** Outermost middleware: counts and times every request once its status is final. */
  observe: Koa.Middleware;
  /** GET /metrics. */
  router: Router;
}

const sha256 = (text: string) => crypto.createHash('sha256').update(text).digest();

/** Does the Authorization header carry the token? Compared as hashes, in constant time. */
function bearerMatches(header: string, expected: Buffer): boolean {
  const presented = /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1] ?? '';
  return crypto.timingSafeEqual(sha256(presented), expected) && presented !== '';
}

export function createMetrics(options: MetricsOptions): Metrics {
  const { db, logger, queueSizes } = options;
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: PREFIX });

  const labelNames = ['method', 'route', 'status'] as const;
  const requests = new Counter({
    name: `${PREFIX}http_requests_total`,
    help: 'HTTP requests answered, by method, route template and status.',
    labelNames,
    registers: [registry],
  });
  const durations = new Histogram({
    name: `${PREFIX}http_request_duration_seconds`,
    help: 'Time from receiving an HTTP request to its answer (before a streamed body is sent), by method, route template and status.',
    labelNames,
    registers: [registry],
  });
  const rateLimited = new Counter({
    name: `${PREFIX}rate_limited_total`,
    help: 'Requests answered 429 Too Many Requests (the API rate limit and the sign-in and sign-up throttles).',
    registers: [registry],
  });
  new Counter({
    name: `${PREFIX}batch_deadlock_retries_total`,
    help: 'Batch-write transactions run again after PostgreSQL broke a deadlock (batches lock in a fixed order, so this stays 0 unless something else holds their rows).',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(batchDeadlockRetries());
    },
  });
  new Gauge({
    name: `${PREFIX}db_pool_connections`,
    help: "Connections of this instance's database pool: used (lent out), free (idle) and pending (requests waiting for one).",
    labelNames: ['state'],
    registers: [registry],
    collect() {
      const counts = poolCounts(db.client as object);
      if (!counts) return this.reset(); // closed
      this.set({ state: 'used' }, counts.used);
      this.set({ state: 'free' }, counts.free);
      this.set({ state: 'pending' }, counts.pending);
    },
  });
  if (queueSizes) {
    new Gauge({
      name: `${PREFIX}job_queue_size`,
      help: 'Jobs waiting (created or retrying, not yet active) per job queue.',
      labelNames: ['queue'],
      registers: [registry],
      async collect() {
        try {
          for (const [queue, size] of Object.entries(await queueSizes())) this.set({ queue }, size);
        } catch (error) {
          // A scrape still answers the other metrics when the queue cannot be read.
          this.reset();
          logger.warn({ err: error }, 'metrics: reading the job queue sizes failed');
        }
      },
    });
  }

  const webhookMetrics = registerWebhookMetrics(registry, PREFIX, db, logger);

  const observe: Koa.Middleware = async (ctx, next) => {
    const stop = durations.startTimer();
    try {
      await next();
    } finally {
      const labels = { method: ctx.method, route: ctx.state.route ?? UNMATCHED_ROUTE, status: String(ctx.status) };
      requests.inc(labels);
      stop(labels);
      if (ctx.status === 429) rateLimited.inc();
    }
  };

  const expected = sha256(options.token);
  const router = new Router();
  router.get(METRICS_PATH, async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    if (!bearerMatches(ctx.get('Authorization'), expected)) {
      throw unauthorized('The metrics need the metrics token: send "Authorization: Bearer <METRICS_TOKEN>".', 'Bearer realm="metrics"');
    }
    ctx.state.quietLog = true; // a scrape every few seconds is not worth an info line each
    ctx.type = registry.contentType;
    ctx.body = `${await registry.metrics()}\n${await webhookMetrics.histogramText()}`;
  });

  return { registry, observe, router };
}

/**
 * Webhook delivery metrics (docs/webhooks.md, "Metrics"; docs/operating.md), read from PostgreSQL
 * at scrape time (src/domain/webhooks/stats.ts): deliveries run in whichever process runs the job
 * workers (the web process with WORKERS=1, or `npm run worker`, which serves no HTTP), so no
 * process's own memory could count them all. Every instance shows the same totals: scraped from
 * several instances, take one (`max by`), do not add them up.
 *
 * - `daybook_webhook_attempts_total{event, outcome}`: HTTP attempts (success, http_error, timeout,
 *   refused, connection_error).
 * - `daybook_webhook_attempt_duration_seconds{event, outcome}`: their durations (a histogram).
 * - `daybook_webhook_deliveries_total{event, outcome}`: deliveries that ended: delivered, or
 *   failed for good (retries ran out, or the endpoint was disabled).
 * - `daybook_webhook_deliveries_pending{state}`: deliveries not ended: queued (not tried yet) and
 *   retrying; `daybook_webhook_oldest_pending_seconds`: the age of the oldest.
 * - `daybook_webhook_endpoints{state}`: endpoints healthy, failing (enabled, failures running) and
 *   disabled.
 */
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { Counter, Gauge, type Registry } from 'prom-client';
import { ATTEMPT_DURATION_BUCKETS, readDeliveryStats, type DeliveryStats } from '../domain/webhooks/stats';

/** One scrape reads the statistics once, whichever metric asks first. */
function perScrape(read: () => Promise<DeliveryStats>): () => Promise<DeliveryStats | undefined> {
  let current: { at: number; stats: Promise<DeliveryStats | undefined> } | undefined;
  return () => {
    // A scrape collects its metrics within milliseconds of each other.
    if (!current || Date.now() - current.at > 1000) current = { at: Date.now(), stats: read().catch(() => undefined) };
    return current.stats;
  };
}

/** A label value in the Prometheus text format (backslash, double quote and newline escaped). */
const labelValue = (value: string) => value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');

/**
 * The attempt-duration histogram in the Prometheus text format, from the stored bucket counts.
 * Written here because prom-client's Histogram only counts observations made in its own process
 * and has no public way to take stored counts; the format is Prometheus's own (exposition format
 * 0.0.4, which /metrics serves).
 */
function histogramText(name: string, help: string, stats: DeliveryStats | undefined): string {
  const series = new Map<string, { labels: string; counts: number[]; sum: number }>();
  for (const row of stats?.attempts ?? []) {
    const labels = `event="${labelValue(row.event_type)}",outcome="${labelValue(row.outcome)}"`;
    const entry = series.get(labels) ?? { labels, counts: new Array<number>(ATTEMPT_DURATION_BUCKETS.length + 1).fill(0), sum: 0 };
    entry.counts[row.bucket] += row.attempts;
    entry.sum += row.duration_ms_sum / 1000;
    series.set(labels, entry);
  }
  const lines = [`# HELP ${name} ${help}`, `# TYPE ${name} histogram`];
  for (const { labels, counts, sum } of series.values()) {
    let cumulative = 0;
    ATTEMPT_DURATION_BUCKETS.forEach((bound, i) => {
      cumulative += counts[i];
      lines.push(`${name}_bucket{${labels},le="${bound}"} ${cumulative}`);
    });
    cumulative += counts[ATTEMPT_DURATION_BUCKETS.length];
    lines.push(`${name}_bucket{${labels},le="+Inf"} ${cumulative}`, `${name}_sum{${labels}} ${sum}`, `${name}_count{${labels}} ${cumulative}`);
  }
  return lines.join('\n') + '\n';
}

/** The webhook metrics: registered in `registry`, and the histogram's text, appended to the registry's on each scrape. */
export interface WebhookMetrics {
  histogramText(): Promise<string>;
}

export function registerWebhookMetrics(registry: Registry, prefix: string, db: Knex, logger: Logger): WebhookMetrics {
  const stats = perScrape(() =>
    readDeliveryStats(db).catch((error: unknown) => {
      // A scrape still answers the other metrics when the database cannot be read.
      logger.warn({ err: error }, 'metrics: reading the webhook delivery counts failed');
      throw error;
    }),
  );
  new Counter({
    name: `${prefix}webhook_attempts_total`,
    help: 'Webhook delivery attempts (HTTP requests to endpoints), by event type and outcome: success (2xx), http_error (another status), timeout, refused (address rules), connection_error. All processes together (read from PostgreSQL).',
    labelNames: ['event', 'outcome'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const row of (await stats())?.attempts ?? []) this.inc({ event: row.event_type, outcome: row.outcome }, row.attempts);
    },
  });
  new Counter({
    name: `${prefix}webhook_deliveries_total`,
    help: 'Webhook deliveries that ended, by event type and outcome: delivered (a 2xx answer) or failed (retries ran out, or the endpoint was disabled). A re-sent delivery counts again when it ends again.',
    labelNames: ['event', 'outcome'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const row of (await stats())?.finished ?? []) this.inc({ event: row.event_type, outcome: row.outcome }, row.deliveries);
    },
  });
  new Gauge({
    name: `${prefix}webhook_deliveries_pending`,
    help: 'Webhook deliveries not ended yet: queued (not tried yet) and retrying (tried, failed, a retry to come).',
    labelNames: ['state'],
    registers: [registry],
    async collect() {
      const pending = (await stats())?.pending;
      if (!pending) return this.reset();
      this.set({ state: 'queued' }, pending.queued);
      this.set({ state: 'retrying' }, pending.retrying);
    },
  });
  new Gauge({
    name: `${prefix}webhook_oldest_pending_seconds`,
    help: 'Age of the oldest webhook delivery not ended yet (0 when none): deliveries are retried for 24 hours.',
    registers: [registry],
    async collect() {
      const pending = (await stats())?.pending;
      if (!pending) return this.reset();
      this.set(pending.oldestAgeSeconds);
    },
  });
  new Gauge({
    name: `${prefix}webhook_endpoints`,
    help: 'Webhook endpoints by state: healthy, failing (enabled, deliveries failing; disabled after 24 hours of it) and disabled.',
    labelNames: ['state'],
    registers: [registry],
    async collect() {
      const endpoints = (await stats())?.endpoints;
      if (!endpoints) return this.reset();
      for (const [state, count] of Object.entries(endpoints)) this.set({ state }, count);
    },
  });
  return {
    histogramText: async () =>
      histogramText(
        `${prefix}webhook_attempt_duration_seconds`,
        'Duration of webhook delivery attempts, connection included, by event type and outcome. All processes together (read from PostgreSQL).',
        await stats(),
      ),
  };
}

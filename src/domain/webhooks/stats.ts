/**
 * Delivery counts for the metrics (docs/webhooks.md, "Metrics"; docs/operating.md): kept in
 * PostgreSQL, in the same transaction as the attempt they count, so they are right whichever
 * process delivers (the web process with WORKERS=1 or `npm run worker`, which serves no HTTP) and
 * any instance's /metrics reads the same totals. The rows are few (event type x outcome x
 * duration bucket), so a scrape reads them all in one cheap statement.
 *
 * Counting rows rather than the deliveries themselves keeps the totals monotonic (Prometheus
 * counters): deleting an endpoint deletes its deliveries, never its counts.
 */
import type { Knex } from 'knex';
import { ATTEMPT_ERRORS, type AttemptResult } from './attempt';
import type { DeliveredEventType } from './events';

/** Upper bounds (seconds) of the attempt-duration buckets; a last bucket (+Inf) takes the rest. Attempts stop at WEBHOOK_TIMEOUT_MS (5 s, at most 60 s). */
export const ATTEMPT_DURATION_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60] as const;

/** What one attempt got, as the metrics label it. */
export type AttemptOutcome = 'success' | 'http_error' | 'timeout' | 'refused' | 'connection_error';

/** How a delivery ended: a 2xx answer, or no retry left (or its endpoint disabled). */
export type DeliveryOutcome = 'delivered' | 'failed';

export function attemptOutcome(attempt: AttemptResult): AttemptOutcome {
  if (attempt.status !== null) return attempt.status >= 200 && attempt.status < 300 ? 'success' : 'http_error';
  if (attempt.error === ATTEMPT_ERRORS.timeout) return 'timeout';
  // postWebhook's refusals by the URL and address rules (url-safety.ts).
  if (attempt.error === ATTEMPT_ERRORS.refused) return 'refused';
  return 'connection_error';
}

/** The bucket index of a duration: the first bound it fits under, else the +Inf bucket. */
const bucketOf = (ms: number) => {
  const index = ATTEMPT_DURATION_BUCKETS.findIndex((bound) => ms <= bound * 1000);
  return index === -1 ? ATTEMPT_DURATION_BUCKETS.length : index;
};

/** Counts one attempt, in the transaction that records it. */
export async function countAttempt(trx: Knex.Transaction, eventType: DeliveredEventType, attempt: AttemptResult): Promise<void> {
  await trx('webhook_attempt_stats')
    .insert({ event_type: eventType, outcome: attemptOutcome(attempt), bucket: bucketOf(attempt.latencyMs), attempts: 1, duration_ms_sum: attempt.latencyMs })
    .onConflict(['event_type', 'outcome', 'bucket'])
    .merge({
      attempts: trx.raw('webhook_attempt_stats.attempts + 1'),
      duration_ms_sum: trx.raw('webhook_attempt_stats.duration_ms_sum + excluded.duration_ms_sum'),
    });
}

/** Counts a delivery that ended, in the transaction that ends it. */
export async function countFinished(db: Knex | Knex.Transaction, eventType: DeliveredEventType, outcome: DeliveryOutcome): Promise<void> {
  await db('webhook_delivery_totals')
    .insert({ event_type: eventType, outcome, deliveries: 1 })
    .onConflict(['event_type', 'outcome'])
    .merge({ deliveries: db.raw('webhook_delivery_totals.deliveries + 1') });
}

export interface AttemptStatsRow {
  event_type: string;
  outcome: AttemptOutcome;
  bucket: number;
  attempts: number;
  duration_ms_sum: number;
}

export interface DeliveryStats {
  attempts: AttemptStatsRow[];
  finished: Array<{ event_type: string; outcome: DeliveryOutcome; deliveries: number }>;
  /** Deliveries not ended yet: never tried (queued) and tried but to be retried (retrying). */
  pending: { queued: number; retrying: number; oldestAgeSeconds: number };
  /** Endpoints by state: enabled and healthy, enabled with failures running, disabled. */
  endpoints: { healthy: number; failing: number; disabled: number };
}

/** Everything the metrics show, as of now (4 statements: the counts' few rows, a partial index of the pending deliveries, the endpoints). */
export async function readDeliveryStats(db: Knex): Promise<DeliveryStats> {
  const attempts = await db('webhook_attempt_stats').select('event_type', 'outcome', 'bucket', 'attempts', 'duration_ms_sum');
  const finished = await db('webhook_delivery_totals').select('event_type', 'outcome', 'deliveries');
  const [pending] = await db('webhook_deliveries')
    .where({ status: 'pending' })
    .select(
      db.raw('count(*) filter (where attempts = 0) as queued'),
      db.raw('count(*) filter (where attempts > 0) as retrying'),
      db.raw('coalesce(extract(epoch from now() - min(created_at)), 0) as oldest'),
    );
  const [endpoints] = await db('webhook_endpoints').select(
    db.raw('count(*) filter (where disabled_at is null and failing_since is null) as healthy'),
    db.raw('count(*) filter (where disabled_at is null and failing_since is not null) as failing'),
    db.raw('count(*) filter (where disabled_at is not null) as disabled'),
  );
  return {
    attempts: attempts.map((row) => ({ ...row, bucket: Number(row.bucket), attempts: Number(row.attempts), duration_ms_sum: Number(row.duration_ms_sum) })),
    finished: finished.map((row) => ({ ...row, deliveries: Number(row.deliveries) })),
    pending: { queued: Number(pending.queued), retrying: Number(pending.retrying), oldestAgeSeconds: Math.max(0, Number(pending.oldest)) },
    endpoints: { healthy: Number(endpoints.healthy), failing: Number(endpoints.failing), disabled: Number(endpoints.disabled) },
  };
}

/**
 * Delivery counts for /metrics (docs/webhooks.md, "Metrics"; src/domain/webhooks/stats.ts): kept
 * in PostgreSQL by the delivery job, in the transaction of each attempt, so every instance's
 * /metrics shows the same totals whichever process delivered.
 *
 * - `webhook_attempt_stats`: HTTP attempts per event type, outcome and duration bucket (the
 *   bucket's index in ATTEMPT_DURATION_BUCKETS), with their summed duration: the attempt counter
 *   and the duration histogram.
 * - `webhook_delivery_totals`: deliveries that ended (delivered, or failed for good) per event type.
 * - A partial index of the pending deliveries, so a scrape counts the waiting ones without reading
 *   the delivered history.
 *
 * The deliveries' own rows already keep what the app page shows (attempts, the last attempt's
 * status, error and duration: `last_latency_ms`).
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table webhook_attempt_stats (
      event_type text not null,
      outcome text not null,
      bucket smallint not null,
      attempts bigint not null,
      duration_ms_sum double precision not null,
      primary key (event_type, outcome, bucket)
    );
    create table webhook_delivery_totals (
      event_type text not null,
      outcome text not null check (outcome in ('delivered', 'failed')),
      deliveries bigint not null,
      primary key (event_type, outcome)
    );
    create index webhook_deliveries_pending_idx on webhook_deliveries (created_at, attempts) where status = 'pending';
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    drop index webhook_deliveries_pending_idx;
    drop table webhook_delivery_totals;
    drop table webhook_attempt_stats;
  `);
}

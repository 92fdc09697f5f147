/**
 * Deliveries that ended (delivered, or failed for good) are forgotten by housekeeping 90 days after
 * they were made (src/domain/housekeeping.ts, docs/webhooks.md "Delivery history"). A partial index
 * of the ended ones by age, so each hourly run finds its batch without reading the whole history.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`create index webhook_deliveries_ended_idx on webhook_deliveries (created_at) where status <> 'pending'`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`drop index webhook_deliveries_ended_idx`);
}

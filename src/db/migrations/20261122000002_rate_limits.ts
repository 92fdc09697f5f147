/**
 * The request-rate counters shared by every instance (rate-limiter-flexible's layout: one row per
 * key with its points and window end in epoch milliseconds). Created here rather than by the
 * library at start-up, so instances starting together never race to create it.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE rate_limits (
      key varchar(255) PRIMARY KEY,
      points integer NOT NULL DEFAULT 0,
      expire bigint
    )`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('rate_limits');
}

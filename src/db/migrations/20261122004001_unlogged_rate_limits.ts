/**
 * The request-rate counters become an UNLOGGED table.
 *
 * Every API request bumps its token's counter, so every read was a write transaction that waited
 * for its WAL record to reach the disk: the bench measured about 3 ms per request for that flush
 * on this machine, more than the rest of a typical read. An unlogged table writes no WAL, so
 * those commits do not wait. The price is what a rate limit can afford: after a crash of
 * PostgreSQL (not a clean restart) the counters start again from zero, and they are not copied
 * to streaming replicas (the counters are only ever used on the primary, which takes the writes).
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table rate_limits set unlogged');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('alter table rate_limits set logged');
}

/**
 * Sign-in failures and sign-up attempts, one row each, for the throttles (src/domain/identity/login-throttle.ts,
 * src/domain/identity/sign-up-throttle.ts). The throttles ask questions a per-key counter cannot answer:
 * failures of one account from one address, how many addresses an account's failures come from,
 * and failures made from one trusted device. Rows older than the longest window (an hour) are
 * deleted by housekeeping. Account names are stored hashed, never as typed.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table throttle_events (
      id bigint generated always as identity primary key,
      kind text not null check (kind in ('sign_in_failure', 'sign_up')),
      account_key text,
      address text not null,
      device_key text,
      at timestamptz not null
    )`);
  await knex.raw('create index throttle_events_account on throttle_events (account_key, at) where account_key is not null');
  await knex.raw('create index throttle_events_address on throttle_events (address, kind, at)');
  await knex.raw('create index throttle_events_device on throttle_events (device_key, at) where device_key is not null');
  await knex.raw('create index throttle_events_at on throttle_events (at)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('throttle_events');
}

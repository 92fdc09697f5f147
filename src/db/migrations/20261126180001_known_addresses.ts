/**
 * The networks each account has proved its password from (src/domain/identity/known-addresses.ts):
 * a sign-in from one of them is not held back by the account-wide delay, so failures from
 * elsewhere cannot keep the owner (her script, a new browser at home) out. One row per account
 * and network, renewed by each success; an account's rows older than the lifetime are deleted
 * when it next proves its password. Account names are stored hashed, as in `throttle_events`.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table sign_in_known_addresses (
      account_key text not null,
      network text not null,
      proved_at timestamptz not null,
      primary key (account_key, network)
    )`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('sign_in_known_addresses');
}

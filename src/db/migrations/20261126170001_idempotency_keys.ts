/**
 * Idempotency keys (docs/idempotency.md): one row per key a client sent with a data-changing v2
 * POST, holding the first answer so that a retry with the same key is answered it again. A row is
 * written in the same transaction as the request's own writes, so it exists exactly when they do.
 * The key is scoped: the same key sent by another client, for another person or to another
 * operation is another row. Rows older than 24 hours are deleted by housekeeping.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table idempotency_keys (
      scope text not null,
      operation text not null,
      key text not null,
      user_id bigint references users (id) on delete cascade,
      client_pk bigint references oauth_clients (id) on delete cascade,
      fingerprint text not null,
      status smallint,
      headers jsonb,
      body jsonb,
      created_at timestamptz not null,
      primary key (scope, operation, key)
    )`);
  await knex.raw('create index idempotency_keys_created_at on idempotency_keys (created_at)');
  await knex.raw('create index idempotency_keys_user on idempotency_keys (user_id) where user_id is not null');
  await knex.raw('create index idempotency_keys_client on idempotency_keys (client_pk) where client_pk is not null');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('idempotency_keys');
}

/**
 * Recording events in the outbox, inside the caller's transaction (docs/webhooks.md): the event
 * exists exactly when the change committed. Value changes and ownership changes are recorded by
 * triggers (the migration); these are the others. Nothing is recorded while no endpoint is enabled.
 */
import type { Knex } from 'knex';
import { knexRaw, sql } from '../../db/sql';

const ANY_ENABLED_ENDPOINT = sql`exists (select 1 from webhook_endpoints where disabled_at is null)`;

/** grant.revoked: the person disconnected the app `clientPk`. */
export async function recordGrantRevoked(trx: Knex.Transaction, userId: number, clientPk: number): Promise<void> {
  await trx.raw(
    ...knexRaw(
      sql`insert into webhook_events (user_id, client_pk, type, data) select ${userId}::bigint, ${clientPk}::bigint, 'grant.revoked', '{}'::jsonb where ${ANY_ENABLED_ENDPOINT}`,
    ),
  );
}

/** derived.updated: new derived data of the person (`kinds` among averages, correlations, insights; `date` their week or day). */
export async function recordDerivedUpdated(trx: Knex.Transaction, userId: number, kinds: string[], date: string): Promise<void> {
  if (kinds.length === 0) return;
  await trx.raw(
    ...knexRaw(
      sql`insert into webhook_events (user_id, type, data) select ${userId}::bigint, 'derived.updated', ${JSON.stringify({ kinds, date })}::jsonb where ${ANY_ENABLED_ENDPOINT}`,
    ),
  );
}

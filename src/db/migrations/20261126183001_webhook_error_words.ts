/**
 * Delivery errors an app's owner reads name no socket detail (docs/security.md, "Webhook URLs"):
 * the errors recorded before, such as "socket hang up" or "connect ECONNREFUSED 127.0.0.1:5432",
 * told an open port from a closed one. They are rewritten to the fixed words postWebhook now
 * records (ATTEMPT_ERRORS in src/domain/webhooks/attempt.ts), in the deliveries and in the reason
 * an endpoint was disabled. The words are written out here: a migration must not change with the code.
 */
import type { Knex } from 'knex';

/** The fixed word for an old error text (a SQL expression over `old`). */
const wordFor = (old: string) => `case
  when ${old} like 'timed out%' then 'timed out'
  when ${old} like 'refused%' then 'refused: the host has a loopback, private or reserved address'
  else 'connection failed'
end`;

/** The words themselves, as a SQL list (none holds a quote). */
const WORDS = ['timed out', 'refused: the host has a loopback, private or reserved address', 'host not found', 'TLS error', 'connection failed']
  .map((word) => `'${word}'`)
  .join(', ');

export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    `update webhook_deliveries set last_error = ${wordFor('last_error')}
      where last_error is not null and last_error not in (${WORDS}) and last_error not like 'Not sent:%'`,
  );
  // "Disabled <time>: every delivery failed for 24 hours (the last: <summary>)."
  await knex.raw(
    `update webhook_endpoints
        set disabled_reason = substring(disabled_reason from '^(.*\\(the last: )') || ${wordFor("substring(disabled_reason from '\\(the last: (.*)\\)\\.$')")} || ').'
      where disabled_reason ~ '\\(the last: .*\\)\\.$'
        and substring(disabled_reason from '\\(the last: (.*)\\)\\.$') !~ '^HTTP [0-9]+$'
        and substring(disabled_reason from '\\(the last: (.*)\\)\\.$') not in (${WORDS})`,
  );
}

/** The old texts are gone (they were the leak); nothing to restore. */
export async function down(): Promise<void> {}

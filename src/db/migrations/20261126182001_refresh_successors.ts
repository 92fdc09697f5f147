/**
 * The refresh leeway (docs/security.md, "Token endpoint limits and the refresh leeway";
 * src/domain/apps-and-grants/refresh-retry.ts): a replaced pair keeps, for the leeway, the pair
 * that replaced it, sealed with a key only its own refresh token gives (AES-256-GCM under an HMAC
 * of the token), so the same client retrying the old refresh token is answered the same pair
 * again. Cleared when the grant is refreshed again or revoked.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`alter table tokens add column successor_sealed bytea`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`alter table tokens drop column successor_sealed`);
}

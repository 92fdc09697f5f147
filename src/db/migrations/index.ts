/**
 * Every migration, oldest first. Listed statically (no directory globbing) so the same list runs
 * from compiled JavaScript, under ts-node and under jest's TypeScript transform.
 * Add a migration: create `<yyyymmddhhmmss>_<what>.ts` exporting `up` and `down`, append it here.
 */
import type { Knex } from 'knex';
import * as initial from './20261122000001_initial';
import * as rateLimits from './20261122000002_rate_limits';
import * as derivedRuns from './20261122003001_derived_runs';
import * as unloggedRateLimits from './20261122004001_unlogged_rate_limits';
import * as sessionDevices from './20261122005001_session_devices';
import * as throttleEvents from './20261122006001_throttle_events';
import * as averageWeekdays from './20261123180001_average_weekdays';
import * as webhooks from './20261124010001_webhooks';
import * as idempotencyKeys from './20261126170001_idempotency_keys';
import * as webhookDeliveryRetention from './20261126196001_webhook_delivery_retention';
import * as personWrites from './20261127140001_person_writes';
import * as webhookDeliveryStats from './20261126171001_webhook_delivery_stats';
import * as knownAddresses from './20261126180001_known_addresses';
import * as sessionHostCookie from './20261126181001_session_host_cookie';
import * as webhookErrorWords from './20261126183001_webhook_error_words';
import * as refreshSuccessors from './20261126182001_refresh_successors';
import * as insightAsOf from './20261126193001_insight_as_of';
import * as imports from './20261127120001_imports';
import * as importUploads from './20261127160001_import_uploads';

/** One migration as knex's custom migration source sees it. */
export interface NamedMigration {
  /** Stored in `knex_migrations`; never rename one that has shipped. */
  readonly name: string;
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}

/** The migrations in the order they apply. */
export const MIGRATIONS: readonly NamedMigration[] = [
  { name: '20261122000001_initial', ...initial },
  { name: '20261122000002_rate_limits', ...rateLimits },
  { name: '20261122003001_derived_runs', ...derivedRuns },
  { name: '20261122004001_unlogged_rate_limits', ...unloggedRateLimits },
  { name: '20261122005001_session_devices', ...sessionDevices },
  { name: '20261122006001_throttle_events', ...throttleEvents },
  { name: '20261123180001_average_weekdays', ...averageWeekdays },
  { name: '20261124010001_webhooks', ...webhooks },
  { name: '20261126170001_idempotency_keys', ...idempotencyKeys },
  { name: '20261126171001_webhook_delivery_stats', ...webhookDeliveryStats },
  { name: '20261126180001_known_addresses', ...knownAddresses },
  { name: '20261126181001_session_host_cookie', ...sessionHostCookie },
  { name: '20261126183001_webhook_error_words', ...webhookErrorWords },
  { name: '20261126182001_refresh_successors', ...refreshSuccessors },
  { name: '20261126193001_insight_as_of', ...insightAsOf },
  { name: '20261126196001_webhook_delivery_retention', ...webhookDeliveryRetention },
  { name: '20261127120001_imports', ...imports },
  { name: '20261127140001_person_writes', ...personWrites },
  { name: '20261127160001_import_uploads', ...importUploads },
];

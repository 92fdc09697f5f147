/**
 * Housekeeping: deletes the rows that can no longer be used and no longer matter, so the credential
 * and counter tables stay the size of what is live. Run hourly by the job queue (jobs/queues.ts,
 * one run across all instances) and by `npm run -s admin -- housekeeping`.
 *
 * What goes, and why it is safe:
 * - sessions past their expiry: they are refused already (sessions.ts checks `expires_at`).
 * - rate-limit counters whose window ended: an ended window counts as zero
 *   anyway (rate-limiter-flexible starts a new one in place), and a request that renews the row
 *   while it is being deleted keeps it (the delete re-checks `expire` on the locked row).
 * - sign-in failures and sign-up attempts older than the longest throttle window (an hour): no
 *   throttle counts them any more.
 * - tokens of a grant that has been dead for GRANT_RETENTION_MS: no token of it is live (each is
 *   revoked, replaced or expired). While a grant lives, its replaced tokens stay, so the replay of
 *   an old refresh token is still recognised and revokes the grant (RFC 9700 §4.14.2); a month
 *   after the grant died, a replay is simply an unknown token (`invalid_grant` either way).
 * - authorisation codes expired for CODE_RETENTION_MS whose grant has no token left: a used code is
 *   kept while its grant has tokens, so its replay still revokes them (RFC 6749 §4.1.2).
 * - idempotency keys older than their 24 hours (domain/idempotency/keys.ts): a retry after that
 *   applies again anyway (the claim takes an expired row over), so the row only takes room.
 * - webhook deliveries that ended (delivered, or failed for good) and were made more than
 *   DELIVERY_RETENTION_MS ago, unless a re-send of one was just asked for: the app owner's history
 *   (page and API) covers 90 days, as Svix's default retention does; /metrics counts live in
 *   their own rows (docs/webhooks.md, "Metrics") and do not shrink.
 */
import type { Knex } from 'knex';
import { knexRaw, sql } from '../db/sql';
import { deleteExpiredKeys } from './idempotency/keys';

export const GRANT_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;
export const CODE_RETENTION_MS = 24 * 60 * 60 * 1000;
export const DELIVERY_RETENTION_MS = 90 * 24 * 60 * 60 * 1000;
/** The longest throttle window (sign-ups: an hour; sign-in failures: 15 minutes). */
export const THROTTLE_RETENTION_MS = 60 * 60 * 1000;
/** Rows (for tokens: grants) deleted per statement, so no run holds many locks or one long transaction. */
const BATCH = 5000;
const GRANT_BATCH = 500;

export interface HousekeepingSummary {
  sessions: number;
  rateLimits: number;
  throttleEvents: number;
  tokens: number;
  codes: number;
  idempotencyKeys: number;
  webhookDeliveries: number;
}

/** Repeats a deleting statement (each deletes at most a batch) until it deletes nothing; the total deleted. */
async function inBatches(remove: () => Promise<number>): Promise<number> {
  let total = 0;
  for (let deleted = await remove(); deleted > 0; deleted = await remove()) total += deleted;
  return total;
}

async function rowCount(query: Promise<{ rowCount: number | null }>): Promise<number> {
  return (await query).rowCount ?? 0;
}

/** Deletes what has expired as of `now` (see the module comment); how many rows of each kind. */
export async function sweepExpired(db: Knex, now: Date): Promise<HousekeepingSummary> {
  const sessions = await inBatches(() =>
    rowCount(db.raw(...knexRaw(sql`delete from sessions where id_hash in (select id_hash from sessions where expires_at <= ${now} limit ${BATCH})`))),
  );
  const rateLimits = await inBatches(() =>
    rowCount(db.raw(...knexRaw(sql`delete from rate_limits where key in (select key from rate_limits where expire <= ${now.getTime()} limit ${BATCH})`))),
  );
  const throttleCutoff = new Date(now.getTime() - THROTTLE_RETENTION_MS);
  const throttleEvents = await inBatches(() =>
    rowCount(db.raw(...knexRaw(sql`delete from throttle_events where id in (select id from throttle_events where at <= ${throttleCutoff} limit ${BATCH})`))),
  );
  const grantCutoff = new Date(now.getTime() - GRANT_RETENTION_MS);
  // A grant's end: when its last token stopped working (revoked, replaced or expired, whichever first).
  const tokens = await inBatches(() =>
    rowCount(
      db.raw(
        ...knexRaw(sql`delete from tokens where grant_id in (
           select grant_id from tokens
            group by grant_id
           having bool_and(revoked_at is not null or replaced_at is not null or coalesce(refresh_expires_at, access_expires_at) <= ${now})
              and max(least(coalesce(revoked_at, 'infinity'), coalesce(replaced_at, 'infinity'), coalesce(refresh_expires_at, access_expires_at))) <= ${grantCutoff}
            limit ${GRANT_BATCH})`),
      ),
    ),
  );
  const codes = await inBatches(() =>
    rowCount(
      db.raw(
        ...knexRaw(sql`delete from authorisation_codes where code_hash in (
           select c.code_hash from authorisation_codes c
            where c.expires_at <= ${new Date(now.getTime() - CODE_RETENTION_MS)} and not exists (select 1 from tokens t where t.grant_id = c.grant_id)
            limit ${BATCH})`),
      ),
    ),
  );
  const idempotencyKeys = await inBatches(() => deleteExpiredKeys(db, now, BATCH));
  const deliveryCutoff = new Date(now.getTime() - DELIVERY_RETENTION_MS);
  // The outer conditions are checked again on a row a re-send is changing at this moment: it stays.
  const webhookDeliveries = await inBatches(() =>
    rowCount(
      db.raw(
        ...knexRaw(sql`delete from webhook_deliveries where id in (
           select id from webhook_deliveries
            where status <> 'pending' and created_at <= ${deliveryCutoff} and resend_requested_at is null
            limit ${BATCH})
           and status <> 'pending' and resend_requested_at is null`),
      ),
    ),
  );
  return { sessions, rateLimits, throttleEvents, tokens, codes, idempotencyKeys, webhookDeliveries };
}

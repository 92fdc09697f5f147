/**
 * Deliveries: what each attempt got, when an endpoint is disabled, what the app page lists, and
 * re-sending (docs/webhooks.md, "From a change to a delivery").
 */
import type { Knex } from 'knex';
import { fragment, sql } from '../../db/sql';
import type { WebhookEndpoint } from './endpoints';
import type { DeliveredEventType } from './events';
import type { AttemptResult } from './attempt';
import { countAttempt, countFinished } from './stats';

/** An endpoint whose deliveries all failed for this long is disabled. */
export const DISABLE_AFTER_MS = 24 * 3600_000;

export interface Delivery {
  id: number;
  message_id: string;
  endpoint_id: number;
  event_type: DeliveredEventType;
  body: string;
  created_at: Date;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  last_attempt_at: Date | null;
  last_status: number | null;
  last_error: string | null;
  last_latency_ms: number | null;
}

export const succeeded = (attempt: AttemptResult) => attempt.status !== null && attempt.status >= 200 && attempt.status < 300;

/** The delivery and its endpoint, or undefined when either is gone (the endpoint or app was deleted). */
export async function deliveryWithEndpoint(db: Knex, deliveryId: number): Promise<{ delivery: Delivery; endpoint: WebhookEndpoint } | undefined> {
  const delivery: Delivery | undefined = await db('webhook_deliveries').where({ id: deliveryId }).first();
  if (!delivery) return undefined;
  const endpoint: WebhookEndpoint | undefined = await db('webhook_endpoints').where({ id: delivery.endpoint_id }).first();
  return endpoint ? { delivery, endpoint } : undefined;
}

/** The secrets an attempt is signed with now: the current one, and the previous one during its 24 h. */
export function signingSecrets(endpoint: WebhookEndpoint, now: Date): string[] {
  const previous =
    endpoint.previous_secret && endpoint.previous_secret_until && new Date(endpoint.previous_secret_until) > now ? [endpoint.previous_secret] : [];
  return [endpoint.secret, ...previous];
}

/** Describes an attempt for the owner: "HTTP 500", "timed out", "connection failed" (ATTEMPT_ERRORS). */
export function attemptSummary(attempt: AttemptResult): string {
  return attempt.status !== null ? `HTTP ${attempt.status}` : (attempt.error ?? 'failed');
}

/**
 * Records an attempt. A success ends the endpoint's failure run; a failure starts one (or
 * continues it), and 24 h of it disables the endpoint. `final`: no retry follows, so a failed
 * delivery is marked failed. Answers whether the endpoint was disabled by this attempt.
 */
export async function recordAttempt(
  db: Knex,
  delivery: Delivery,
  endpoint: WebhookEndpoint,
  attempt: AttemptResult,
  now: Date,
  final: boolean,
): Promise<{ disabled: boolean }> {
  const ok = succeeded(attempt);
  return db.transaction(async (trx) => {
    await trx('webhook_deliveries')
      .where({ id: delivery.id })
      .update({
        status: ok ? 'delivered' : final ? 'failed' : 'pending',
        attempts: trx.raw('attempts + 1'),
        last_attempt_at: now,
        last_status: attempt.status,
        last_error: attempt.error,
        last_latency_ms: Math.round(attempt.latencyMs),
      });
    let disabled = false;
    if (ok) {
      await trx('webhook_endpoints').where({ id: endpoint.id }).whereNotNull('failing_since').update({ failing_since: null });
    } else {
      disabled = await failureRun(trx, endpoint, attempt, now);
      // No retry follows to a disabled endpoint.
      if (disabled) await trx('webhook_deliveries').where({ id: delivery.id }).update({ status: 'failed' });
    }
    // The counts last: their rows are shared by all deliveries, so each is held only until the
    // commit, and always locked after the delivery's and the endpoint's rows (one order, no deadlock).
    await countAttempt(trx, delivery.event_type, attempt);
    if (ok || final || disabled) await countFinished(trx, delivery.event_type, ok ? 'delivered' : 'failed');
    return { disabled };
  });
}

/** A failed attempt starts (or continues) the endpoint's failure run; 24 h of it disables the endpoint. Answers whether this attempt disabled it. */
async function failureRun(trx: Knex.Transaction, endpoint: WebhookEndpoint, attempt: AttemptResult, now: Date): Promise<boolean> {
  const [row] = await trx('webhook_endpoints')
    .where({ id: endpoint.id })
    .update({ failing_since: fragment(trx, sql`coalesce(failing_since, ${now}::timestamptz)`) })
    .returning(['failing_since', 'disabled_at']);
  if (!row || row.disabled_at !== null || now.getTime() - new Date(row.failing_since).getTime() < DISABLE_AFTER_MS) return false;
  await trx('webhook_endpoints')
    .where({ id: endpoint.id })
    .update({
      disabled_at: now,
      disabled_reason: `Disabled ${now.toISOString()}: every delivery failed for 24 hours (the last: ${attemptSummary(attempt)}).`,
    });
  return true;
}

/** Marks a delivery failed without an attempt (its endpoint was disabled meanwhile). */
export async function abandonDelivery(db: Knex, delivery: Delivery, reason: string): Promise<void> {
  await db.transaction(async (trx) => {
    await trx('webhook_deliveries').where({ id: delivery.id }).update({ status: 'failed', last_error: reason });
    await countFinished(trx, delivery.event_type, 'failed');
  });
}

/** The endpoint's latest deliveries, newest first. */
export async function latestDeliveries(db: Knex, endpointId: number, limit = 20): Promise<Delivery[]> {
  return db('webhook_deliveries')
    .where({ endpoint_id: endpointId })
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(limit);
}

/** One delivery of the endpoint, by its message id. */
export async function findDelivery(db: Knex, endpointId: number, messageId: string): Promise<Delivery | undefined> {
  return db('webhook_deliveries').where({ endpoint_id: endpointId, message_id: messageId }).first();
}

/**
 * Asks for a delivery to go out again, with the same `webhook-id` (receivers de-duplicate by it):
 * the workers' dispatcher queues it (so that a request never sends, and works without a queue in
 * its process).
 */
export async function requestResend(db: Knex, delivery: Delivery, now: Date): Promise<void> {
  await db('webhook_deliveries').where({ id: delivery.id }).update({ resend_requested_at: now });
}

/** A page of the endpoint's deliveries, newest first, and how many there are. */
export async function pageOfDeliveries(db: Knex, endpointId: number, page: { limit: number; offset: number }): Promise<{ count: number; results: Delivery[] }> {
  const [{ count }] = await db('webhook_deliveries').where({ endpoint_id: endpointId }).count<{ count: string }[]>({ count: '*' });
  const results = await db('webhook_deliveries')
    .where({ endpoint_id: endpointId })
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(page.limit)
    .offset(page.offset);
  return { count: Number(count), results };
}

/** A delivery as the API and the app page show it. */
export interface DeliveryView {
  id: string;
  event: DeliveredEventType;
  created: string;
  status: Delivery['status'];
  attempts: number;
  last_attempt: string | null;
  last_status: number | null;
  last_error: string | null;
  last_latency_ms: number | null;
}

export function deliveryView(delivery: Delivery): DeliveryView {
  return {
    id: delivery.message_id,
    event: delivery.event_type,
    created: new Date(delivery.created_at).toISOString(),
    status: delivery.status,
    attempts: delivery.attempts,
    last_attempt: delivery.last_attempt_at ? new Date(delivery.last_attempt_at).toISOString() : null,
    last_status: delivery.last_status,
    last_error: delivery.last_error,
    last_latency_ms: delivery.last_latency_ms,
  };
}

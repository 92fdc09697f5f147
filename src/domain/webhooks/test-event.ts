/**
 * The test event on demand (docs/webhooks.md, "Testing an endpoint"): a `webhook.test` message to
 * one endpoint, asked for by its app (the API) or its owner (the app's webhooks page). It is a
 * delivery like any other: stored here with its sending asked for, queued by the workers'
 * dispatcher (as a re-send is), signed at each attempt with the endpoint's secrets and retried by
 * the delivery job; so a partner checks their signature verification with it. A request never
 * sends.
 *
 * It goes to the endpoint asked for whatever its event types (it was asked for explicitly), and
 * to a disabled endpoint too, so its owner can check a fix before turning it back on; it does not
 * turn the endpoint on.
 */
import type { Knex } from 'knex';
import type { WebhookEndpoint } from './endpoints';
import type { Delivery } from './deliveries';
import { TEST_EVENT } from './events';
import { newMessageId } from './outbox';

/** Stores a test message for the endpoint of the app `clientId`, to be sent by the workers shortly; answers the delivery. */
export async function queueTestEvent(db: Knex, endpoint: WebhookEndpoint, clientId: string, now: Date): Promise<Delivery> {
  const body = JSON.stringify({ type: TEST_EVENT, timestamp: now.toISOString(), data: { app: clientId, endpoint: endpoint.public_id } });
  const [delivery] = await db('webhook_deliveries')
    .insert({ message_id: newMessageId(), endpoint_id: endpoint.id, event_type: TEST_EVENT, body, created_at: now, resend_requested_at: now })
    .returning('*');
  return delivery as Delivery;
}

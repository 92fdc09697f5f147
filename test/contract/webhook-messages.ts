/**
 * The provider side of the webhook receiver's messages: Daybook makes each message the way it
 * makes every webhook (docs/webhooks.md, "From a change to a delivery"). The interaction's
 * provider states made the change through the domain (a write, an acquire, a derive run, a
 * disconnect), whose triggers and domain code filled the outbox; here one run of the real
 * dispatcher (`dispatchOutbox`) turns the outbox into deliveries, and the consumer's endpoint's
 * newest delivery of the event type is signed at this moment with the endpoint's secrets
 * (`signedHeaders`), as the delivery worker signs an attempt. Pact then matches the body and the
 * headers against the receiver's contract.
 */
import type { Knex } from 'knex';
import type { MessageProviders } from '@pact-foundation/pact';
import type { TestApp } from '../support/app';
import { WEBHOOK_MESSAGES, type WebhookMessageType } from '../../contracts/support/states';
import { dispatchOutbox, type SqlClient } from '../../src/domain/webhooks/outbox';
import { signingSecrets } from '../../src/domain/webhooks/deliveries';
import { signedHeaders } from '../../src/domain/webhooks/signing';
import type { World } from './provider-states';

/** One dispatcher run in its own transaction, as the workers run it (the queueing step is left out: nothing is sent). */
async function dispatchOnce(db: Knex, now: Date): Promise<void> {
  const client = (await db.client.acquireConnection()) as SqlClient;
  try {
    await client.query('begin');
    await dispatchOutbox(client, now, { coalesceMs: 0, enqueue: async () => undefined });
    await client.query('commit');
  } catch (error) {
    await client.query('rollback');
    throw error;
  } finally {
    await db.client.releaseConnection(client);
  }
}

/** The message of `type` Daybook made for the consumer's endpoint, with the headers of an attempt now. */
async function produce(app: TestApp, world: World, type: WebhookMessageType) {
  if (!world.endpoint) throw new Error(`The message "${WEBHOOK_MESSAGES[type]}" needs the state that creates the consumer's webhook endpoint.`);
  const now = app.deps.now();
  await dispatchOnce(app.db, now);
  const delivery = await app
    .db('webhook_deliveries')
    .where({ endpoint_id: world.endpoint.id, event_type: type })
    .orderBy('id', 'desc')
    .first<{ message_id: string; body: string } | undefined>('message_id', 'body');
  if (!delivery) throw new Error(`Daybook made no ${type} message for the consumer's endpoint.`);
  const headers = signedHeaders(signingSecrets(world.endpoint, now), delivery.message_id, Math.floor(now.getTime() / 1000), delivery.body);
  // The body exactly as sent, and the headers of the attempt (send.ts adds `content-type`).
  return { __pactMessageMetadata: { ...headers, 'content-type': 'application/json' }, message: delivery.body };
}

/** Pact's message providers: one per message of the receiver contract, by its description. */
export function webhookMessageProviders(app: TestApp, world: () => World): MessageProviders {
  return Object.fromEntries((Object.keys(WEBHOOK_MESSAGES) as WebhookMessageType[]).map((type) => [WEBHOOK_MESSAGES[type], () => produce(app, world(), type)]));
}

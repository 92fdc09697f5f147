/**
 * Webhooks in the workers (docs/webhooks.md): the dispatcher turns the outbox into deliveries, and
 * the `webhook-deliver` queue on pg-boss sends each one, retried by pg-boss with exponential
 * back-off. Nothing here runs in a request.
 *
 * The dispatcher runs every `pollMs` on every worker process; runs on several processes at once
 * are safe (each takes outbox rows the others do not hold). A delivery job killed half-way (the
 * worker died) expires after `expireSeconds` and is retried by pg-boss's maintenance: the same
 * message, the same webhook-id.
 */
import type PgBoss from 'pg-boss';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { dispatchOutbox, type SqlClient } from '../domain/webhooks/outbox';
import { abandonDelivery, attemptSummary, deliveryWithEndpoint, recordAttempt, signingSecrets, succeeded } from '../domain/webhooks/deliveries';
import { signedHeaders } from '../domain/webhooks/signing';
import { TEST_EVENT } from '../domain/webhooks/events';
import { postWebhook } from '../domain/webhooks/send';
import type { WebhookSettings } from '../domain/webhooks/settings';

export { DEFAULT_WEBHOOK_SETTINGS, type WebhookSettings } from '../domain/webhooks/settings';

export const DELIVER_QUEUE = 'webhook-deliver';

/** How long a message is retried. */
const RETRY_FOR_MS = 24 * 3600_000;

export interface DeliveryJob {
  deliveryId: number;
}

/** A pg-boss executor on one connection (so that queueing joins that connection's transaction). */
const onConnection = (client: SqlClient): PgBoss.Db => ({ executeSql: (text, values) => client.query(text, values) });

export function deliveryJobOptions(settings: WebhookSettings): PgBoss.SendOptions {
  return { retryLimit: settings.retryLimit, retryDelay: settings.retryDelaySeconds, retryBackoff: true, expireInSeconds: settings.expireSeconds };
}

/** Runs `work` in a transaction on a connection of its own, as a pg client (pg-boss needs one). */
async function inTransaction<T>(db: Knex, work: (client: SqlClient) => Promise<T>): Promise<T> {
  const client = (await db.client.acquireConnection()) as SqlClient;
  try {
    await client.query('begin');
    try {
      const result = await work(client);
      await client.query('commit');
      return result;
    } catch (error) {
      await client.query('rollback');
      throw error;
    }
  } finally {
    await db.client.releaseConnection(client);
  }
}

export interface Webhooks {
  /** One dispatcher run now; answers the deliveries queued. */
  dispatch(): Promise<number>;
  /** Queues a delivery again (re-send from the app page). */
  enqueue(deliveryId: number): Promise<unknown>;
  /** Stops the dispatcher, waiting for a run in progress. */
  stop(): Promise<void>;
}

export interface WebhookJobsOptions {
  boss: PgBoss;
  db: Knex;
  logger: Logger;
  now: () => Date;
  settings: WebhookSettings;
  /** Run the dispatcher and the delivery workers in this process. */
  work: boolean;
  pollingIntervalSeconds: number;
}

export async function startWebhookJobs(options: WebhookJobsOptions): Promise<Webhooks> {
  const { boss, db, logger, now, settings } = options;
  const jobOptions = deliveryJobOptions(settings);
  const enqueueOn = (client: SqlClient, deliveryId: number) => boss.send(DELIVER_QUEUE, { deliveryId }, { ...jobOptions, db: onConnection(client) });

  const dispatch = () => inTransaction(db, (client) => dispatchOutbox(client, now(), { coalesceMs: settings.coalesceMs, enqueue: enqueueOn }));

  /** One attempt of one delivery; throws (so that pg-boss retries) when it failed and retries remain. */
  async function deliver(job: PgBoss.JobWithMetadata<DeliveryJob>): Promise<unknown> {
    const found = await deliveryWithEndpoint(db, job.data.deliveryId);
    if (!found || found.delivery.status !== 'pending') return { skipped: true };
    const { delivery, endpoint } = found;
    // A test event goes to a disabled endpoint too (its owner checks a fix before enabling it; docs/webhooks.md).
    if (endpoint.disabled_at !== null && delivery.event_type !== TEST_EVENT) {
      await abandonDelivery(db, delivery, 'Not sent: the endpoint is disabled.');
      return { skipped: true };
    }
    const at = now();
    const headers = signedHeaders(signingSecrets(endpoint, at), delivery.message_id, Math.floor(at.getTime() / 1000), delivery.body);
    const attempt = await postWebhook(endpoint.url, headers, delivery.body, { timeoutMs: settings.timeoutMs, allowPrivate: settings.allowPrivate });
    // Retried for 24 hours (docs/webhooks.md): the first failure after that, or the last retry, is final.
    const final = job.retryCount >= job.retryLimit || at.getTime() - new Date(delivery.created_at).getTime() >= RETRY_FOR_MS;
    const { disabled } = await recordAttempt(db, delivery, endpoint, attempt, at, final);
    const summary = { delivery: delivery.message_id, endpoint: endpoint.public_id, outcome: attemptSummary(attempt), ms: Math.round(attempt.latencyMs) };
    if (succeeded(attempt)) {
      logger.debug(summary, 'webhook delivered');
      return summary;
    }
    // The socket's own words (`detail`) only here: the owner reads the fixed vocabulary (docs/security.md).
    logger.info({ ...summary, detail: attempt.detail, retry: job.retryCount, disabled }, 'webhook delivery failed');
    if (final || disabled) return summary;
    throw new Error(`webhook delivery ${delivery.message_id} failed: ${summary.outcome}`);
  }

  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let running: Promise<void> = Promise.resolve();
  if (options.work) {
    await boss.work<DeliveryJob>(DELIVER_QUEUE, { pollingIntervalSeconds: options.pollingIntervalSeconds, includeMetadata: true }, async ([job]) =>
      deliver(job),
    );
    const tick = async () => {
      try {
        await dispatch();
      } catch (error) {
        logger.error({ err: error }, 'webhook dispatch failed');
      }
      if (!stopped) schedule();
    };
    const schedule = () => {
      timer = setTimeout(() => {
        running = tick();
      }, settings.pollMs);
    };
    schedule();
  }
  return {
    dispatch,
    enqueue: (deliveryId) => boss.send(DELIVER_QUEUE, { deliveryId }, jobOptions),
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}

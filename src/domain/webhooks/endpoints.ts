/**
 * An app's webhook endpoints (docs/webhooks.md): created, changed and deleted by the app over the
 * API with its client credentials, by its owner on the app page, and by operators in the admin
 * CLI; all three go through these functions and the same rules.
 */
import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { knexRaw, sql } from '../../db/sql';
import { invalidInput } from '../errors';
import { EVENT_TYPES, isEventType, TEST_EVENT, type EventType } from './events';
import { endpointUrlProblem } from './url-safety';

/** Endpoints one app may have. */
export const MAX_ENDPOINTS_PER_APP = 10;

/** How long a rotated-out secret keeps signing beside the new one. */
export const PREVIOUS_SECRET_HOURS = 24;

export interface WebhookEndpoint {
  id: number;
  public_id: string;
  client_pk: number;
  url: string;
  events: EventType[];
  secret: string;
  previous_secret: string | null;
  previous_secret_until: Date | null;
  failing_since: Date | null;
  disabled_at: Date | null;
  disabled_reason: string | null;
  created_at: Date;
}

/** A new signing secret: `whsec_` and 32 random bytes in base64 (the Standard Webhooks form). */
export function newSigningSecret(): string {
  return `whsec_${crypto.randomBytes(32).toString('base64')}`;
}

/** What a caller asks for; `allowPrivate` is WEBHOOK_ALLOW_PRIVATE_URLS. */
export interface EndpointInput {
  url?: unknown;
  events?: unknown;
}

/** The event list: one or more known types, each once (an unknown one is named). */
function checkEvents(events: unknown): EventType[] {
  if (!Array.isArray(events) || events.length === 0 || !events.every((e) => typeof e === 'string')) {
    throw invalidInput(`events must be a non-empty list of event types (${EVENT_TYPES.join(', ')}).`);
  }
  if ((events as string[]).includes(TEST_EVENT)) {
    throw invalidInput(
      `${TEST_EVENT} cannot be subscribed to: it is sent when asked for (POST /api/2/webhooks/{id}/test/, or the endpoint's Send a test event button).`,
    );
  }
  const unknown = (events as string[]).filter((e) => !isEventType(e));
  if (unknown.length > 0) throw invalidInput(`Unknown event type ${unknown[0]}: use ${EVENT_TYPES.join(', ')}.`);
  return [...new Set(events as EventType[])];
}

async function checkUrl(url: unknown, allowPrivate: boolean): Promise<string> {
  if (typeof url !== 'string' || url.trim() === '') throw invalidInput("url must be the endpoint's HTTPS URL.");
  const problem = await endpointUrlProblem(url.trim(), allowPrivate);
  if (problem) throw invalidInput(problem);
  return url.trim();
}

export async function listEndpoints(db: Knex, clientPk: number): Promise<WebhookEndpoint[]> {
  return db('webhook_endpoints').where({ client_pk: clientPk }).orderBy('id');
}

export async function findEndpoint(db: Knex, clientPk: number, publicId: string): Promise<WebhookEndpoint | undefined> {
  return db('webhook_endpoints').where({ client_pk: clientPk, public_id: publicId }).first();
}

/** Creates an endpoint; its secret is in the answer, the only time it is shown. */
export async function createEndpoint(db: Knex, clientPk: number, input: EndpointInput, allowPrivate: boolean): Promise<WebhookEndpoint> {
  const events = checkEvents(input.events);
  const url = await checkUrl(input.url, allowPrivate);
  return db.transaction(async (trx) => {
    // Serialises the app's creations, so the limit holds under concurrent requests.
    await trx.raw(...knexRaw(sql`select 1 from oauth_clients where id = ${clientPk} for update`));
    const [{ count }] = await trx('webhook_endpoints').where({ client_pk: clientPk }).count<{ count: string }[]>({ count: '*' });
    if (Number(count) >= MAX_ENDPOINTS_PER_APP) throw invalidInput(`An app may have at most ${MAX_ENDPOINTS_PER_APP} webhook endpoints: delete one first.`);
    const [row] = await trx('webhook_endpoints')
      .insert({ public_id: `ep_${crypto.randomBytes(12).toString('base64url')}`, client_pk: clientPk, url, events, secret: newSigningSecret() })
      .returning('*');
    return row as WebhookEndpoint;
  });
}

/**
 * Changes the URL and/or the events; `enabled: true` turns a disabled endpoint back on (its
 * failure run starts afresh).
 */
export async function updateEndpoint(
  db: Knex,
  endpoint: WebhookEndpoint,
  input: EndpointInput & { enabled?: unknown },
  allowPrivate: boolean,
): Promise<WebhookEndpoint> {
  const changes: Record<string, unknown> = {};
  if (input.events !== undefined) changes.events = checkEvents(input.events);
  if (input.url !== undefined) changes.url = await checkUrl(input.url, allowPrivate);
  if (input.enabled !== undefined) {
    if (typeof input.enabled !== 'boolean') throw invalidInput('enabled must be true or false.');
    Object.assign(
      changes,
      input.enabled
        ? { disabled_at: null, disabled_reason: null, failing_since: null }
        : { disabled_at: endpoint.disabled_at ?? db.fn.now(), disabled_reason: endpoint.disabled_reason ?? 'Disabled by the app.' },
    );
  }
  if (Object.keys(changes).length === 0) return endpoint;
  const [row] = await db('webhook_endpoints').where({ id: endpoint.id }).update(changes).returning('*');
  return row as WebhookEndpoint;
}

export async function deleteEndpoint(db: Knex, endpoint: WebhookEndpoint): Promise<void> {
  await db('webhook_endpoints').where({ id: endpoint.id }).delete();
}

/** A new secret; the current one keeps signing beside it for PREVIOUS_SECRET_HOURS. */
export async function rotateEndpointSecret(db: Knex, endpoint: WebhookEndpoint, now: Date): Promise<WebhookEndpoint> {
  const [row] = await db('webhook_endpoints')
    .where({ id: endpoint.id })
    .update({ secret: newSigningSecret(), previous_secret: endpoint.secret, previous_secret_until: new Date(now.getTime() + PREVIOUS_SECRET_HOURS * 3600_000) })
    .returning('*');
  return row as WebhookEndpoint;
}

/** The endpoint as the API and the pages show it: never the secret (shown once, on creation and rotation). */
export interface EndpointView {
  id: string;
  url: string;
  events: EventType[];
  enabled: boolean;
  disabled_reason: string | null;
  failing_since: string | null;
  created: string;
}

export function endpointView(endpoint: WebhookEndpoint): EndpointView {
  return {
    id: endpoint.public_id,
    url: endpoint.url,
    events: endpoint.events,
    enabled: endpoint.disabled_at === null,
    disabled_reason: endpoint.disabled_reason,
    failing_since: endpoint.failing_since ? new Date(endpoint.failing_since).toISOString() : null,
    created: new Date(endpoint.created_at).toISOString(),
  };
}

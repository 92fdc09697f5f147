/**
 * Typed client of the webhook management operations of API version 2 (`/api/2/webhooks/`): an
 * app's own endpoints, their deliveries, resends, secret rotation and test events. They are about
 * the app, not a person, so they authenticate with the app's client credentials (HTTP Basic,
 * `ClientCredentials` in the v2 document), never with a person's token. Writes carry an
 * `Idempotency-Key` as the v2 client's do (transport.ts). Checking a received webhook's signature
 * is `verifyWebhook` (webhooks.ts).
 */
import createClient from 'openapi-fetch';
import type { operations, paths } from './generated/v2';
import { toResult, type ApiResult, type FetchOutcome } from './result';
import { basicAuthorization, idempotencyHeaders, transportFetch, trimBaseUrl, type TransportOptions, type WriteOptions } from './transport';
import type { ApiError, QueryOf, ResultOf, Schemas, V2Result } from './v2';

export interface WebhooksClientOptions extends TransportOptions {
  /** The app's client id (from `/settings/apps`). */
  clientId: string;
  /** The app's client secret: only confidential apps have one, and only they manage webhooks. */
  clientSecret: string;
}

export interface WebhooksClient {
  list(query?: QueryOf<'listWebhooks'>): Promise<V2Result<'listWebhooks'>>;
  /** Creates an endpoint; the answer holds its signing secret, shown this once. */
  create(input: Schemas['WebhookEndpointInput'], options?: WriteOptions): Promise<V2Result<'createWebhook'>>;
  get(id: string): Promise<V2Result<'getWebhook'>>;
  update(id: string, changes: Schemas['WebhookEndpointChanges']): Promise<V2Result<'updateWebhook'>>;
  delete(id: string): Promise<V2Result<'deleteWebhook'>>;
  /** A new signing secret; the previous one keeps signing alongside it for a while (see the v2 document). */
  rotateSecret(id: string, options?: WriteOptions): Promise<V2Result<'rotateWebhookSecret'>>;
  deliveries(id: string, query?: QueryOf<'listWebhookDeliveries'>): Promise<V2Result<'listWebhookDeliveries'>>;
  resend(id: string, messageId: string, options?: WriteOptions): Promise<V2Result<'resendWebhookDelivery'>>;
  /** Sends a `webhook.test` event to the endpoint now (answers 202; the delivery follows). */
  sendTestEvent(id: string, options?: WriteOptions): Promise<ApiResult<Schemas['WebhookDelivery'], ApiError>>;
}

function fallbackError(status: number, text: string): ApiError {
  return { detail: text || `Daybook answered HTTP ${status} without an error body.` };
}

export function createWebhooksClient(options: WebhooksClientOptions): WebhooksClient {
  const baseUrl = trimBaseUrl(options.baseUrl);
  const send = transportFetch(options);
  const api = createClient<paths>({ baseUrl, fetch: send });
  const authorization = basicAuthorization(options.clientId, options.clientSecret);
  api.use({
    onRequest({ request }) {
      request.headers.set('Authorization', authorization);
      return request;
    },
  });
  const run = async <K extends keyof operations>(call: Promise<FetchOutcome<unknown, unknown>>): Promise<V2Result<K>> =>
    toResult((await call) as FetchOutcome<ResultOf<K>, ApiError>, fallbackError);
  const endpoint = (id: string) => ({ params: { path: { id } } });

  return {
    list: (query = {}) => run<'listWebhooks'>(api.GET('/api/2/webhooks/', { params: { query } })),
    create: (input, write) => run<'createWebhook'>(api.POST('/api/2/webhooks/', { body: input, headers: idempotencyHeaders(write) })),
    get: (id) => run<'getWebhook'>(api.GET('/api/2/webhooks/{id}/', endpoint(id))),
    update: (id, changes) => run<'updateWebhook'>(api.POST('/api/2/webhooks/{id}/', { ...endpoint(id), body: changes })),
    delete: (id) => run<'deleteWebhook'>(api.DELETE('/api/2/webhooks/{id}/', endpoint(id))),
    rotateSecret: (id, write) =>
      run<'rotateWebhookSecret'>(api.POST('/api/2/webhooks/{id}/rotate-secret/', { ...endpoint(id), headers: idempotencyHeaders(write) })),
    deliveries: (id, query = {}) => run<'listWebhookDeliveries'>(api.GET('/api/2/webhooks/{id}/deliveries/', { params: { path: { id }, query } })),
    resend: (id, messageId, write) =>
      run<'resendWebhookDelivery'>(
        api.POST('/api/2/webhooks/{id}/deliveries/{message_id}/resend/', {
          params: { path: { id, message_id: messageId } },
          headers: idempotencyHeaders(write),
        }),
      ),
    sendTestEvent: async (id, write) =>
      toResult(
        (await api.POST('/api/2/webhooks/{id}/test/', { ...endpoint(id), headers: idempotencyHeaders(write) })) as FetchOutcome<
          Schemas['WebhookDelivery'],
          ApiError
        >,
        fallbackError,
      ),
  };
}

/** Handlers of the v2 `Webhooks` tag: an app manages its own endpoints with its client credentials (docs/webhooks.md). */
import { appOf, databaseOf } from '../../http/request-state';
import type { Context as ApiContext } from 'openapi-backend';
import type Koa from 'koa';
import type { operations } from '../../../generated/types/v2';
import type { Deps } from '../../deps';
import {
  createEndpoint,
  deleteEndpoint,
  endpointView,
  findEndpoint,
  listEndpoints,
  rotateEndpointSecret,
  updateEndpoint,
  type WebhookEndpoint,
} from '../../domain/webhooks/endpoints';
import { deliveryView, findDelivery, pageOfDeliveries, requestResend } from '../../domain/webhooks/deliveries';
import { queueTestEvent } from '../../domain/webhooks/test-event';
import { notFound } from '../../http/errors';
import { envelope, paging } from '../../http/paging';

type Json<K extends keyof operations, S extends number> =
  operations[K]['responses'] extends Record<S, { content: { 'application/json': infer B } }> ? B : never;

export function webhooksHandlers(deps: Deps) {
  const allowPrivate = deps.config.webhooks.allowPrivate;

  /** The request's query builder: the pool, or the request's transaction when it sent an idempotency key (http/idempotency.ts). */
  const knexOf = (ctx: Koa.Context) => databaseOf(ctx).knex();

  /** The calling app's endpoint named in the path, or 404 (another app's endpoint is never found). */
  async function endpointOf(c: ApiContext, ctx: Koa.Context): Promise<WebhookEndpoint> {
    const endpoint = await findEndpoint(await knexOf(ctx), appOf(ctx).id, String(c.request.params.id));
    if (!endpoint) throw notFound('This app has no webhook endpoint with this id.');
    return endpoint;
  }

  return {
    async listWebhooks(c: ApiContext, ctx: Koa.Context): Promise<void> {
      const page = paging(c);
      const all = await listEndpoints(deps.db, appOf(ctx).id);
      const body: Json<'listWebhooks', 200> = envelope(ctx, page, all.length, all.slice(page.offset, page.offset + page.limit).map(endpointView));
      ctx.body = body;
    },

    async createWebhook(c: ApiContext, ctx: Koa.Context): Promise<void> {
      const endpoint = await createEndpoint(await knexOf(ctx), appOf(ctx).id, c.request.requestBody as { url: string; events: string[] }, allowPrivate);
      const body: Json<'createWebhook', 201> = { ...endpointView(endpoint), secret: endpoint.secret };
      ctx.status = 201;
      ctx.body = body;
    },

    async getWebhook(c: ApiContext, ctx: Koa.Context): Promise<void> {
      const body: Json<'getWebhook', 200> = endpointView(await endpointOf(c, ctx));
      ctx.body = body;
    },

    async updateWebhook(c: ApiContext, ctx: Koa.Context): Promise<void> {
      const endpoint = await updateEndpoint(deps.db, await endpointOf(c, ctx), c.request.requestBody as Record<string, unknown>, allowPrivate);
      const body: Json<'updateWebhook', 200> = endpointView(endpoint);
      ctx.body = body;
    },

    async deleteWebhook(c: ApiContext, ctx: Koa.Context): Promise<void> {
      await deleteEndpoint(deps.db, await endpointOf(c, ctx));
      ctx.status = 204;
    },

    async rotateWebhookSecret(c: ApiContext, ctx: Koa.Context): Promise<void> {
      const endpoint = await rotateEndpointSecret(await knexOf(ctx), await endpointOf(c, ctx), deps.now());
      const body: Json<'rotateWebhookSecret', 200> = { ...endpointView(endpoint), secret: endpoint.secret };
      ctx.body = body;
    },

    async listWebhookDeliveries(c: ApiContext, ctx: Koa.Context): Promise<void> {
      const endpoint = await endpointOf(c, ctx);
      const page = paging(c);
      const { count, results } = await pageOfDeliveries(deps.db, endpoint.id, page);
      const body: Json<'listWebhookDeliveries', 200> = envelope(ctx, page, count, results.map(deliveryView));
      ctx.body = body;
    },

    async resendWebhookDelivery(c: ApiContext, ctx: Koa.Context): Promise<void> {
      const endpoint = await endpointOf(c, ctx);
      const delivery = await findDelivery(await knexOf(ctx), endpoint.id, String(c.request.params.message_id));
      if (!delivery) throw notFound('This endpoint has no delivery with this id.');
      await requestResend(await knexOf(ctx), delivery, deps.now());
      const body: Json<'resendWebhookDelivery', 202> = deliveryView(delivery);
      ctx.status = 202;
      ctx.body = body;
    },

    /** A webhook.test event to the endpoint, sent by the workers (docs/webhooks.md, "Testing an endpoint"). */
    async sendWebhookTestEvent(c: ApiContext, ctx: Koa.Context): Promise<void> {
      const endpoint = await endpointOf(c, ctx);
      const delivery = await queueTestEvent(await knexOf(ctx), endpoint, appOf(ctx).client_id, deps.now());
      const body: Json<'sendWebhookTestEvent', 202> = deliveryView(delivery);
      ctx.status = 202;
      ctx.body = body;
    },
  };
}

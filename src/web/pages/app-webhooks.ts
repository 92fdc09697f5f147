/**
 * An app's webhooks, on a page of its own under the app's page (docs/webhooks.md): its owner adds
 * endpoints (URL and event types; the secret is shown once), sees each endpoint's state (disabled,
 * and why; failing since when) and its latest deliveries (time, event, status or failure, duration,
 * attempts; newest first), sends a test event, re-sends a delivery, rotates a secret, turns a
 * disabled endpoint back on and deletes an endpoint. The same rules as the API
 * (domain/webhooks/endpoints.ts, test-event.ts).
 */
import type Router from '@koa/router';
import type Koa from 'koa';
import type { Deps } from '../../deps';
import type { Session } from '../../domain/identity/sessions';
import { findClientOwnedBy, type OAuthClient } from '../../domain/apps-and-grants/clients';
import {
  createEndpoint,
  deleteEndpoint,
  findEndpoint,
  listEndpoints,
  rotateEndpointSecret,
  updateEndpoint,
  type WebhookEndpoint,
} from '../../domain/webhooks/endpoints';
import { findDelivery, latestDeliveries, requestResend, type Delivery } from '../../domain/webhooks/deliveries';
import { queueTestEvent } from '../../domain/webhooks/test-event';
import { EVENT_DESCRIPTIONS, EVENT_TYPES } from '../../domain/webhooks/events';
import { notFound } from '../../http/errors';
import { isInvalidInput } from '../../domain/errors';
import { field, fields, readForm } from '../forms';
import { html, type Html } from '../html';
import { sendPage } from '../layout';
import { assertCsrf, page, requireSession } from '../page';
import { navFor } from '../session';

/** Deliveries listed per endpoint (the API's deliveries list pages through them all). */
const SHOWN_DELIVERIES = 20;

type Notice = { text: string; error: boolean };

const appPath = (app: OAuthClient) => `/settings/apps/${encodeURIComponent(app.client_id)}`;
const hooksPath = (app: OAuthClient) => `${appPath(app)}/webhooks`;

async function ownedApp(ctx: Koa.Context, deps: Deps, session: Session): Promise<OAuthClient> {
  const app = await findClientOwnedBy(deps.db, session.userId, String(ctx.params.clientId));
  if (!app) throw notFound('You have no app with this client ID.');
  return app;
}

async function ownedEndpoint(ctx: Koa.Context, deps: Deps, app: OAuthClient): Promise<WebhookEndpoint> {
  const endpoint = await findEndpoint(deps.db, app.id, String(ctx.params.endpointId));
  if (!endpoint) throw notFound('This app has no webhook endpoint with this id.');
  return endpoint;
}

const time = (date: Date | null) => (date ? new Date(date).toISOString().replace('T', ' ').slice(0, 19) + ' UTC' : '—');

function outcome(delivery: Delivery): string {
  if (delivery.attempts === 0) return delivery.last_error ?? 'not sent yet';
  return delivery.last_status !== null ? `HTTP ${delivery.last_status}` : (delivery.last_error ?? 'failed');
}

function button(action: string, csrf: string, label: string, style = 'secondary'): Html {
  return html`<form method="post" action="${action}"><input type="hidden" name="csrf_token" value="${csrf}"><button type="submit" class="${style}">${label}</button></form>`;
}

function endpointCard(app: OAuthClient, endpoint: WebhookEndpoint, deliveries: Delivery[], csrf: string): Html {
  const base = `${hooksPath(app)}/${encodeURIComponent(endpoint.public_id)}`;
  const state = endpoint.disabled_at
    ? html`<p class="error" role="status">Disabled. ${endpoint.disabled_reason ?? ''}</p>`
    : endpoint.failing_since
      ? html`<p class="error">Deliveries failing since ${time(endpoint.failing_since)}; it is disabled after 24 hours of failures.</p>`
      : html`<p class="muted">Enabled.</p>`;
  return html`<div class="card webhook-endpoint" data-endpoint="${endpoint.public_id}">
<h3><code>${endpoint.url}</code></h3>
${state}
<p>Events: ${endpoint.events.map((e) => html`<code>${e}</code> `)}</p>
<table class="deliveries"><caption>Latest deliveries to this endpoint, newest first (at most ${String(SHOWN_DELIVERIES)})</caption>
<thead><tr><th scope="col">Time</th><th scope="col">Event</th><th scope="col">Status</th><th scope="col">Duration</th><th scope="col">Attempts</th><th scope="col"><span class="visually-hidden">Action</span></th></tr></thead><tbody>
${
  deliveries.length === 0
    ? html`<tr><td colspan="6" class="muted">Nothing sent yet.</td></tr>`
    : deliveries.map(
        (d) =>
          html`<tr class="delivery" data-delivery="${d.message_id}"><td>${time(d.created_at)}</td><td><code>${d.event_type}</code></td><td>${d.status}: ${outcome(d)}</td><td>${d.last_latency_ms === null ? '—' : `${d.last_latency_ms} ms`}</td><td>${String(d.attempts)}</td><td>${button(`${base}/deliveries/${encodeURIComponent(d.message_id)}/resend`, csrf, 'Re-send')}</td></tr>`,
      )
}
</tbody></table>
<div class="actions">
${button(`${base}/test`, csrf, 'Send a test event')}
${endpoint.disabled_at ? button(`${base}/enable`, csrf, 'Enable again') : ''}
${button(`${base}/rotate`, csrf, 'Rotate the secret')}
${button(`${base}/delete`, csrf, 'Delete this endpoint', 'danger')}
</div>
</div>`;
}

function eventChoice(chosen: string[]): Html {
  return html`${EVENT_TYPES.map((event) => html`<label class="check"><input type="checkbox" name="events" value="${event}"${chosen.includes(event) ? html` checked` : ''}> <code>${event}</code>: ${EVENT_DESCRIPTIONS[event]}</label>`)}`;
}

async function webhooksPage(
  ctx: Koa.Context,
  deps: Deps,
  session: Session,
  app: OAuthClient,
  form: { url: string; events: string[] },
  notice?: Notice,
  status = 200,
): Promise<void> {
  const nav = navFor(session, deps.now());
  const endpoints = await listEndpoints(deps.db, app.id);
  const cards: Html[] = [];
  for (const endpoint of endpoints) cards.push(endpointCard(app, endpoint, await latestDeliveries(deps.db, endpoint.id, SHOWN_DELIVERIES), nav.csrf));
  sendPage(ctx, {
    title: `Webhooks of ${app.name}`,
    status,
    nav,
    body: html`<h1>Webhooks of ${app.name}</h1>
${notice ? html`<p class="${notice.error ? 'error' : 'notice'}" role="status">${notice.text}</p>` : ''}
<p>Daybook POSTs events to these endpoints, signed with the endpoint's secret (Standard Webhooks), about people who authorised ${app.name}, limited to what its scopes may read. Failed deliveries are retried for 24 hours; an endpoint failing that long is disabled. "Send a test event" sends a signed <code>webhook.test</code> event to an endpoint (even a disabled one), to check your receiver and its signature check.</p>
<h2>Endpoints</h2>
${endpoints.length === 0 ? html`<p class="muted">No endpoints yet.</p>` : cards}
<h2>Add an endpoint</h2>
<form method="post" action="${hooksPath(app)}" class="card">
<input type="hidden" name="csrf_token" value="${nav.csrf}">
<label for="url">URL</label>
<input type="url" id="url" name="url" value="${form.url}" required placeholder="https://example.com/daybook/webhooks">
<p class="muted">HTTPS; plain http only for localhost, 127.0.0.1 and [::1] where the operator allows them. Addresses inside private networks are refused unless the operator allows them.</p>
<fieldset><legend>Events</legend>${eventChoice(form.events)}</fieldset>
<div class="actions"><button type="submit">Add endpoint</button></div>
</form>
<p><a href="${appPath(app)}">Back to the app</a></p>`,
  });
}

function secretPage(ctx: Koa.Context, deps: Deps, session: Session, app: OAuthClient, endpoint: WebhookEndpoint, heading: string, note: string): void {
  sendPage(ctx, {
    title: heading,
    nav: navFor(session, deps.now()),
    body: html`<h1>${heading}</h1>
<div class="card">
<p class="notice" role="status">${note} Copy the signing secret now: it cannot be shown again.</p>
<label>Endpoint</label><code>${endpoint.url}</code>
<label>Signing secret</label><code class="secret" data-secret="Signing secret">${endpoint.secret}</code>
</div>
<p><a href="${hooksPath(app)}">Back to the webhooks</a></p>`,
  });
}

/** Runs a POST of the webhooks pages: session, anti-forgery token, the owner's app. */
function ownerPost(deps: Deps, work: (ctx: Koa.Context, session: Session, app: OAuthClient, form: Awaited<ReturnType<typeof readForm>>) => Promise<void>) {
  return page(deps, async (ctx) => {
    const session = await requireSession(ctx, deps);
    if (!session) return;
    const form = await readForm(ctx);
    assertCsrf(session, form, deps.now());
    await work(ctx, session, await ownedApp(ctx, deps, session), form);
  });
}

function backTo(ctx: Koa.Context, app: OAuthClient, done: string): void {
  ctx.status = 303;
  ctx.redirect(`${hooksPath(app)}?done=${done}`);
}

const DONE: Record<string, string> = {
  deleted: 'The endpoint was deleted.',
  enabled: 'The endpoint is enabled again.',
  resend: 'The delivery will be sent again shortly.',
  test: 'A test event (webhook.test) is on its way: it appears in the latest deliveries within a few seconds, with its status once tried.',
};

export function appWebhookPages(router: Router, deps: Deps): void {
  const allowPrivate = deps.config.webhooks.allowPrivate;

  router.get(
    '/settings/apps/:clientId/webhooks',
    page(deps, async (ctx) => {
      const session = await requireSession(ctx, deps);
      if (!session) return;
      const app = await ownedApp(ctx, deps, session);
      const done = DONE[String(ctx.query.done)];
      await webhooksPage(ctx, deps, session, app, { url: '', events: ['values.updated'] }, done ? { text: done, error: false } : undefined);
    }),
  );

  router.post(
    '/settings/apps/:clientId/webhooks',
    ownerPost(deps, async (ctx, session, app, form) => {
      const values = { url: field(form, 'url').trim(), events: fields(form, 'events') };
      let endpoint: WebhookEndpoint;
      try {
        endpoint = await createEndpoint(deps.db, app.id, values, allowPrivate);
      } catch (error) {
        if (!isInvalidInput(error)) throw error;
        return webhooksPage(ctx, deps, session, app, values, { text: error.detail, error: true }, 400);
      }
      secretPage(ctx, deps, session, app, endpoint, `Endpoint added to ${app.name}`, 'The endpoint is added.');
    }),
  );

  router.post(
    '/settings/apps/:clientId/webhooks/:endpointId/rotate',
    ownerPost(deps, async (ctx, session, app) => {
      const endpoint = await rotateEndpointSecret(deps.db, await ownedEndpoint(ctx, deps, app), deps.now());
      secretPage(
        ctx,
        deps,
        session,
        app,
        endpoint,
        `New signing secret`,
        'The old secret keeps signing beside the new one for 24 hours, so your receiver can switch.',
      );
    }),
  );

  router.post(
    '/settings/apps/:clientId/webhooks/:endpointId/enable',
    ownerPost(deps, async (ctx, _session, app) => {
      await updateEndpoint(deps.db, await ownedEndpoint(ctx, deps, app), { enabled: true }, allowPrivate);
      backTo(ctx, app, 'enabled');
    }),
  );

  router.post(
    '/settings/apps/:clientId/webhooks/:endpointId/test',
    ownerPost(deps, async (ctx, _session, app) => {
      await queueTestEvent(deps.db, await ownedEndpoint(ctx, deps, app), app.client_id, deps.now());
      backTo(ctx, app, 'test');
    }),
  );

  router.post(
    '/settings/apps/:clientId/webhooks/:endpointId/delete',
    ownerPost(deps, async (ctx, _session, app) => {
      await deleteEndpoint(deps.db, await ownedEndpoint(ctx, deps, app));
      backTo(ctx, app, 'deleted');
    }),
  );

  router.post(
    '/settings/apps/:clientId/webhooks/:endpointId/deliveries/:messageId/resend',
    ownerPost(deps, async (ctx, _session, app) => {
      const endpoint = await ownedEndpoint(ctx, deps, app);
      const delivery = await findDelivery(deps.db, endpoint.id, String(ctx.params.messageId));
      if (!delivery) throw notFound('This endpoint has no such delivery.');
      await requestResend(deps.db, delivery, deps.now());
      backTo(ctx, app, 'resend');
    }),
  );
}

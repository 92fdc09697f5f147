/**
 * An app's own page (/settings/apps/<client id>), for its owner: its details, the edit form
 * (everything but the client type, which is fixed at registration), rotating the client secret
 * (shown once) and deleting the app. Its webhooks have a page of their own (app-webhooks.ts).
 */
import type Router from '@koa/router';
import type Koa from 'koa';
import type { Deps } from '../../deps';
import type { Session } from '../../domain/identity/sessions';
import { deleteClient, findClientOwnedBy, rotateClientSecret, updateClient, type OAuthClient } from '../../domain/apps-and-grants/clients';
import { notFound } from '../../http/errors';
import { isInvalidInput } from '../../domain/errors';
import { readForm } from '../forms';
import { html } from '../html';
import { sendPage } from '../layout';
import { assertCsrf, formPage, page, requireSession } from '../page';
import { navFor } from '../session';
import { appDetails, noticeBlock, secretBlock, type Notice } from './app-details';
import { appFields, fixedClientType, readAppForm, settingsOf, valuesOf, type AppFormValues } from './app-form';

const EDIT_WARNINGS = {
  redirectUris: 'Authorisation codes issued for a URI you remove can no longer be exchanged.',
  scopes: 'Removing a scope revokes every token of this app that carries it: those people must authorise the app again.',
};

/** The app's own page: its details, the edit form (`values`: the stored app, or what was typed when refused) and the other actions. */
function appPage(ctx: Koa.Context, deps: Deps, session: Session, app: OAuthClient, values: AppFormValues, notice?: Notice, status = 200): void {
  const nav = navFor(session, deps.now());
  const path = `/settings/apps/${encodeURIComponent(app.client_id)}`;
  sendPage(ctx, {
    title: app.name,
    status,
    nav,
    body: html`<h1>${app.name}</h1>
${noticeBlock(notice)}
<div class="card">${appDetails(app)}</div>
<h2>Edit this app</h2>
<form method="post" action="${path}" class="card">
<input type="hidden" name="csrf_token" value="${nav.csrf}">
${appFields(values, fixedClientType(app.confidential), EDIT_WARNINGS)}
<div class="actions"><button type="submit">Save changes</button></div>
</form>
<div class="card">
<h2>Manage</h2>
<div class="actions">
${
  app.confidential
    ? html`<form method="post" action="${path}/secret"><input type="hidden" name="csrf_token" value="${nav.csrf}"><button type="submit" class="secondary">Rotate the client secret</button></form>`
    : ''
}
<form method="post" action="${path}/delete"><input type="hidden" name="csrf_token" value="${nav.csrf}"><button type="submit" class="danger">Delete this app</button></form>
</div>
<p class="muted">Rotating makes the old secret stop working at once. Deleting the app revokes every token it holds.</p>
</div>
<div class="card"><h2>Webhooks</h2><p>Have Daybook tell the app about changes instead of polling: <a href="${path}/webhooks">manage its webhooks</a>.</p></div>
<p><a href="/settings/apps">All your apps</a></p>`,
  });
}

/** The notice after a save (the redirect's query says how many grants narrowing the scopes revoked). */
function savedNotice(query: Koa.Context['query']): Notice | undefined {
  if (query.saved !== '1') return undefined;
  const revoked = Number(query.revoked);
  if (!Number.isInteger(revoked) || revoked <= 0) return { text: 'Saved.', error: false };
  const grants = revoked === 1 ? '1 authorisation that carried a removed scope was' : `${revoked} authorisations that carried a removed scope were`;
  return { text: `Saved. ${grants} revoked.`, error: false };
}

async function ownedApp(ctx: Koa.Context, deps: Deps, session: Session): Promise<OAuthClient> {
  const app = await findClientOwnedBy(deps.db, session.userId, String(ctx.params.clientId));
  if (!app) throw notFound('You have no app with this client ID.');
  return app;
}

/** Registers the app's own page and its actions (under /settings/apps/<client id>). */
export function appSettingsPages(router: Router, deps: Deps): void {
  router.get(
    '/settings/apps/:clientId',
    page(deps, async (ctx) => {
      const session = await requireSession(ctx, deps);
      if (!session) return;
      const app = await ownedApp(ctx, deps, session);
      appPage(ctx, deps, session, app, valuesOf(app), savedNotice(ctx.query));
    }),
  );

  /** Saves the edit form: refused input shows the page again (400) with what was typed; nothing changes. */
  router.post(
    '/settings/apps/:clientId',
    formPage(deps, async (ctx, session, form) => {
      const app = await ownedApp(ctx, deps, session);
      // The client type is fixed at registration: whatever the form says, the stored one is kept.
      const values = { ...readAppForm(form), confidential: app.confidential };
      let revokedGrants: number;
      try {
        ({ revokedGrants } = await updateClient(deps.db, app, settingsOf(values), deps.now()));
      } catch (error) {
        if (!isInvalidInput(error)) throw error;
        return appPage(ctx, deps, session, app, values, { text: error.detail, error: true }, 400);
      }
      const query = new URLSearchParams({ saved: '1', ...(revokedGrants > 0 ? { revoked: String(revokedGrants) } : {}) });
      ctx.status = 303;
      ctx.redirect(`/settings/apps/${encodeURIComponent(app.client_id)}?${query}`);
    }),
  );

  router.post(
    '/settings/apps/:clientId/secret',
    page(deps, async (ctx) => {
      const session = await requireSession(ctx, deps);
      if (!session) return;
      assertCsrf(session, await readForm(ctx), deps.now());
      const app = await ownedApp(ctx, deps, session);
      const secret = await rotateClientSecret(deps.db, app);
      sendPage(ctx, {
        title: `New secret for ${app.name}`,
        nav: navFor(session, deps.now()),
        body: html`<h1>New client secret for ${app.name}</h1>
<div class="card">
<p class="notice" role="status">The old secret no longer works. Copy the new one now: it cannot be shown again.</p>
<label>Client ID</label><code class="secret">${app.client_id}</code>
${secretBlock('Client secret', secret, '')}
</div>
<p><a href="/settings/apps/${encodeURIComponent(app.client_id)}">Back to the app</a></p>`,
      });
    }),
  );

  router.post(
    '/settings/apps/:clientId/delete',
    page(deps, async (ctx) => {
      const session = await requireSession(ctx, deps);
      if (!session) return;
      assertCsrf(session, await readForm(ctx), deps.now());
      await deleteClient(deps.db, await ownedApp(ctx, deps, session));
      ctx.status = 303;
      ctx.redirect('/settings/apps?deleted=1');
    }),
  );
}

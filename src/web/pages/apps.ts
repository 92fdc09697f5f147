/**
 * App management: a person's OAuth clients and the form to register one, which shows the client
 * id and (once) the secret. Registering also gives the owner a token for their own account with
 * the app's scopes, shown once. Each app's own page (edit its settings, rotate the secret, delete
 * it) is app-settings.ts; registering and editing share one form (app-form.ts).
 */
import type Router from '@koa/router';
import type Koa from 'koa';
import type { Deps } from '../../deps';
import type { Session } from '../../domain/identity/sessions';
import { listClientsOwnedBy, registerClientWithOwnerToken, type OAuthClient } from '../../domain/apps-and-grants/clients';
import { isInvalidInput } from '../../domain/errors';
import { html } from '../html';
import { sendPage } from '../layout';
import { formPage, page, requireSession } from '../page';
import { navFor } from '../session';
import { appDetails, noticeBlock, secretBlock, type Notice } from './app-details';
import { appFields, clientTypeChoice, EMPTY_FORM, readAppForm, settingsOf, type AppFormValues } from './app-form';
import { appSettingsPages } from './app-settings';

/** The API's quick start (the v2 document's introduction, as Redoc anchors it) begins on this page. */
const QUICK_START = html`<p>New to the API? The <a href="/docs/v2/#section/quick-start">quick start</a> goes from registering an app here to its first value written, one command at a time.</p>`;

function appsPage(ctx: Koa.Context, deps: Deps, session: Session, apps: OAuthClient[], values: AppFormValues, notice?: Notice, status = 200): void {
  const nav = navFor(session, deps.now());
  sendPage(ctx, {
    title: 'Your apps',
    status,
    nav,
    body: html`<h1>Your apps</h1>
${noticeBlock(notice)}
${QUICK_START}
<div class="card">
${
  apps.length === 0
    ? html`<p class="muted">You have not registered any apps yet. Register one below to use the Daybook API with OAuth2.</p>`
    : html`<table><thead><tr><th>App</th><th>Client ID</th><th>Type</th></tr></thead><tbody>${apps.map(
        (app) =>
          html`<tr><td><a href="/settings/apps/${encodeURIComponent(app.client_id)}">${app.name}</a></td><td><code>${app.client_id}</code></td><td>${app.confidential ? 'Confidential' : 'Public'}</td></tr>`,
      )}</tbody></table>`
}
</div>
<h2>Register a new app</h2>
<form method="post" action="/settings/apps" class="card">
<input type="hidden" name="csrf_token" value="${nav.csrf}">
${appFields(values, clientTypeChoice(values.confidential))}
<div class="actions"><button type="submit">Register app</button></div>
</form>`,
  });
}

export function appPages(router: Router, deps: Deps): void {
  router.get(
    '/settings/apps',
    page(deps, async (ctx) => {
      const session = await requireSession(ctx, deps);
      if (!session) return;
      const notice = ctx.query.deleted === '1' ? { text: 'The app has been deleted; its tokens no longer work.', error: false } : undefined;
      appsPage(ctx, deps, session, await listClientsOwnedBy(deps.db, session.userId), EMPTY_FORM, notice);
    }),
  );

  router.post(
    '/settings/apps',
    formPage(deps, async (ctx, session, form) => {
      const values = readAppForm(form);
      let created;
      try {
        created = await registerClientWithOwnerToken(
          deps.db,
          { ...settingsOf(values), ownerUserId: session.userId, confidential: values.confidential },
          deps.now(),
        );
      } catch (error) {
        if (!isInvalidInput(error)) throw error;
        const apps = await listClientsOwnedBy(deps.db, session.userId);
        return appsPage(ctx, deps, session, apps, values, { text: error.detail, error: true }, 400);
      }
      const { client, clientSecret, ownerToken } = created;
      sendPage(ctx, {
        title: `${client.name} registered`,
        nav: navFor(session, deps.now()),
        body: html`<h1>${client.name} is registered</h1>
<p class="notice" role="status">Copy the secrets below now: Daybook stores only their hashes and cannot show them again.</p>
<div class="card">
${appDetails(client)}
${clientSecret ? secretBlock('Client secret', clientSecret, 'Keep it on your server; never put it in a mobile or browser app. You can rotate it on the app page.') : ''}
</div>
<div class="card">
<h2>Your own token</h2>
<p>An access token for your own account with this app's scopes, to try the API straight away (<code>Authorization: Bearer …</code>). It lasts 365 days; refresh it with the refresh token.</p>
${secretBlock('Access token', ownerToken.access_token, '')}
${secretBlock('Refresh token', ownerToken.refresh_token, '')}
</div>
${QUICK_START}
<p><a href="/settings/apps/${encodeURIComponent(client.client_id)}">Go to the app page</a> · <a href="/settings/apps">All your apps</a></p>`,
      });
    }),
  );

  appSettingsPages(router, deps);
}

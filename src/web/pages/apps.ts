/**
 * App management: a person registers OAuth clients, sees the client id and (once) the secret,
 * edits an app's settings (everything but its client type), rotates the secret, deletes the app.
 * Creating an app also gives its owner a token for their own account with the app's scopes, shown
 * once. Registering and editing share one form and one set of rules (`checkClientSettings`).
 */
import type Router from '@koa/router';
import type Koa from 'koa';
import type { Deps } from '../../deps';
import type { Session } from '../../domain/identity/sessions';
import {
  registerClientWithOwnerToken,
  deleteClient,
  findClientOwnedBy,
  listClientsOwnedBy,
  rotateClientSecret,
  updateClient,
  type ClientSettingsInput,
  type OAuthClient,
} from '../../domain/apps-and-grants/clients';
import { notFound } from '../../http/errors';
import { isInvalidInput } from '../../domain/errors';
import { field, fields, readForm, type Form } from '../forms';
import { html, type Html } from '../html';
import { sendPage } from '../layout';
import { assertCsrf, formPage, page, requireSession } from '../page';
import { navFor } from '../session';
import { scopeList, scopePicker } from './scope-picker';

interface AppFormValues {
  name: string;
  description: string;
  website: string;
  redirectUris: string;
  confidential: boolean;
  scopes: string[];
}

const EMPTY_FORM: AppFormValues = { name: '', description: '', website: '', redirectUris: '', confidential: true, scopes: [] };

type Notice = { text: string; error: boolean };

/** The app form as typed (kept as typed, to show again when it is refused). */
function readAppForm(form: Form): AppFormValues {
  return {
    name: field(form, 'name'),
    description: field(form, 'description').trim(),
    website: field(form, 'website').trim(),
    redirectUris: field(form, 'redirect_uris'),
    confidential: field(form, 'client_type') !== 'public',
    scopes: fields(form, 'scopes'),
  };
}

/** The redirect URIs of the textarea: one per line, trimmed, blank lines and repeats dropped. */
function redirectUriLines(text: string): string[] {
  return [
    ...new Set(
      text
        .split(/\r?\n/)
        .map((line) => line.trim())
        .filter(Boolean),
    ),
  ];
}

function settingsOf(values: AppFormValues): ClientSettingsInput {
  return {
    name: values.name,
    description: values.description,
    website: values.website,
    redirectUris: redirectUriLines(values.redirectUris),
    scopes: values.scopes,
  };
}

/** The edit form's starting values: the app as stored. */
function valuesOf(app: OAuthClient): AppFormValues {
  return {
    name: app.name,
    description: app.description,
    website: app.website,
    redirectUris: app.redirect_uris.join('\n'),
    confidential: app.confidential,
    scopes: app.allowed_scopes,
  };
}

function noticeBlock(notice: Notice | undefined): Html | string {
  return notice ? html`<p class="${notice.error ? 'error' : 'notice'}" role="status">${notice.text}</p>` : '';
}

/**
 * The fields registering and editing share. `clientType` is the radio choice when registering and
 * a fixed statement when editing; `warnings` say what a change does to an app already in use.
 */
function appFields(values: AppFormValues, clientType: Html, warnings?: { redirectUris: string; scopes: string }): Html {
  return html`<label for="name">Name</label>
<input type="text" id="name" name="name" value="${values.name}" required maxlength="100">
<label for="description">Description</label>
<textarea id="description" name="description" maxlength="1000">${values.description}</textarea>
<label for="website">Website</label>
<input type="url" id="website" name="website" value="${values.website}" placeholder="https://…">
<label for="redirect_uris">Redirect URIs, one per line</label>
<textarea id="redirect_uris" name="redirect_uris" required placeholder="https://example.com/oauth/callback">${values.redirectUris}</textarea>
<p class="muted">HTTPS, matched exactly. Plain http is allowed only for localhost, 127.0.0.1 and [::1] (any port), for development.${warnings ? html` ${warnings.redirectUris}` : ''}</p>
${clientType}
<label>Scopes the app may ask for</label>
${scopePicker(values.scopes)}
<p class="muted">Version 1 apps asking for <code>read</code> need every read scope; <code>read+write</code> needs every scope.${warnings ? html` ${warnings.scopes}` : ''}</p>`;
}

function clientTypeChoice(confidential: boolean): Html {
  return html`<label>Client type</label>
<label class="check"><input type="radio" name="client_type" value="confidential"${confidential ? html` checked` : ''}> Confidential: a server that can keep a client secret</label>
<label class="check"><input type="radio" name="client_type" value="public"${confidential ? '' : html` checked`}> Public: a mobile, desktop or browser app (no secret; must use PKCE)</label>`;
}

function fixedClientType(confidential: boolean): Html {
  return html`<label>Client type</label>
<p>${confidential ? 'Confidential (has a client secret)' : 'Public (no secret; PKCE required)'}. <span class="muted">The client type cannot be changed after registration: register a new app if you need the other type.</span></p>`;
}

const EDIT_WARNINGS = {
  redirectUris: 'Authorisation codes issued for a URI you remove can no longer be exchanged.',
  scopes: 'Removing a scope revokes every token of this app that carries it: those people must authorise the app again.',
};

function appsPage(ctx: Koa.Context, deps: Deps, session: Session, apps: OAuthClient[], values: AppFormValues, notice?: Notice, status = 200): void {
  const nav = navFor(session, deps.now());
  sendPage(ctx, {
    title: 'Your apps',
    status,
    nav,
    body: html`<h1>Your apps</h1>
${noticeBlock(notice)}
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

function secretBlock(title: string, value: string, note: Html | string): Html {
  return html`<label>${title}</label><code class="secret" data-secret="${title}">${value}</code><p class="muted">${note}</p>`;
}

function appDetails(app: OAuthClient): Html {
  return html`<table>
<tr><th>Client ID</th><td><code class="client-id">${app.client_id}</code></td></tr>
<tr><th>Type</th><td>${app.confidential ? 'Confidential (has a client secret)' : 'Public (no secret; PKCE required)'}</td></tr>
${app.description ? html`<tr><th>Description</th><td>${app.description}</td></tr>` : ''}
${app.website ? html`<tr><th>Website</th><td>${app.website}</td></tr>` : ''}
<tr><th>Redirect URIs</th><td>${app.redirect_uris.map((uri) => html`<code>${uri}</code><br>`)}</td></tr>
<tr><th>Scopes</th><td>${scopeList(app.allowed_scopes)}</td></tr>
</table>`;
}

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
<p><a href="/settings/apps/${encodeURIComponent(client.client_id)}">Go to the app page</a> · <a href="/settings/apps">All your apps</a></p>`,
      });
    }),
  );

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

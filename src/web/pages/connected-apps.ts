/** Connected apps: the apps a person has authorised, with their scopes and last use; revoking one ends its access at once. */
import type Router from '@koa/router';
import type { Deps } from '../../deps';
import { disconnectApp, listConnectedApps } from '../../domain/apps-and-grants/connected-apps';
import { localDateTime } from '../../domain/time';
import { findUserById } from '../../domain/identity/users';
import { notFound } from '../../http/errors';
import { readForm } from '../forms';
import { html } from '../html';
import { sendPage } from '../layout';
import { assertCsrf, page, requireSession } from '../page';
import { navFor } from '../session';
import { scopeList } from './scope-picker';

/** "2026-11-22 16:03" in the person's timezone. */
function when(instant: Date, timezone: string): string {
  return localDateTime(instant, timezone).slice(0, 16).replace('T', ' ');
}

export function connectedAppPages(router: Router, deps: Deps): void {
  router.get(
    '/settings/connected-apps',
    page(deps, async (ctx) => {
      const session = await requireSession(ctx, deps);
      if (!session) return;
      const user = await findUserById(deps.db, session.userId);
      if (!user) throw notFound('This account no longer exists.');
      const apps = await listConnectedApps(deps.db, session.userId, deps.now());
      const nav = navFor(session, deps.now());
      sendPage(ctx, {
        title: 'Connected apps',
        nav,
        body: html`<h1>Connected apps</h1>
${ctx.query.revoked === '1' ? html`<p class="notice" role="status">The app has been disconnected: its tokens no longer work.</p>` : ''}
${apps.length === 0 ? html`<div class="card"><p class="muted">No app can use your Daybook data right now.</p></div>` : ''}
${apps.map(
  (app) => html`<div class="card connected-app">
<h2>${app.name}</h2>
<p class="muted">${app.website ? html`${app.website} · ` : ''}Connected ${when(app.connectedAt, user.timezone)} · ${app.lastUsedAt ? `Last used ${when(app.lastUsedAt, user.timezone)}` : 'Not used yet'}</p>
${scopeList(app.scopes)}
<form method="post" action="/settings/connected-apps/${encodeURIComponent(app.clientId)}/revoke">
<input type="hidden" name="csrf_token" value="${nav.csrf}">
<button type="submit" class="danger">Revoke access</button>
</form>
</div>`,
)}`,
      });
    }),
  );

  router.post(
    '/settings/connected-apps/:clientId/revoke',
    page(deps, async (ctx) => {
      const session = await requireSession(ctx, deps);
      if (!session) return;
      assertCsrf(session, await readForm(ctx), deps.now());
      await disconnectApp(deps.db, session.userId, String(ctx.params.clientId), deps.now());
      ctx.status = 303;
      ctx.redirect('/settings/connected-apps?revoked=1');
    }),
  );
}

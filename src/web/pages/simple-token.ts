/** The simple token page: the person's read-only simple token, and resetting it. */
import type Router from '@koa/router';
import type { Deps } from '../../deps';
import { findUserById, resetSimpleToken, simpleTokenOf } from '../../domain/identity/users';
import { notFound } from '../../http/errors';
import { readForm } from '../forms';
import { html } from '../html';
import { sendPage } from '../layout';
import { assertCsrf, page, requireSession } from '../page';
import { navFor } from '../session';

export function simpleTokenPages(router: Router, deps: Deps): void {
  router.get(
    '/settings/simple-token',
    page(deps, async (ctx) => {
      const session = await requireSession(ctx, deps);
      if (!session) return;
      const user = await findUserById(deps.db, session.userId);
      if (!user) throw notFound('This account no longer exists.');
      const token = await simpleTokenOf(deps.db, user, deps.secretKey);
      const nav = navFor(session, deps.now());
      sendPage(ctx, {
        title: 'Simple token',
        nav,
        body: html`<h1>Simple token</h1>
${ctx.query.reset === '1' ? html`<p class="notice" role="status">Your simple token has been reset: the old one no longer works.</p>` : ''}
<div class="card">
<p>A read-only token for your own scripts: it can read all your data, never expires, and cannot write. Send it as <code>Authorization: Token &lt;token&gt;</code>. Apps should use OAuth2 instead.</p>
<label>Your simple token</label>
<code class="secret" id="simple-token">${token}</code>
<form method="post" action="/settings/simple-token/reset">
<input type="hidden" name="csrf_token" value="${nav.csrf}">
<div class="actions"><button type="submit" class="danger">Reset the token</button></div>
</form>
<p class="muted">Resetting makes the current token stop working at once.</p>
</div>`,
      });
    }),
  );

  router.post(
    '/settings/simple-token/reset',
    page(deps, async (ctx) => {
      const session = await requireSession(ctx, deps);
      if (!session) return;
      assertCsrf(session, await readForm(ctx), deps.now());
      await resetSimpleToken(deps.db, session.userId, deps.secretKey);
      ctx.status = 303;
      ctx.redirect('/settings/simple-token?reset=1');
    }),
  );
}

/**
 * All of a person's insights, newest first, twenty a page (Your data shows the last week's,
 * grouped; this is where the older ones are).
 */
import type Router from '@koa/router';
import type { Deps } from '../../deps';
import { listInsightEntries } from '../../domain/derived/insights';
import { HttpError } from '../../http/errors';
import { html } from '../html';
import { sendPage } from '../layout';
import { attributeHref } from '../links';
import { page, requireSession } from '../page';
import { navFor } from '../session';
import { EVERYTHING } from './data';

const PER_PAGE = 20;

export function insightPages(router: Router, deps: Deps): void {
  router.get(
    '/data/insights',
    page(deps, async (ctx) => {
      const session = await requireSession(ctx, deps);
      if (!session) return;
      const asked = ctx.query.page ?? '1';
      const number = typeof asked === 'string' && /^[1-9]\d{0,6}$/.test(asked) ? Number(asked) : NaN;
      if (!Number.isInteger(number)) throw new HttpError(400, 'Pick a page as a whole number from 1.');
      const { count, results } = await listInsightEntries(deps.db, {
        userId: session.userId,
        visibility: EVERYTHING,
        filters: {},
        page: { limit: PER_PAGE, offset: (number - 1) * PER_PAGE },
      });
      const pages = Math.max(1, Math.ceil(count / PER_PAGE));
      sendPage(ctx, {
        title: 'Insights',
        nav: navFor(session, deps.now()),
        body: html`<h1>Insights</h1>
<p class="muted">Everything Daybook noticed in your data, newest first. <a href="/data">Back to your data</a>.</p>
<div class="card">${
          results.length === 0
            ? html`<p class="muted">${number === 1 ? 'None yet: insights appear as your data grows.' : 'No insights on this page.'}</p>`
            : html`<ul>${results.map(({ insight }) => html`<li><a href="${attributeHref(insight.type.attribute.name)}">${insight.type.attribute.label}</a>: ${insight.text} <span class="muted">(${insight.created.slice(0, 10)})</span></li>`)}</ul>`
        }
<nav class="tabs" aria-label="Pages">${number > 1 ? html`<a href="/data/insights?page=${number - 1}" rel="prev">← Newer</a>` : ''}<span class="muted">Page ${number} of ${pages}</span>${number < pages ? html`<a href="/data/insights?page=${number + 1}" rel="next">Older →</a>` : ''}</nav>
</div>`,
      });
    }),
  );
}

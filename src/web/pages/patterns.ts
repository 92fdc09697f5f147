/**
 * Patterns: what the weekly derive found in a person's data, as the API serves it to their apps:
 * the newest week's correlations, strongest first (optionally the strong or five-star ones only),
 * and each attribute's newest medians, overall and per weekday. Read-only; the person sees all of
 * their own data.
 */
import type Router from '@koa/router';
import type { Deps } from '../../deps';
import { VALUE_TYPES } from '../../db/catalogue-value-types';
import { attributeLabels } from '../../domain/tracking/attributes';
import { listAverages } from '../../domain/derived/averages';
import { listCorrelations } from '../../domain/derived/correlations';
import { READ_SCOPES } from '../../domain/apps-and-grants/scopes';
import { readVisibility } from '../../domain/apps-and-grants/visibility';
import { flagOf } from '../../http/query';
import { html } from '../html';
import { sendPage } from '../layout';
import { page, requireSession } from '../page';
import { navFor } from '../session';
import { correlationItem } from '../correlation-view';
import { pairPage } from './pair';
import { heatCaption, weekdayTable } from './weekday-table';

const EVERYTHING = readVisibility(READ_SCOPES);
/** The most of each list one page shows (the API pages through the rest). */
const SHOWN = 100;

export function patternPages(router: Router, deps: Deps): void {
  router.get(
    '/data/patterns',
    page(deps, async (ctx) => {
      const session = await requireSession(ctx, deps);
      if (!session) return;
      const strong = flagOf(ctx.query.strong) === true;
      const confident = flagOf(ctx.query.confident) === true;
      const correlations = await listCorrelations(deps.database, {
        userId: session.userId,
        visibility: EVERYTHING,
        filters: { strong, confident },
        page: { limit: SHOWN, offset: 0 },
      });
      const averages = await listAverages(deps.db, { userId: session.userId, visibility: EVERYTHING, filters: {}, page: { limit: SHOWN, offset: 0 } });
      const names = averages.results.map((a) => a.attribute);
      const attributes = await attributeLabels(deps.db, session.userId, names);
      const nav = navFor(session, deps.now());
      sendPage(ctx, {
        title: 'Patterns',
        nav,
        body: html`<h1>Patterns</h1>
<p class="muted">Computed each week from your data (the same figures your apps can read). The bar shows how closely two things move together (right: together, left: opposite); the stars how sure Daybook is that it is not chance. Open a pair to see both drawn together. <a href="/data">Back to your data</a>.</p>
<div class="card"><h2>What goes together</h2>
<form method="get" action="/data/patterns" class="daypicker">
<label class="check"><input type="checkbox" name="strong" value="1"${strong ? html` checked` : ''}> Strong only</label>
<label class="check"><input type="checkbox" name="confident" value="1"${confident ? html` checked` : ''}> Five stars only</label>
<button type="submit" class="secondary">Show</button>
</form>
${
  correlations.results.length === 0
    ? html`<p class="muted">Nothing yet: correlations need at least 30 days with values of both attributes, and show once a week's computation found them.</p>`
    : html`<ul class="patterns">${correlations.results.map(correlationItem)}</ul>${correlations.count > SHOWN ? html`<p class="muted">The ${SHOWN} strongest of ${correlations.count}.</p>` : ''}`
}
</div>
<div class="card"><h2>Typical values</h2>
${
  averages.results.length === 0
    ? html`<p class="muted">Nothing yet: medians appear after the first weekly computation over your data.</p>`
    : html`<p class="muted">Medians of the 60 days before each set, overall and by weekday; ${heatCaption()}</p>${weekdayTable(
        averages.results.map((average) => ({
          name: average.attribute,
          label: attributes.get(average.attribute)?.label ?? average.attribute,
          valueType: attributes.get(average.attribute)?.value_type ?? VALUE_TYPES.float,
          average,
        })),
      )}`
}
</div>`,
      });
    }),
  );

  router.get(
    '/data/pair/:first/:second',
    page(deps, async (ctx) => {
      const session = await requireSession(ctx, deps);
      if (!session) return;
      await pairPage(ctx, deps, session, String(ctx.params.first), String(ctx.params.second));
    }),
  );
}

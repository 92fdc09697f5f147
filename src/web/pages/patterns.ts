/**
 * Patterns: what the weekly derive found in a person's data, as the API serves it to their apps:
 * the newest week's correlations, strongest first (optionally the strong or five-star ones only),
 * and each attribute's newest medians, overall and per weekday. Read-only; the person sees all of
 * their own data.
 */
import type Router from '@koa/router';
import { personDatabase, type Deps } from '../../deps';
import { VALUE_TYPES } from '../../db/catalogue-value-types';
import { attributeLabels, listAttributeRowsWithValues, type AttributeRowWithValues } from '../../domain/tracking/attributes';
import { localDate } from '../../domain/time';
import { pointsOf } from '../series-view';
import type { Session } from '../../domain/identity/sessions';
import { personOf } from './data';
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
import { heatCaption, tagWeekdayTable, weekdayTable } from './weekday-table';

const EVERYTHING = readVisibility(READ_SCOPES);
/** The most of each list one page shows (the API pages through the rest). */
const SHOWN = 100;

/** The last 12 weeks of the person's tags, for their row of days ticked by weekday. */
async function tagWeeks(deps: Deps, session: Session, names: string[]): Promise<AttributeRowWithValues[]> {
  if (names.length === 0) return [];
  const person = await personOf(deps, session);
  const today = localDate(deps.now(), person.timezone);
  const { results } = await listAttributeRowsWithValues(personDatabase(deps, person.id), {
    userId: person.id,
    visibility: EVERYTHING,
    filters: { names },
    dateMax: today,
    days: 84,
  });
  return results;
}

export function patternPages(router: Router, deps: Deps): void {
  router.get(
    '/data/patterns',
    page(deps, async (ctx) => {
      const session = await requireSession(ctx, deps);
      if (!session) return;
      const strong = flagOf(ctx.query.strong) === true;
      const confident = flagOf(ctx.query.confident) === true;
      const correlations = await listCorrelations(personDatabase(deps, session.userId), {
        userId: session.userId,
        visibility: EVERYTHING,
        filters: { strong, confident },
        page: { limit: SHOWN, offset: 0 },
      });
      const averages = await listAverages(deps.db, { userId: session.userId, visibility: EVERYTHING, filters: {}, page: { limit: SHOWN, offset: 0 } });
      const names = averages.results.map((a) => a.attribute);
      const attributes = await attributeLabels(deps.db, session.userId, names);
      // Tags (yes/no) are shown as days ticked per weekday, from their last 12 weeks, not as medians.
      const tagNames = names.filter((name) => attributes.get(name)?.value_type === VALUE_TYPES.boolean);
      const tags = await tagWeeks(deps, session, tagNames);
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
        averages.results
          .filter((average) => !tagNames.includes(average.attribute))
          .map((average) => ({
            name: average.attribute,
            label: attributes.get(average.attribute)?.label ?? average.attribute,
            valueType: attributes.get(average.attribute)?.value_type ?? VALUE_TYPES.float,
            average,
          })),
      )}${tags.length > 0 ? html`<h3>Tags</h3><p class="muted">On how many of the last 12 of each weekday each tag was ticked.</p>${tagWeekdayTable(tags.map((t) => ({ label: t.row.label, name: t.row.name, points: pointsOf(t.values) })))}` : ''}`
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

/**
 * Patterns: what the weekly derive found in a person's data, as the API serves it to their apps:
 * the newest week's correlations, strongest first (optionally the strong or five-star ones only),
 * and each attribute's newest medians, overall and per weekday. Read-only; the person sees all of
 * their own data.
 */
import type Router from '@koa/router';
import type { Deps } from '../../deps';
import { VALUE_TYPES } from '../../db/catalogue';
import { attributeLabels } from '../../domain/attributes';
import { listAverages, type AverageObject } from '../../domain/averages';
import { listCorrelations, type CorrelationObject } from '../../domain/correlations';
import { READ_SCOPES } from '../../domain/scopes';
import { readVisibility } from '../../domain/visibility';
import { flagOf } from '../../http/query';
import { html, type Html } from '../html';
import { sendPage } from '../layout';
import { page, requireSession } from '../page';
import { navFor } from '../session';
import { formatValue } from '../values';

const EVERYTHING = readVisibility(READ_SCOPES);
/** The most of each list one page shows (the API pages through the rest). */
const SHOWN = 100;
const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;

function sentence(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function stars(count: number): Html {
  return html`<span class="stars" aria-label="${count} of 5 stars">${'★'.repeat(count)}<span class="muted">${'☆'.repeat(5 - count)}</span></span>`;
}

function correlationRow(correlation: CorrelationObject): Html {
  return html`<li><strong>${sentence(correlation.second_person)}</strong><br>
<span class="muted">${correlation.strength_description} · ${stars(correlation.stars)} ${correlation.stars_description} · over ${correlation.period} days</span></li>`;
}

function averagesTable(averages: AverageObject[], attributes: Map<string, { label: string; value_type: number }>): Html {
  const shown = (name: string, value: number | null) => {
    const type = attributes.get(name)?.value_type ?? VALUE_TYPES.float;
    return value === null ? '' : formatValue(type, roundMedian(type, value));
  };
  return html`<div class="scroll"><table class="week">
<thead><tr><th>Attribute</th><th>Overall</th>${WEEKDAYS.map((d) => html`<th>${d.slice(0, 3).replace(/^./, (c) => c.toUpperCase())}</th>`)}</tr></thead>
<tbody>${averages.map(
    (a) => html`<tr id="average-${a.attribute}"><td><strong>${attributes.get(a.attribute)?.label ?? a.attribute}</strong></td><td class="day">${shown(a.attribute, a.overall)}</td>${WEEKDAYS.map((d) => html`<td>${shown(a.attribute, a[d])}</td>`)}</tr>`,
  )}</tbody></table></div>`;
}

/** A median (possibly halfway between two values) as precise as a person reads it: whole minutes for times and periods. */
function roundMedian(type: number, value: number): number {
  if (type === VALUE_TYPES.period || type === VALUE_TYPES.timeOfDay || type === VALUE_TYPES.timeFromMidday) return Math.round(value);
  const places = type === VALUE_TYPES.percentage ? 1000 : 100;
  return Math.round(value * places) / places;
}

export function patternPages(router: Router, deps: Deps): void {
  router.get('/data/patterns', page(deps, async (ctx) => {
    const session = await requireSession(ctx, deps);
    if (!session) return;
    const strong = flagOf(ctx.query.strong) === true;
    const confident = flagOf(ctx.query.confident) === true;
    const correlations = await listCorrelations(deps.db, { userId: session.userId, visibility: EVERYTHING, filters: { strong, confident }, page: { limit: SHOWN, offset: 0 } });
    const averages = await listAverages(deps.db, { userId: session.userId, visibility: EVERYTHING, filters: {}, page: { limit: SHOWN, offset: 0 } });
    const names = averages.results.map((a) => a.attribute);
    const attributes = await attributeLabels(deps.db, session.userId, names);
    const nav = navFor(session, deps.now());
    sendPage(ctx, {
      title: 'Patterns',
      nav,
      body: html`<h1>Patterns</h1>
<p class="muted">Computed each week from your data (the same figures your apps can read). <a href="/data">Back to your data</a>.</p>
<div class="card"><h2>What goes together</h2>
<form method="get" action="/data/patterns" class="daypicker">
<label class="check"><input type="checkbox" name="strong" value="1"${strong ? html` checked` : ''}> Strong only</label>
<label class="check"><input type="checkbox" name="confident" value="1"${confident ? html` checked` : ''}> Five stars only</label>
<button type="submit" class="secondary">Show</button>
</form>
${correlations.results.length === 0
  ? html`<p class="muted">Nothing yet: correlations need at least 30 days with values of both attributes, and show once a week's computation found them.</p>`
  : html`<ul class="patterns">${correlations.results.map(correlationRow)}</ul>${correlations.count > SHOWN ? html`<p class="muted">The ${SHOWN} strongest of ${correlations.count}.</p>` : ''}`}
</div>
<div class="card"><h2>Typical values</h2>
${averages.results.length === 0
  ? html`<p class="muted">Nothing yet: medians appear after the first weekly computation over your data.</p>`
  : html`<p class="muted">Medians of the 60 days before each set, overall and by weekday.</p>${averagesTable(averages.results, attributes)}`}
</div>`,
    });
  }));
}

/**
 * Two attributes drawn together (/data/pair/<first>/<second>): both series over the same days,
 * one above the other, each under its name (a year by week: web/weekly.ts), the scatter of the days that have both (the day after, for a correlation
 * found with the second attribute a day later), the correlation found, and the numbers.
 */
import type Koa from 'koa';
import type { Deps } from '../../deps';
import type { AttributeRowWithValues } from '../../domain/tracking/attributes';
import { findCorrelationCombo } from '../../domain/derived/correlations';
import type { Session } from '../../domain/identity/sessions';
import { addDays, localDate } from '../../domain/time';
import { notFound } from '../../http/errors';
import { scatter } from '../charts';
import { marginFor } from '../chart-axes';
import { correlationItem } from '../correlation-view';
import { html } from '../html';
import { sendPage } from '../layout';
import { attributeHref, pairHref } from '../links';
import { navFor } from '../session';
import { attributeChart, axisFormat, isCharted, numericValue, pointsOf, shownType } from '../series-view';
import { formatValue } from '../values';
import { attributeDays, EVERYTHING, personOf } from './data';

const SPANS = [30, 90, 365] as const;
/** Both series charts keep a left margin for five-character labels ('10000', '23:30'), so their days line up. */
const ALIGNED = marginFor(['00000']).left;

async function oneAttribute(deps: Deps, userId: number, name: string, dateMax: string, days: number): Promise<AttributeRowWithValues> {
  const row = await attributeDays(deps, userId, name, dateMax, days);
  if (!row) throw notFound(`You have no attribute named ${name}.`);
  return row;
}

export async function pairPage(ctx: Koa.Context, deps: Deps, session: Session, first: string, second: string): Promise<void> {
  const person = await personOf(deps, session);
  const today = localDate(deps.now(), person.timezone);
  const asked = Number(ctx.query.days ?? 90);
  const span = (SPANS as readonly number[]).includes(asked) ? asked : 90;
  const a = await oneAttribute(deps, person.id, first, today, span + 1);
  const b = await oneAttribute(deps, person.id, second, today, span + 1);
  const correlation = await findCorrelationCombo(deps.db, { userId: person.id, visibility: EVERYTHING, attribute: first, attribute2: second });
  // The pairing the correlation used: attribute2 one day later when its offset is -1 (DESIGN, "Correlation period / offset").
  const later = correlation && correlation.offset === -1 ? (correlation.attribute === first ? 'second' : 'first') : undefined;
  const aPoints = pointsOf(a.values).slice(1);
  const bPoints = pointsOf(b.values).slice(1);
  const byDate = (row: AttributeRowWithValues) => new Map(row.values.map((v) => [v.date, numericValue(v.value)]));
  const aByDate = byDate(a);
  const bByDate = byDate(b);
  const pairs = aPoints
    .map((p) => {
      const x = later === 'first' ? (aByDate.get(addDays(p.date, 1)) ?? null) : p.value;
      const y = later === 'second' ? (bByDate.get(addDays(p.date, 1)) ?? null) : (bByDate.get(p.date) ?? null);
      return { date: p.date, x, y };
    })
    .filter((p): p is { date: string; x: number; y: number } => p.x !== null && p.y !== null && p.date < today);
  const la = a.row.label;
  const lb = b.row.label;
  sendPage(ctx, {
    title: `${la} and ${lb}`,
    nav: navFor(session, deps.now()),
    body: html`<h1>${la} and ${lb}</h1>
<p class="muted"><a href="/data/patterns">Patterns</a> · <a href="${attributeHref(first)}">${la}</a> · <a href="${attributeHref(second)}">${lb}</a></p>
${correlation ? html`<div class="card"><ul class="patterns">${correlationItem(correlation)}</ul></div>` : html`<p class="card muted">No correlation of these two was found in the latest weekly computation.</p>`}
<section class="card" aria-labelledby="together"><h2 id="together">Side by side</h2>
<nav class="tabs" aria-label="Days shown">${SPANS.map((s) => (s === span ? html`<strong aria-current="page">${s} days</strong>` : html`<a href="${pairHref(first, second)}?days=${s}">${s} days</a>`))}</nav>
<div class="first"><h3 class="chart-label">${la}</h3>${isCharted(shownType(a.row)) ? attributeChart({ label: la, valueType: shownType(a.row), points: aPoints, height: 200, minLeft: ALIGNED }) : html`<p class="muted">Text: not drawn.</p>`}</div>
<div class="second"><h3 class="chart-label">${lb}</h3>${isCharted(shownType(b.row)) ? attributeChart({ label: lb, valueType: shownType(b.row), points: bPoints, height: 200, minLeft: ALIGNED }) : html`<p class="muted">Text: not drawn.</p>`}</div>
</section>
<section class="card" aria-labelledby="paired"><h2 id="paired">Day by day</h2>
<p class="muted">One dot per day with both values${later ? ` (${later === 'second' ? lb : la} of the day after)` : ''}: ${pairs.length} days.</p>
${scatter({
  title: `${la} against ${lb}`,
  desc: `${pairs.length} days, each a dot: ${la} across, ${lb} up.`,
  pairs,
  xLabel: la,
  yLabel: lb,
  formatX: axisFormat(shownType(a.row)),
  formatY: axisFormat(shownType(b.row)),
})}
<details class="numbers"><summary>The numbers (${pairs.length} days)</summary><div class="scroll"><table>
<thead><tr><th scope="col">Day</th><th scope="col">${la}</th><th scope="col">${lb}</th></tr></thead>
<tbody>${pairs.map((p) => html`<tr><td>${p.date}</td><td>${formatValue(shownType(a.row), p.x)}</td><td>${formatValue(shownType(b.row), p.y)}</td></tr>`)}</tbody></table></div></details>
</section>`,
  });
}

/**
 * An attribute's page (/data/<name>, also /data/attributes/<name>: web/links.ts): its values as a
 * chart over the last 30, 90 or 365 days with the median and the average marked, its medians by
 * weekday, a month calendar, its correlations with other attributes (strongest first) and its
 * insights. Every picture has its numbers beside it as a table. Read-only.
 */
import type Router from '@koa/router';
import type Koa from 'koa';
import { personDatabase, type Deps } from '../../deps';
import { TEMPLATES_BY_NAME } from '../../db/catalogue-templates';
import type { AttributeRowWithValues } from '../../domain/tracking/attributes';
import { listAverages } from '../../domain/derived/averages';
import { listCorrelations } from '../../domain/derived/correlations';
import { listInsightEntries } from '../../domain/derived/insights';
import { addDays, localDate } from '../../domain/time';
import { HttpError, notFound } from '../../http/errors';
import { monthBounds, monthCalendar, monthName, shiftMonth } from '../calendar';
import { marksKey, separateMarks, shortDate, type DayPoint } from '../charts';
import { correlationItem } from '../correlation-view';
import { html, type Html } from '../html';
import { attributeHref } from '../links';
import { sendPage } from '../layout';
import { page, requireSession } from '../page';
import { navFor } from '../session';
import { attributeChart, isCharted, numericValue, pointsOf, roundFor, shownType, tagSummary } from '../series-view';
import { DAILY_UP_TO, daysPerWeek, weeklyMeans } from '../weekly';
import { VALUE_TYPES } from '../../db/catalogue-value-types';
import { displayUnit, formatValue } from '../values';
import { attributeDays, EVERYTHING, personOf } from './data';
import { heatCaption, tagWeekdayTable, weekdayTable } from './weekday-table';

/** The spans the chart offers, in days (docs/pages.md, "Charts": 30, 90 and 365). */
const SPANS = [30, 90, 365] as const;
const LONGEST = 365;

function spanOf(ctx: Koa.Context): number {
  const asked = Number(ctx.query.days ?? 30);
  return (SPANS as readonly number[]).includes(asked) ? asked : 30;
}

function monthOf(ctx: Koa.Context, today: string): string {
  const asked = ctx.query.month;
  if (asked === undefined || asked === '') return today.slice(0, 7);
  if (typeof asked !== 'string' || !/^\d{4}-(0[1-9]|1[0-2])$/.test(asked) || asked < '1900-01' || asked > '2999-12') {
    throw new HttpError(400, 'Pick a month as YYYY-MM, e.g. 2026-11.');
  }
  return asked;
}

function median(values: number[]): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** The numbers of the chart, newest first: days with a value (every day for a tag: a day not ticked is "No"). */
function numbersTable(row: AttributeRowWithValues, type: number, span: number): Html {
  const tag = type === VALUE_TYPES.boolean;
  const shown = row.values.slice(0, span).flatMap((v) => (tag ? [{ date: v.date, value: v.value === null ? 0 : v.value }] : v.value === null ? [] : [v]));
  return html`<details class="numbers"><summary>The numbers (${tag ? `${shown.length} days` : `${shown.length} days with a value`})</summary><div class="scroll"><table>
<thead><tr><th scope="col">Day</th><th scope="col">${row.row.label}</th></tr></thead>
<tbody>${shown.map((v) => html`<tr><td><a href="/data?date=${v.date}">${v.date}</a></td><td>${formatValue(type, v.value)}</td></tr>`)}</tbody></table></div></details>`;
}

/** The numbers of a chart drawn by week: each week's first day, mean, lowest and highest (or days ticked), newest first. */
function weeksTable(label: string, type: number, points: DayPoint[]): Html {
  const tag = type === VALUE_TYPES.boolean;
  const weeks = (tag ? daysPerWeek(points) : weeklyMeans(points)).reverse();
  const shown = (v: number | undefined) => (v === undefined ? '' : formatValue(type, roundFor(type, v)));
  return html`<details class="numbers"><summary>The numbers by week (${weeks.length} weeks)</summary><div class="scroll"><table>
<thead><tr><th scope="col">Week from</th>${tag ? html`<th scope="col">Days ticked</th>` : html`<th scope="col">${label}, mean</th><th scope="col">Lowest</th><th scope="col">Highest</th><th scope="col">Days with a value</th>`}</tr></thead>
<tbody>${weeks.map((w) => html`<tr><td>${w.date}</td>${tag ? html`<td>${w.value} of 7</td>` : html`<td>${w.value === null ? 'no value' : shown(w.value)}</td><td>${shown(w.low)}</td><td>${shown(w.high)}</td><td>${w.days ?? 0}</td>`}</tr>`)}</tbody></table></div></details>`;
}

/** The lines marked on the chart: the median and the average (kept apart), or for a tag its days per week. */
function marksOf(type: number, points: DayPoint[]): Array<{ value: number; label: string; drawn?: boolean }> {
  if (type === VALUE_TYPES.boolean) {
    const { ticked, days, perWeek } = tagSummary(points);
    const words = `${perWeek.toFixed(1)} days a week on average (${ticked} of ${days} days)`;
    // Days per week is drawn as a line only on the weekly chart; on the day ticks it is the key's sentence.
    return [{ value: points.length > DAILY_UP_TO ? perWeek : 0, label: words, drawn: points.length > DAILY_UP_TO }];
  }
  const values = points.map((p) => p.value).filter((v): v is number => v !== null);
  const middle = median(values);
  const mean = values.length > 0 ? values.reduce((a, b) => a + b, 0) / values.length : undefined;
  return separateMarks(
    [
      ...(middle === undefined ? [] : [{ value: middle, label: `Median ${formatValue(type, roundFor(type, middle))}` }]),
      ...(mean === undefined ? [] : [{ value: mean, label: `Average ${formatValue(type, roundFor(type, mean))}` }]),
    ],
    values,
  );
}

export function attributePageRoutes(router: Router, deps: Deps): void {
  const show = page(deps, async (ctx) => {
    const session = await requireSession(ctx, deps);
    if (!session) return;
    const person = await personOf(deps, session);
    const today = localDate(deps.now(), person.timezone);
    const name = String(ctx.params.name);
    const span = spanOf(ctx);
    const month = monthOf(ctx, today);
    const row = await attributeDays(deps, person.id, name, today, LONGEST);
    if (!row) throw notFound(`You have no attribute named ${name}.`);
    const { label } = row.row;
    const type = shownType(row.row);
    const bounds = monthBounds(month);
    const monthRow = await attributeDays(deps, person.id, name, bounds.last, bounds.days);
    const averages = await listAverages(deps.db, {
      userId: person.id,
      visibility: EVERYTHING,
      filters: { names: [name], sets: 'latest-per-attribute' },
      page: { limit: 1, offset: 0 },
    });
    const correlations = await listCorrelations(personDatabase(deps, person.id), {
      userId: person.id,
      visibility: EVERYTHING,
      filters: { attribute: name },
      page: { limit: 20, offset: 0 },
    });
    const insights = await listInsightEntries(deps.db, {
      userId: person.id,
      visibility: EVERYTHING,
      filters: { attribute: name },
      page: { limit: 20, offset: 0 },
    });
    const unit = displayUnit(row.row.value_type, row.row.template_name ? (TEMPLATES_BY_NAME.get(row.row.template_name)?.unit ?? null) : null);
    const points = pointsOf(row.values.slice(0, span));
    const values = points.map((p) => p.value).filter((v): v is number => v !== null);
    const marks = marksOf(type, points);
    const nav = navFor(session, deps.now());
    const self = attributeHref(name);
    sendPage(ctx, {
      title: label,
      nav,
      body: html`<h1>${label}${unit ? html` <span class="muted">(${unit})</span>` : ''}</h1>
<p class="muted">${row.row.group_label} · ${row.row.service_label ? `written by ${row.row.service_label}` : 'owned by nobody'} · <a href="/data">Your data</a></p>
<section class="card" aria-labelledby="over-time"><h2 id="over-time">Over time</h2>
<nav class="tabs" aria-label="Days shown">${SPANS.map((s) => (s === span ? html`<strong aria-current="page">${s} days</strong>` : html`<a href="${self}?days=${s}&amp;month=${month}">${s} days</a>`))}</nav>
${
  isCharted(type)
    ? html`${values.length === 0 && type !== VALUE_TYPES.boolean ? html`<p class="muted">No values in the last ${span} days.</p>` : ''}${attributeChart({ label, valueType: type, points, marks })}${marksKey(marks)}`
    : html`<p class="muted">${label} is text: it is listed below rather than drawn.</p>`
}
${span > DAILY_UP_TO && isCharted(type) ? weeksTable(label, type, points) : numbersTable(row, type, span)}
</section>
${
  type === VALUE_TYPES.boolean
    ? html`<section class="card" aria-labelledby="weekdays"><h2 id="weekdays">Typical by weekday</h2><p class="muted">On how many of the last 12 of each weekday ${label} was ticked; ${heatCaption()}</p>${tagWeekdayTable([{ label, points: pointsOf(row.values.slice(0, 84)) }])}</section>`
    : averages.results.length > 0 && isCharted(type)
      ? html`<section class="card" aria-labelledby="weekdays"><h2 id="weekdays">Typical by weekday</h2><p class="muted">Medians of the 60 days before ${averages.results[0].date}; ${heatCaption()}</p>${weekdayTable([{ label, valueType: type, average: averages.results[0] }])}</section>`
      : ''
}
<section class="card" aria-labelledby="month"><h2 id="month">${monthName(month)}</h2>
<nav class="tabs" aria-label="Months"><a href="${self}?days=${span}&amp;month=${shiftMonth(month, -1)}" rel="prev">← ${monthName(shiftMonth(month, -1))}</a>${month < today.slice(0, 7) ? html` <a href="${self}?days=${span}&amp;month=${shiftMonth(month, 1)}" rel="next">${monthName(shiftMonth(month, 1))} →</a>` : ''}</nav>
${monthCalendar(label, month, calendarDays(type, monthRow, today), today)}
</section>
<section class="card" aria-labelledby="together"><h2 id="together">What goes with ${label}</h2>
${
  correlations.results.length === 0
    ? html`<p class="muted">Nothing found yet: correlations need at least 30 days with values of both, and are computed once a week.</p>`
    : html`<ul class="patterns">${correlations.results.map(correlationItem)}</ul>`
}
</section>
<section class="card" aria-labelledby="insights"><h2 id="insights">Insights</h2>
${
  insights.results.length === 0
    ? html`<p class="muted">None yet.</p>`
    : html`<ul>${insights.results.map(({ insight }) => html`<li>${insight.text} <span class="muted">(${shortDate(insight.created.slice(0, 10))})</span></li>`)}</ul>`
}
</section>
<p class="muted">Last value: ${lastValue(row)}. <a href="/data?date=${addDays(today, 0)}">Back to today</a>.</p>`,
    });
  });
  router.get('/data/attributes/:name', show);
  router.get('/data/:name', show);
}

function lastValue(row: AttributeRowWithValues): string {
  const last = row.values.find((v) => v.value !== null);
  return last ? `${formatValue(row.row.value_type, last.value)} on ${last.date}` : 'none in the last year';
}

/** The month's days for the calendar: a note (text) counts as a value, coloured alike. */
function calendarDays(type: number, monthRow: AttributeRowWithValues | undefined, today: string) {
  // A tag's day up to today that is not ticked is a "No" (0), not a missing value.
  const tagged = (v: { date: string; value: unknown }) => (type === VALUE_TYPES.boolean && v.value === null && v.date <= today ? 0 : v.value);
  return [...(monthRow?.values ?? [])].reverse().map((v) => ({
    date: v.date,
    value: isCharted(type) ? numericValue(tagged(v) as number | null) : v.value === null || v.value === '' ? null : 1,
    shown: formatValue(type, tagged(v) as number | null),
  }));
}

/**
 * Your data: a chosen day (today first), every attribute grouped as the API lists them, each with
 * the day's value, a sparkline of the 30 days ending with it and a link to its page; the values
 * of attributes Daybook owns are entered on one form for the whole day and saved in one request
 * (tracking by hand, domain/tracking/manual-tracking.ts; docs/pages.md, "The day's form"); the week's
 * insights, grouped. Anything can be tracked by hand from /data/track (pages/track.ts). A session
 * sees everything of its person, so no scope narrows these pages.
 */
import type Router from '@koa/router';
import type Koa from 'koa';
import { personDatabase, type Deps } from '../../deps';
import { TEMPLATES_BY_NAME } from '../../db/catalogue-templates';
import { attributeLabels, listAttributeRowsWithValues, type AttributeRowWithValues } from '../../domain/tracking/attributes';
import { listInsightEntries, type InsightEntry } from '../../domain/derived/insights';
import { setValuesByHand } from '../../domain/tracking/manual-tracking';
import { READ_SCOPES } from '../../domain/apps-and-grants/scopes';
import type { Session } from '../../domain/identity/sessions';
import { addDays, isSupportedDate, localDate } from '../../domain/time';
import { findUserById, type User } from '../../domain/identity/users';
import { readVisibility } from '../../domain/apps-and-grants/visibility';
import { HttpError, notFound } from '../../http/errors';
import { field } from '../forms';
import { noticeAttribute, noticeCode } from '../notices';
import { html, type Html } from '../html';
import { sendPage } from '../layout';
import { formPage, page, requireSession } from '../page';
import { navFor } from '../session';
import { sparkline } from '../charts';
import { dayField, dayValue, isEditableByHand, readDayForm } from '../day-form';
import { attributeHref } from '../links';
import { quickEntry } from '../quick-entry';
import { weekGlance } from '../week-glance';
import { axisFormat, isCharted, pointsOf, shownType } from '../series-view';
import { displayUnit, formatValue, parseTypedValue } from '../values';

/** Days of insights shown, ending with the chosen day (older ones are on /data/insights). */
const WEEK_DAYS = 7;
/** Days in each attribute's sparkline, ending with the chosen day. */
const SPARK_DAYS = 30;
/** The person sees all of their own data. */
export const EVERYTHING = readVisibility(READ_SCOPES);

export interface Notice {
  text: string;
  error: boolean;
}

/** The notices of /data, by code; the label is the person's own attribute's, when the address names one. */
const DATA_NOTICES = {
  saved: (label: string | undefined) => (label ? `Saved ${label}.` : 'Saved.'),
  tracking: (label: string | undefined) => `You now track ${label ?? 'it'} by hand: enter its values below.`,
};

async function dataNotice(ctx: Koa.Context, deps: Deps, person: User): Promise<Notice | undefined> {
  const code = noticeCode(ctx.query, ['saved', 'tracking'] as const);
  if (!code) return undefined;
  const name = noticeAttribute(ctx.query);
  const row = name ? (await attributeLabels(deps.db, person.id, [name])).get(name) : undefined;
  return { text: DATA_NOTICES[code](row?.label), error: false };
}

export async function personOf(deps: Deps, session: Session): Promise<User> {
  const user = await findUserById(deps.db, session.userId);
  if (!user) throw notFound('This account no longer exists.');
  return user;
}

/**
 * One of the person's attributes with `days` days of values up to `dateMax`, every group visible
 * (their own pages), read where the person's reads go (a replica when configured); undefined when
 * they have no attribute of that name.
 */
export async function attributeDays(deps: Deps, userId: number, name: string, dateMax: string, days: number): Promise<AttributeRowWithValues | undefined> {
  const { results } = await listAttributeRowsWithValues(personDatabase(deps, userId), {
    userId,
    visibility: EVERYTHING,
    filters: { names: [name] },
    dateMax,
    days,
  });
  return results[0];
}

/** The day a page is about: `?date=` when it is a real day, else the person's today. */
function chosenDay(ctx: Koa.Context, today: string): string {
  const asked = ctx.query.date;
  if (asked === undefined || asked === '') return today;
  if (typeof asked !== 'string' || !isSupportedDate(asked)) {
    throw new HttpError(400, 'Pick a day as YYYY-MM-DD, e.g. 2026-11-22.');
  }
  return asked;
}

function longDate(date: string): string {
  return new Date(`${date}T12:00:00Z`).toLocaleDateString('en-GB', { weekday: 'long', day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' });
}

function shortDay(date: string): string {
  return new Date(`${date}T12:00:00Z`).toLocaleDateString('en-GB', { weekday: 'short', day: 'numeric', timeZone: 'UTC' });
}

/** The unit shown with an attribute's label (numbers only). */
function unitOf(entry: AttributeRowWithValues): string | null {
  return displayUnit(entry.row.value_type, entry.row.template_name ? (TEMPLATES_BY_NAME.get(entry.row.template_name)?.unit ?? null) : null);
}

/** The sparkline, the day's value and (for what Daybook owns) the field of one attribute. */
function attributeItem(entry: AttributeRowWithValues, date: string, typed: Map<string, string> | undefined, problems: Map<string, string> | undefined): Html {
  const { name, label, value_type: type } = entry.row;
  const unit = unitOf(entry);
  const mine = isEditableByHand(entry.row);
  const shown = formatValue(type, dayValue(entry));
  const problem = problems?.get(name);
  return html`<li id="attribute-${name}" class="attr${mine ? ' mine' : ''}">
<div class="head"><a href="${attributeHref(name)}"><strong>${label}</strong></a>${unit ? html` <span class="muted">(${unit})</span>` : ''}<br><span class="muted from">${entry.row.service_label ?? 'Nobody'}</span></div>
${isCharted(type) ? sparkline(`${label}, last ${entry.values.length} days`, pointsOf(entry.values), axisFormat(shownType(entry.row))) : html`<span></span>`}
<div class="value" data-date="${date}">${shown === '' ? html`<span class="muted" aria-label="no value">—</span>` : shown}</div>
${mine ? html`<div class="entry${problem ? ' invalid' : ''}">${dayField(entry, unit, typed?.get(name))}${problem ? html`<p class="error">${problem}</p>` : ''}</div>` : ''}
</li>`;
}

/** The attributes of one group together. */
function groupCard(rows: AttributeRowWithValues[], date: string, typed?: Map<string, string>, problems?: Map<string, string>): Html {
  return html`<section class="card" aria-labelledby="group-${rows[0].row.group_name}"><h2 id="group-${rows[0].row.group_name}">${rows[0].row.group_label}</h2>
<ul class="attrs">${rows.map((row) => attributeItem(row, date, typed, problems))}</ul></section>`;
}

/** Rows of one group together, in the list order (group priority first). */
function byGroup(rows: AttributeRowWithValues[]): AttributeRowWithValues[][] {
  const groups = new Map<string, AttributeRowWithValues[]>();
  for (const row of rows) {
    const list = groups.get(row.row.group_name) ?? [];
    list.push(row);
    groups.set(row.row.group_name, list);
  }
  return [...groups.values()];
}

/** Record-type insights (docs/pages.md, "Insights on Your data"). */
const RECORD_TYPES = new Set(['record_high', 'record_low', 'week_high', 'month_summary']);

/** The insights of the day and the six before, grouped: the day, records, the rest of the week. */
function insightGroups(entries: InsightEntry[], date: string, timezone: string): Html {
  if (entries.length === 0) return html``;
  const dayOf = (entry: InsightEntry) => localDate(new Date(entry.insight.created), timezone);
  const records = entries.filter((e) => RECORD_TYPES.has(e.insight.type.name));
  const rest = entries.filter((e) => !RECORD_TYPES.has(e.insight.type.name));
  const groups: Array<[string, InsightEntry[]]> = [
    ['This day', rest.filter((e) => dayOf(e) === date)],
    ['Records', records],
    ['Earlier this week', rest.filter((e) => dayOf(e) !== date)],
  ];
  return html`<section class="card insights" aria-labelledby="insights"><h2 id="insights">Insights</h2>
${groups.filter(([, list]) => list.length > 0).map(([title, list]) => html`<h3>${title}</h3><ul>${list.map(({ insight }) => html`<li><a href="${attributeHref(insight.type.attribute.name)}">${insight.type.attribute.label}</a>: ${insight.text}</li>`)}</ul>`)}
<p><a href="/data/insights">All insights, older ones too</a></p></section>`;
}

interface DayPageOptions {
  notice?: Notice;
  status?: number;
  /** What the person typed, shown back when the form came back with a problem. */
  typed?: Map<string, string>;
  problems?: Map<string, string>;
}

/** Every attribute of the person with the days the page shows, ending at `date`. */
async function dayRows(deps: Deps, person: User, date: string): Promise<AttributeRowWithValues[]> {
  return (
    await listAttributeRowsWithValues(personDatabase(deps, person.id), {
      userId: person.id,
      visibility: EVERYTHING,
      filters: {},
      dateMax: date,
      days: SPARK_DAYS,
    })
  ).results;
}

async function dayPage(ctx: Koa.Context, deps: Deps, session: Session, person: User, date: string, options: DayPageOptions = {}): Promise<void> {
  const nav = navFor(session, deps.now());
  const today = localDate(deps.now(), person.timezone);
  const results = await dayRows(deps, person, date);
  const insights = await listInsightEntries(deps.db, {
    userId: person.id,
    visibility: EVERYTHING,
    filters: { dateMin: addDays(date, -(WEEK_DAYS - 1)), dateMax: date },
    page: { limit: 50, offset: 0 },
  });
  const { notice } = options;
  const anyMine = results.some((row) => isEditableByHand(row.row));
  const groups = byGroup(results).map((rows) => groupCard(rows, date, options.typed, options.problems));
  sendPage(ctx, {
    title: 'Your data',
    status: options.status ?? 200,
    nav,
    body: html`<h1>Your data</h1>
${notice ? html`<p class="${notice.error ? 'error' : 'notice'}" role="status">${notice.text}</p>` : ''}
${quickEntry(results, date, date === today ? 'Today' : longDate(date), nav.csrf, unitOf)}
${weekGlance(results, date)}
<div class="card"><form method="get" action="/data" class="daypicker">
<a href="/data?date=${addDays(date, -1)}" rel="prev">← ${shortDay(addDays(date, -1))}</a>
<strong>${longDate(date)}</strong>
${date < today ? html`<a href="/data?date=${addDays(date, 1)}" rel="next">${shortDay(addDays(date, 1))} →</a> <a href="/data">Today</a>` : ''}
<span class="goto"><label class="inline-label" for="date">Go to</label> <input type="date" id="date" name="date" value="${date}"> <button type="submit" class="secondary">Show</button></span>
</form></div>
${
  results.length === 0
    ? html`<div class="card"><p>Nothing is tracked yet. Connect an app that writes your data, <a href="/data/track">track something by hand</a>, or <a href="/settings/import">import your history</a> (Apple Health, a CSV, a Daybook export).</p></div>`
    : anyMine
      ? html`<form method="post" action="/data/day" class="day">
<input type="hidden" name="csrf_token" value="${nav.csrf}"><input type="hidden" name="date" value="${date}">
${groups}
<div class="savebar"><button type="submit">Save ${shortDay(date)}</button> <span class="muted">Saves the whole day at once; an empty field keeps its value.</span></div>
</form>`
      : groups
}
${insightGroups(insights.results, date, person.timezone)}
<p class="muted"><a href="/data/track">Track something by hand</a> · <a href="/data/patterns">Patterns in your data</a>.</p>`,
  });
}

/**
 * Saves the day's form: everything typed is read first, and if anything cannot be read nothing is
 * written and the form comes back with what was typed; otherwise every changed value is written
 * in one batch (one transaction) through the same write rules as any app's
 * (docs/pages.md, "The day's form").
 */
async function saveDay(ctx: Koa.Context, deps: Deps, session: Session, person: User, date: string, form: Record<string, unknown>): Promise<void> {
  const results = await dayRows(deps, person, date);
  const mine = results.filter((row) => isEditableByHand(row.row));
  const reading = readDayForm(form, mine, date);
  if (reading.problems.size > 0) {
    const text = `Nothing was saved: ${[...reading.problems.values()].join(' ')}`;
    return dayPage(ctx, deps, session, person, date, { notice: { text, error: true }, status: 400, typed: reading.typed, problems: reading.problems });
  }
  const outcomes = reading.items.length > 0 ? await setValuesByHand(deps.db, person, reading.items, deps.now()) : [];
  const refused = new Map<string, string>();
  outcomes.forEach((outcome, i) => {
    if (!outcome.ok) refused.set(reading.items[i].name, `${mine.find((row) => row.row.name === reading.items[i].name)?.row.label}: ${outcome.problem}`);
  });
  if (refused.size > 0) {
    const saved = outcomes.length - refused.size;
    const text = `${saved > 0 ? `Saved ${saved} value${saved === 1 ? '' : 's'}; not` : 'Nothing was'} saved: ${[...refused.values()].join(' ')}`;
    return dayPage(ctx, deps, session, person, date, { notice: { text, error: true }, status: 400, typed: reading.typed, problems: refused });
  }
  ctx.status = 303;
  ctx.redirect(`/data?${new URLSearchParams({ date, notice: 'saved' })}`);
}

export function dataPages(router: Router, deps: Deps): void {
  router.get(
    '/data',
    page(deps, async (ctx) => {
      const session = await requireSession(ctx, deps);
      if (!session) return;
      const person = await personOf(deps, session);
      const date = chosenDay(ctx, localDate(deps.now(), person.timezone));
      await dayPage(ctx, deps, session, person, date, { notice: await dataNotice(ctx, deps, person) });
    }),
  );

  router.post(
    '/data/values',
    formPage(deps, async (ctx, session, form) => {
      const person = await personOf(deps, session);
      const date = field(form, 'date');
      if (!isSupportedDate(date)) throw new HttpError(400, 'The form named no valid day. Go back and try again.');
      const attribute = (await attributeLabels(deps.db, person.id, [field(form, 'name')])).get(field(form, 'name'));
      if (!attribute) throw notFound(`You have no attribute named ${field(form, 'name')}.`);
      const parsed = parseTypedValue(attribute.value_type, field(form, 'value'));
      const result =
        'problem' in parsed
          ? { ok: false as const, problem: parsed.problem }
          : (await setValuesByHand(deps.db, person, [{ name: field(form, 'name'), date, value: parsed.value }], deps.now()))[0];
      if (!result.ok)
        return dayPage(ctx, deps, session, person, date, { notice: { text: `${attribute.label} was not saved: ${result.problem}`, error: true }, status: 400 });
      ctx.status = 303;
      ctx.redirect(`/data?${new URLSearchParams({ date, notice: 'saved', attribute: field(form, 'name') })}`);
    }),
  );

  router.post(
    '/data/day',
    formPage(deps, async (ctx, session, form) => {
      const person = await personOf(deps, session);
      const date = field(form, 'date');
      if (!isSupportedDate(date)) throw new HttpError(400, 'The form named no valid day. Go back and try again.');
      await saveDay(ctx, deps, session, person, date, form);
    }),
  );
}

/**
 * Your data: a person's week of values up to a chosen day, every attribute grouped as the API
 * lists them, with the day's insights; the values of attributes Daybook owns can be entered here
 * (tracking by hand, domain/manual-tracking.ts), and anything can be tracked by hand from
 * /data/track. A session sees everything of its person, so no scope narrows these pages.
 */
import type Router from '@koa/router';
import type Koa from 'koa';
import type { Deps } from '../../deps';
import { GROUPS, MANUAL_SERVICE, TEMPLATES, TEMPLATES_BY_NAME, VALUE_TYPE_DESCRIPTIONS, VALUE_TYPES } from '../../db/catalogue';
import { listAttributeRowsWithValues, listAttributes, type AttributeRowWithValues } from '../../domain/attributes';
import { listInsightEntries, type InsightEntry } from '../../domain/insights';
import { setValuesByHand, trackByHand, type TrackRequest } from '../../domain/manual-tracking';
import { READ_SCOPES } from '../../domain/scopes';
import type { Session } from '../../domain/sessions';
import { addDays, isSupportedDate, localDate } from '../../domain/time';
import { findUserById, type User } from '../../domain/users';
import { readVisibility } from '../../domain/visibility';
import { HttpError, notFound } from '../../http/errors';
import { field, readForm } from '../forms';
import { noticeAttribute, noticeCode } from '../notices';
import { html, type Html } from '../html';
import { sendPage } from '../layout';
import { assertCsrf, page, requireSession } from '../page';
import { navFor } from '../session';
import { sparkline } from '../charts';
import { dayField, dayValue, readDayForm } from '../day-form';
import { attributeHref } from '../links';
import { axisFormat, isCharted, pointsOf, shownType } from '../series-view';
import { displayUnit, formatValue, parseTypedValue } from '../values';

/** Days of insights shown, ending with the chosen day (older ones are on /data/insights). */
const WEEK_DAYS = 7;
/** Days in each attribute's sparkline, ending with the chosen day. */
const SPARK_DAYS = 30;
/** The person sees all of their own data. */
export const EVERYTHING = readVisibility(READ_SCOPES);

interface Notice {
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
  const row: { label: string } | undefined = name ? await deps.db('attributes').where({ user_id: person.id, name }).first('label') : undefined;
  return { text: DATA_NOTICES[code](row?.label), error: false };
}

export async function personOf(deps: Deps, session: Session): Promise<User> {
  const user = await findUserById(deps.db, session.userId);
  if (!user) throw notFound('This account no longer exists.');
  return user;
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

/** The sparkline, the day's value and (for what Daybook owns) the field of one attribute. */
function attributeItem(entry: AttributeRowWithValues, date: string, typed: Map<string, string> | undefined, problems: Map<string, string> | undefined): Html {
  const { name, label, value_type: type } = entry.row;
  const unit = displayUnit(type, entry.row.template_name ? TEMPLATES_BY_NAME.get(entry.row.template_name)?.unit ?? null : null);
  const mine = entry.row.service_name === MANUAL_SERVICE.name;
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

async function dayPage(ctx: Koa.Context, deps: Deps, session: Session, person: User, date: string, options: DayPageOptions = {}): Promise<void> {
  const nav = navFor(session, deps.now());
  const today = localDate(deps.now(), person.timezone);
  const { results } = await listAttributeRowsWithValues(deps.db, { userId: person.id, visibility: EVERYTHING, filters: {}, dateMax: date, days: SPARK_DAYS });
  const insights = await listInsightEntries(deps.db, {
    userId: person.id,
    visibility: EVERYTHING,
    filters: { dateMin: addDays(date, -(WEEK_DAYS - 1)), dateMax: date },
    page: { limit: 50, offset: 0 },
  });
  const { notice } = options;
  const anyMine = results.some((row) => row.row.service_name === MANUAL_SERVICE.name);
  const groups = byGroup(results).map((rows) => groupCard(rows, date, options.typed, options.problems));
  sendPage(ctx, {
    title: 'Your data',
    status: options.status ?? 200,
    nav,
    body: html`<h1>Your data</h1>
${notice ? html`<p class="${notice.error ? 'error' : 'notice'}" role="status">${notice.text}</p>` : ''}
<div class="card"><form method="get" action="/data" class="daypicker">
<a href="/data?date=${addDays(date, -1)}" rel="prev">← ${shortDay(addDays(date, -1))}</a>
<strong>${longDate(date)}</strong>
${date < today ? html`<a href="/data?date=${addDays(date, 1)}" rel="next">${shortDay(addDays(date, 1))} →</a> <a href="/data">Today</a>` : ''}
<span class="goto"><label class="inline-label" for="date">Go to</label> <input type="date" id="date" name="date" value="${date}"> <button type="submit" class="secondary">Show</button></span>
</form></div>
${results.length === 0
  ? html`<div class="card"><p>Nothing is tracked yet. Connect an app that writes your data, or <a href="/data/track">track something by hand</a>.</p></div>`
  : anyMine
    ? html`<form method="post" action="/data/day" class="day">
<input type="hidden" name="csrf_token" value="${nav.csrf}"><input type="hidden" name="date" value="${date}">
${groups}
<div class="savebar"><button type="submit">Save ${shortDay(date)}</button> <span class="muted">Saves the whole day at once; an empty field keeps its value.</span></div>
</form>`
    : groups}
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
  const { results } = await listAttributeRowsWithValues(deps.db, { userId: person.id, visibility: EVERYTHING, filters: {}, dateMax: date, days: SPARK_DAYS });
  const mine = results.filter((row) => row.row.service_name === MANUAL_SERVICE.name);
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

/** The form to start tracking something by hand. */
async function trackPage(ctx: Koa.Context, deps: Deps, session: Session, notice?: Notice, status = 200, typed: { label?: string; group?: string; value_type?: string; value_kind?: string } = {}): Promise<void> {
  const nav = navFor(session, deps.now());
  const tracked = await trackedAttributes(deps, session.userId);
  const byTemplate = new Map(tracked.filter((a) => a.template).map((a) => [a.template as string, a]));
  const mark = (template: string): string => {
    const attribute = byTemplate.get(template);
    if (!attribute) return '';
    return attribute.service?.name === MANUAL_SERVICE.name ? ' (tracked by hand)' : ` (from ${attribute.service?.label ?? 'nobody'})`;
  };
  const byHand = tracked.filter((a) => a.service?.name === MANUAL_SERVICE.name);
  const templatesByGroup = GROUPS.map((group) => ({ group, templates: TEMPLATES.filter((t) => t.group === group.name) })).filter((g) => g.templates.length > 0);
  sendPage(ctx, {
    title: 'Track something by hand',
    status,
    nav,
    body: html`<h1>Track something by hand</h1>
${notice ? html`<p class="${notice.error ? 'error' : 'notice'}" role="status">${notice.text}</p>` : ''}
${byHand.length > 0 ? html`<p>You track by hand: ${byHand.map((a, i) => html`${i > 0 ? ', ' : ''}<a href="${attributeHref(a.name)}">${a.label}</a>`)}.</p>` : ''}
<p class="muted">Daybook becomes the service that owns what you track here, and you enter its values on <a href="/data">Your data</a>. If an app owned it, it stops writing it (you can hand it back under <a href="/settings/attributes">Attributes</a>).</p>
<form method="post" action="/data/track" class="card">
<input type="hidden" name="csrf_token" value="${nav.csrf}"><input type="hidden" name="kind" value="template">
<h2>Something Daybook knows</h2>
<label for="template">Attribute</label>
<select id="template" name="template">${templatesByGroup.map(
      ({ group, templates }) => html`<optgroup label="${group.label}">${templates.map((t) => html`<option value="${t.name}">${t.label}${mark(t.name)}</option>`)}</optgroup>`,
    )}</select>
<p class="muted">Marked: what you already track, by hand or from an app.</p>
<div class="actions"><button type="submit">Track it</button></div>
</form>
<form method="post" action="/data/track" class="card">
<input type="hidden" name="csrf_token" value="${nav.csrf}"><input type="hidden" name="kind" value="custom">
<h2>Something of your own</h2>
<label for="label">Name</label>
<input type="text" id="label" name="label" maxlength="100" value="${typed.label ?? ''}" placeholder="e.g. Cups of tea">
<div class="grid">
<div><label for="group">Group</label><select id="group" name="group">${GROUPS.map((g) => html`<option value="${g.name}"${typed.group === g.name ? html` selected` : ''}>${g.label}</option>`)}</select></div>
<div><label for="value_kind">What it is</label><select id="value_kind" name="value_kind">${VALUE_KINDS.map((k) => html`<option value="${k.kind}"${typed.value_kind === k.kind ? html` selected` : ''}>${k.words}</option>`)}</select></div>
</div>
<p class="muted">A yes/no tag is something you did on a day, or not: you tick it on the days it happened (it is kept with your custom tags, whatever group is chosen).</p>
<div class="actions"><button type="submit">Track it</button></div>
</form>`,
  });
}

/**
 * The kinds of value a person can choose for something of their own, in their words, with the
 * value type each stands for (docs/pages.md, "Tracking something new"). A tag is an integer in
 * the custom tags group (the spec's tags).
 */
const VALUE_KINDS = [
  { kind: 'tag', words: 'A yes/no tag', valueType: VALUE_TYPES.integer, group: 'custom' },
  { kind: 'count', words: 'A count (a whole number)', valueType: VALUE_TYPES.integer },
  { kind: 'number', words: 'A number', valueType: VALUE_TYPES.float },
  { kind: 'duration', words: 'A duration (hours and minutes)', valueType: VALUE_TYPES.period },
  { kind: 'time', words: 'A time of day', valueType: VALUE_TYPES.timeOfDay },
  { kind: 'rating', words: 'A 1-9 rating', valueType: VALUE_TYPES.scale },
  { kind: 'percentage', words: 'A percentage', valueType: VALUE_TYPES.percentage },
  { kind: 'note', words: 'A note (text)', valueType: VALUE_TYPES.string },
] as const;

/** The person's active attributes (to mark what is already tracked). */
async function trackedAttributes(deps: Deps, userId: number) {
  return (await listAttributes(deps.db, { userId, visibility: EVERYTHING, filters: { includeLowPriority: true }, page: { limit: 1000, offset: 0 }, now: deps.now() })).results;
}

/** What the track form asks for, or a sentence saying what is missing. */
function trackRequestOf(form: Record<string, unknown>): TrackRequest | string {
  if (field(form, 'kind') === 'template') return { template: field(form, 'template') };
  const label = field(form, 'label').trim();
  if (label === '') return 'Give what you track a name.';
  const kind = field(form, 'value_kind');
  if (kind !== '') {
    const chosen = VALUE_KINDS.find((k) => k.kind === kind);
    if (!chosen) return 'Pick what it is from the list.';
    return { label, group: 'group' in chosen ? chosen.group : field(form, 'group'), valueType: chosen.valueType };
  }
  // The value type code, as forms made before the kinds in words sent it.
  const valueType = Number(field(form, 'value_type'));
  if (!Number.isInteger(valueType) || valueType < 0 || valueType >= VALUE_TYPE_DESCRIPTIONS.length) return 'Pick a kind of value from the list.';
  return { label, group: field(form, 'group'), valueType };
}

export function dataPages(router: Router, deps: Deps): void {
  router.get('/data', page(deps, async (ctx) => {
    const session = await requireSession(ctx, deps);
    if (!session) return;
    const person = await personOf(deps, session);
    const date = chosenDay(ctx, localDate(deps.now(), person.timezone));
    await dayPage(ctx, deps, session, person, date, { notice: await dataNotice(ctx, deps, person) });
  }));

  router.post('/data/values', page(deps, async (ctx) => {
    const session = await requireSession(ctx, deps);
    if (!session) return;
    const form = await readForm(ctx);
    assertCsrf(session, form, deps.now());
    const person = await personOf(deps, session);
    const date = field(form, 'date');
    if (!isSupportedDate(date)) throw new HttpError(400, 'The form named no valid day. Go back and try again.');
    const attribute: { label: string; value_type: number } | undefined = await deps.db('attributes').where({ user_id: person.id, name: field(form, 'name') }).first('label', 'value_type');
    if (!attribute) throw notFound(`You have no attribute named ${field(form, 'name')}.`);
    const parsed = parseTypedValue(attribute.value_type, field(form, 'value'));
    const result = 'problem' in parsed ? { ok: false as const, problem: parsed.problem } : (await setValuesByHand(deps.db, person, [{ name: field(form, 'name'), date, value: parsed.value }], deps.now()))[0];
    if (!result.ok) return dayPage(ctx, deps, session, person, date, { notice: { text: `${attribute.label} was not saved: ${result.problem}`, error: true }, status: 400 });
    ctx.status = 303;
    ctx.redirect(`/data?${new URLSearchParams({ date, notice: 'saved', attribute: field(form, 'name') })}`);
  }));

  router.post('/data/day', page(deps, async (ctx) => {
    const session = await requireSession(ctx, deps);
    if (!session) return;
    const form = await readForm(ctx);
    assertCsrf(session, form, deps.now());
    const person = await personOf(deps, session);
    const date = field(form, 'date');
    if (!isSupportedDate(date)) throw new HttpError(400, 'The form named no valid day. Go back and try again.');
    await saveDay(ctx, deps, session, person, date, form);
  }));

  router.get('/data/track', page(deps, async (ctx) => {
    const session = await requireSession(ctx, deps);
    if (!session) return;
    await trackPage(ctx, deps, session);
  }));

  router.post('/data/track', page(deps, async (ctx) => {
    const session = await requireSession(ctx, deps);
    if (!session) return;
    const form = await readForm(ctx);
    assertCsrf(session, form, deps.now());
    const person = await personOf(deps, session);
    const request = trackRequestOf(form);
    const typed = { label: field(form, 'label'), group: field(form, 'group'), value_type: field(form, 'value_type'), value_kind: field(form, 'value_kind') };
    if (typeof request === 'string') return trackPage(ctx, deps, session, { text: request, error: true }, 400, typed);
    const result = await trackByHand(deps.db, person, request, deps.now());
    if (!result.ok) return trackPage(ctx, deps, session, { text: result.problem, error: true }, 400, typed);
    ctx.status = 303;
    ctx.redirect(`/data?${new URLSearchParams({ notice: 'tracking', attribute: result.name })}#attribute-${encodeURIComponent(result.name)}`);
  }));
}

/**
 * Your data: a person's week of values up to a chosen day, every attribute grouped as the API
 * lists them, with the day's insights; the values of attributes Daybook owns can be entered here
 * (tracking by hand, domain/manual-tracking.ts), and anything can be tracked by hand from
 * /data/track. A session sees everything of its person, so no scope narrows these pages.
 */
import type Router from '@koa/router';
import type Koa from 'koa';
import type { Deps } from '../../deps';
import { GROUPS, MANUAL_SERVICE, TEMPLATES, TEMPLATES_BY_NAME, VALUE_TYPE_DESCRIPTIONS } from '../../db/catalogue';
import { attributeLabels, listAttributeRowsWithValues, type AttributeRowWithValues } from '../../domain/attributes';
import { listInsightEntries } from '../../domain/insights';
import { setValuesByHand, trackByHand, type TrackRequest } from '../../domain/manual-tracking';
import { MOOD_NOTE_MAX_LENGTH } from '../../domain/writes/value-rules';
import { READ_SCOPES } from '../../domain/scopes';
import type { Session } from '../../domain/sessions';
import { addDays, isSupportedDate, localDate } from '../../domain/time';
import { findUserById, type User } from '../../domain/users';
import { readVisibility } from '../../domain/visibility';
import { HttpError, notFound } from '../../http/errors';
import { field } from '../forms';
import { noticeAttribute, noticeCode } from '../notices';
import { html, type Html } from '../html';
import { sendPage } from '../layout';
import { formPage, page, requireSession } from '../page';
import { navFor } from '../session';
import { displayUnit, formatValue, inputHint, inputValue, parseTypedValue } from '../values';

/** Days shown in the week table, ending with the chosen day. */
const WEEK_DAYS = 7;
/** The person sees all of their own data. */
const EVERYTHING = readVisibility(READ_SCOPES);

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
  const row = name ? (await attributeLabels(deps.db, person.id, [name])).get(name) : undefined;
  return { text: DATA_NOTICES[code](row?.label), error: false };
}

async function personOf(deps: Deps, session: Session): Promise<User> {
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

/** The entry form of one attribute Daybook owns, for the chosen day. */
function entryForm(row: AttributeRowWithValues, date: string, csrf: string, current: string): Html {
  const { name, label, value_type: type } = row.row;
  const input =
    type === 7
      ? html`<select name="value" aria-label="${label} on ${date}"><option value="">—</option><option value="yes"${current === 'Yes' ? html` selected` : ''}>Yes</option><option value="no"${current === 'No' ? html` selected` : ''}>No</option></select>`
      : type === 2
        ? html`<textarea name="value" rows="2" maxlength="${MOOD_NOTE_MAX_LENGTH}" aria-label="${label} on ${date}">${inputValue(type, row.values[0]?.value ?? null)}</textarea>`
        : html`<input type="text" name="value" value="${inputValue(type, row.values[0]?.value ?? null)}" inputmode="decimal" aria-label="${label} on ${date}" placeholder="${inputHint(type)}">`;
  return html`<form method="post" action="/data/values" class="entry">
<input type="hidden" name="csrf_token" value="${csrf}"><input type="hidden" name="name" value="${name}"><input type="hidden" name="date" value="${date}">
${input}<button type="submit" class="secondary">Save</button>
</form>`;
}

/** The week table of one group. */
function groupTable(rows: AttributeRowWithValues[], date: string, csrf: string): Html {
  const days = rows[0].values.map((v) => v.date).reverse();
  return html`<div class="card"><h2>${rows[0].row.group_label}</h2><div class="scroll"><table class="week">
<thead><tr><th>Attribute</th>${days.map((d) => html`<th class="${d === date ? 'day' : ''}">${shortDay(d)}</th>`)}<th>From</th></tr></thead>
<tbody>${rows.map((row) => {
    const unit = displayUnit(row.row.value_type, row.row.template_name ? TEMPLATES_BY_NAME.get(row.row.template_name)?.unit ?? null : null);
    const byDay = [...row.values].reverse();
    const mine = row.row.service_name === MANUAL_SERVICE.name;
    return html`<tr id="attribute-${row.row.name}">
<td><strong>${row.row.label}</strong>${unit ? html` <span class="muted">(${unit})</span>` : ''}</td>
${byDay.map((v) => html`<td class="${v.date === date ? 'day' : ''}">${formatValue(row.row.value_type, v.value)}</td>`)}
<td>${row.row.service_label ?? html`<span class="muted">Nobody</span>`}</td>
</tr>${mine ? html`<tr class="enter"><td colspan="${byDay.length + 2}">${entryForm(row, date, csrf, formatValue(row.row.value_type, byDay.at(-1)?.value ?? null))}</td></tr>` : ''}`;
  })}</tbody></table></div></div>`;
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

async function dayPage(ctx: Koa.Context, deps: Deps, session: Session, person: User, date: string, notice?: Notice, status = 200): Promise<void> {
  const nav = navFor(session, deps.now());
  const today = localDate(deps.now(), person.timezone);
  const { results } = await listAttributeRowsWithValues(deps.db, { userId: person.id, visibility: EVERYTHING, filters: {}, dateMax: date, days: WEEK_DAYS });
  const insights = await listInsightEntries(deps.db, {
    userId: person.id,
    visibility: EVERYTHING,
    filters: { dateMin: date, dateMax: date },
    page: { limit: 20, offset: 0 },
  });
  sendPage(ctx, {
    title: 'Your data',
    status,
    nav,
    body: html`<h1>Your data</h1>
${notice ? html`<p class="${notice.error ? 'error' : 'notice'}" role="status">${notice.text}</p>` : ''}
<div class="card"><form method="get" action="/data" class="daypicker">
<a href="/data?date=${addDays(date, -1)}" rel="prev">← ${shortDay(addDays(date, -1))}</a>
<strong>${longDate(date)}</strong>
${date < today ? html`<a href="/data?date=${addDays(date, 1)}" rel="next">${shortDay(addDays(date, 1))} →</a> <a href="/data">Today</a>` : ''}
<label class="inline-label" for="date">Go to</label><input type="date" id="date" name="date" value="${date}"><button type="submit" class="secondary">Show</button>
</form></div>
${insights.results.length > 0
  ? html`<div class="card"><h2>Insights</h2><ul>${insights.results.map(({ insight }) => html`<li>${insight.text}</li>`)}</ul></div>`
  : ''}
${results.length === 0
  ? html`<div class="card"><p>Nothing is tracked yet. Connect an app that writes your data, or <a href="/data/track">track something by hand</a>.</p></div>`
  : html`${byGroup(results).map((rows) => groupTable(rows, date, nav.csrf))}
<p class="muted">You can enter the values of what you track by hand (owned by Daybook); a day's value can be changed but not cleared. <a href="/data/track">Track something by hand</a> · <a href="/data/patterns">Patterns in your data</a>.</p>`}`,
  });
}

/** The form to start tracking something by hand. */
function trackPage(ctx: Koa.Context, deps: Deps, session: Session, notice?: Notice, status = 200, typed: { label?: string; group?: string; value_type?: string } = {}): void {
  const nav = navFor(session, deps.now());
  const templatesByGroup = GROUPS.map((group) => ({ group, templates: TEMPLATES.filter((t) => t.group === group.name) })).filter((g) => g.templates.length > 0);
  sendPage(ctx, {
    title: 'Track something by hand',
    status,
    nav,
    body: html`<h1>Track something by hand</h1>
${notice ? html`<p class="${notice.error ? 'error' : 'notice'}" role="status">${notice.text}</p>` : ''}
<p class="muted">Daybook becomes the service that owns what you track here, and you enter its values on <a href="/data">Your data</a>. If an app owned it, it stops writing it (you can hand it back under <a href="/settings/attributes">Attributes</a>).</p>
<form method="post" action="/data/track" class="card">
<input type="hidden" name="csrf_token" value="${nav.csrf}"><input type="hidden" name="kind" value="template">
<h2>Something Daybook knows</h2>
<label for="template">Attribute</label>
<select id="template" name="template">${templatesByGroup.map(
      ({ group, templates }) => html`<optgroup label="${group.label}">${templates.map((t) => html`<option value="${t.name}">${t.label}</option>`)}</optgroup>`,
    )}</select>
<div class="actions"><button type="submit">Track it</button></div>
</form>
<form method="post" action="/data/track" class="card">
<input type="hidden" name="csrf_token" value="${nav.csrf}"><input type="hidden" name="kind" value="custom">
<h2>Something of your own</h2>
<label for="label">Name</label>
<input type="text" id="label" name="label" maxlength="100" value="${typed.label ?? ''}" placeholder="e.g. Cups of tea">
<div class="grid">
<div><label for="group">Group</label><select id="group" name="group">${GROUPS.map((g) => html`<option value="${g.name}"${typed.group === g.name ? html` selected` : ''}>${g.label}</option>`)}</select></div>
<div><label for="value_type">Kind of value</label><select id="value_type" name="value_type">${VALUE_TYPE_DESCRIPTIONS.map((d, i) => html`<option value="${i}"${typed.value_type === String(i) ? html` selected` : ''}>${d}</option>`)}</select></div>
</div>
<p class="muted">A tag (something you did on a day, or not) is an Integer in the Custom tags group: enter 1 on the days it happened.</p>
<div class="actions"><button type="submit">Track it</button></div>
</form>`,
  });
}

/** What the track form asks for, or a sentence saying what is missing. */
function trackRequestOf(form: Record<string, unknown>): TrackRequest | string {
  if (field(form, 'kind') === 'template') return { template: field(form, 'template') };
  const label = field(form, 'label').trim();
  if (label === '') return 'Give what you track a name.';
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
    await dayPage(ctx, deps, session, person, date, await dataNotice(ctx, deps, person));
  }));

  router.post('/data/values', formPage(deps, async (ctx, session, form) => {
    const person = await personOf(deps, session);
    const date = field(form, 'date');
    if (!isSupportedDate(date)) throw new HttpError(400, 'The form named no valid day. Go back and try again.');
    const attribute = (await attributeLabels(deps.db, person.id, [field(form, 'name')])).get(field(form, 'name'));
    if (!attribute) throw notFound(`You have no attribute named ${field(form, 'name')}.`);
    const parsed = parseTypedValue(attribute.value_type, field(form, 'value'));
    const result = 'problem' in parsed ? { ok: false as const, problem: parsed.problem } : (await setValuesByHand(deps.db, person, [{ name: field(form, 'name'), date, value: parsed.value }], deps.now()))[0];
    if (!result.ok) return dayPage(ctx, deps, session, person, date, { text: `${attribute.label} was not saved: ${result.problem}`, error: true }, 400);
    ctx.status = 303;
    ctx.redirect(`/data?${new URLSearchParams({ date, notice: 'saved', attribute: field(form, 'name') })}`);
  }));

  router.get('/data/track', page(deps, async (ctx) => {
    const session = await requireSession(ctx, deps);
    if (!session) return;
    trackPage(ctx, deps, session);
  }));

  router.post('/data/track', formPage(deps, async (ctx, session, form) => {
    const person = await personOf(deps, session);
    const request = trackRequestOf(form);
    const typed = { label: field(form, 'label'), group: field(form, 'group'), value_type: field(form, 'value_type') };
    if (typeof request === 'string') return trackPage(ctx, deps, session, { text: request, error: true }, 400, typed);
    const result = await trackByHand(deps.db, person, request, deps.now());
    if (!result.ok) return trackPage(ctx, deps, session, { text: result.problem, error: true }, 400, typed);
    ctx.status = 303;
    ctx.redirect(`/data?${new URLSearchParams({ notice: 'tracking', attribute: result.name })}#attribute-${encodeURIComponent(result.name)}`);
  }));
}

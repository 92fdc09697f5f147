/**
 * Tracking something by hand (/data/track): a template Daybook knows (marked when the person
 * already tracks it), or something of their own, chosen in people's words ("a yes/no tag",
 * "a duration"…) rather than value-type codes (docs/pages.md, "Tracking something new").
 */
import type Router from '@koa/router';
import type Koa from 'koa';
import type { Deps } from '../../deps';
import { GROUPS } from '../../db/catalogue-groups';
import { MANUAL_SERVICE } from '../../db/catalogue-services';
import { TEMPLATES } from '../../db/catalogue-templates';
import { VALUE_TYPE_DESCRIPTIONS, VALUE_TYPES } from '../../db/catalogue-value-types';
import { listAttributes } from '../../domain/tracking/attributes';
import { trackByHand, type TrackRequest } from '../../domain/tracking/manual-tracking';
import type { Session } from '../../domain/identity/sessions';
import { field, readForm } from '../forms';
import { html } from '../html';
import { sendPage } from '../layout';
import { attributeHref } from '../links';
import { assertCsrf, page, requireSession } from '../page';
import { navFor } from '../session';
import { EVERYTHING, personOf, type Notice } from './data';

/** The form to start tracking something by hand. */
async function trackPage(
  ctx: Koa.Context,
  deps: Deps,
  session: Session,
  notice?: Notice,
  status = 200,
  typed: { label?: string; group?: string; value_type?: string; value_kind?: string } = {},
): Promise<void> {
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
      ({ group, templates }) =>
        html`<optgroup label="${group.label}">${templates.map((t) => html`<option value="${t.name}">${t.label}${mark(t.name)}</option>`)}</optgroup>`,
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
 * the custom tags group (docs/decisions.md, "Custom tags").
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
  return (
    await listAttributes(deps.database, {
      userId,
      visibility: EVERYTHING,
      filters: { includeLowPriority: true },
      page: { limit: 1000, offset: 0 },
      now: deps.now(),
    })
  ).results;
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

export function trackPages(router: Router, deps: Deps): void {
  router.get(
    '/data/track',
    page(deps, async (ctx) => {
      const session = await requireSession(ctx, deps);
      if (!session) return;
      await trackPage(ctx, deps, session);
    }),
  );

  router.post(
    '/data/track',
    page(deps, async (ctx) => {
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
    }),
  );
}

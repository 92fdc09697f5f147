/**
 * Attribute settings: each attribute with the service that owns it; hand it to another service
 * able to handle it, deactivate it (after a confirmation page: docs/decisions.md, "Deactivation
 * asks first"), or mark it private (version 1 views of other people).
 */
import type Router from '@koa/router';
import type Koa from 'koa';
import type { Deps } from '../../deps';
import {
  changeAttributeOwner,
  deactivateAttribute,
  listAttributeSettings,
  setAttributePrivate,
  type AttributeSetting,
} from '../../domain/tracking/attribute-settings';
import { checked, field } from '../forms';
import { html } from '../html';
import { attributeHref } from '../links';
import { noticeAttribute, noticeCode } from '../notices';
import { sendPage } from '../layout';
import { formPage, page, requireSession } from '../page';
import { navFor } from '../session';
import { HttpError } from '../../http/errors';
import type { Session } from '../../domain/identity/sessions';

export const DEACTIVATE = '__deactivate__';

function ownerOptions(attribute: AttributeSetting) {
  const current = attribute.owner ? attribute.owner.label : 'nobody';
  const others = attribute.candidates.filter((service) => !(attribute.active && service.clientPk === attribute.owner?.clientPk));
  return html`<option value="" selected>Keep: ${attribute.active ? `owned by ${current}` : 'inactive'}</option>
${others.map((service) => html`<option value="${service.name}">Hand to ${service.label}</option>`)}
${attribute.active ? html`<option value="${DEACTIVATE}">Deactivate (nobody owns it)</option>` : ''}`;
}

/** A fixed sentence, naming the attribute only when it is one of the person's own. */
function savedNotice(query: Koa.Context['query'], attributes: AttributeSetting[]): string | undefined {
  if (!noticeCode(query, ['saved'] as const)) return undefined;
  const name = noticeAttribute(query);
  const label = attributes.find((attribute) => attribute.name === name)?.label;
  return label ? `Saved ${label}.` : 'Saved.';
}

/**
 * The page a deactivation asks from, with no JavaScript (pages run with `script-src 'none'`): what
 * deactivating means, a button that posts the same change confirmed, and a way back. The private
 * box's choice travels with it, so confirming saves what the person chose on the list.
 */
async function confirmDeactivation(ctx: Koa.Context, deps: Deps, session: Session, name: string, isPrivate: boolean): Promise<void> {
  const attribute = (await listAttributeSettings(deps.db, session.userId, deps.now())).find((candidate) => candidate.name === name);
  if (!attribute) throw new HttpError(404, `You have no attribute named "${name}".`);
  const nav = navFor(session, deps.now());
  sendPage(ctx, {
    title: `Deactivate ${attribute.label}?`,
    nav,
    body: html`<form method="post" action="/settings/attributes/${encodeURIComponent(attribute.name)}" class="card narrow">
<h1>Deactivate ${attribute.label}?</h1>
<p>${attribute.owner ? `${attribute.owner.label} stops owning it and can no longer write its values; ` : ''}nobody owns ${attribute.label} until you hand it to a service that has handled it. The values already stored are kept, and you can still enter it by hand.</p>
<input type="hidden" name="csrf_token" value="${nav.csrf}">
<input type="hidden" name="owner" value="${DEACTIVATE}">
<input type="hidden" name="confirm" value="1">
${isPrivate ? html`<input type="hidden" name="private" value="1">` : ''}
<div class="actions"><button type="submit" class="danger">Deactivate ${attribute.label}</button> <a href="/settings/attributes#attribute-${attribute.name}">Keep it as it is</a></div>
</form>`,
  });
}

export function attributePages(router: Router, deps: Deps): void {
  router.get(
    '/settings/attributes',
    page(deps, async (ctx) => {
      const session = await requireSession(ctx, deps);
      if (!session) return;
      const attributes = await listAttributeSettings(deps.db, session.userId, deps.now());
      const nav = navFor(session, deps.now());
      const saved = savedNotice(ctx.query, attributes);
      sendPage(ctx, {
        title: 'Attributes',
        nav,
        body: html`<h1>Attributes</h1>
${saved ? html`<p class="notice" role="status">${saved}</p>` : ''}
<p class="muted">Exactly one service owns each attribute and writes its values. You can hand an attribute to another connected app that has handled it before, or deactivate it.</p>
${attributes.length === 0 ? html`<div class="card"><p class="muted">You have no attributes yet: they appear when an app starts tracking something for you.</p></div>` : ''}
${
  attributes.length > 0
    ? html`<div class="card"><table>
<thead><tr><th>Attribute</th><th>Group</th><th>Owner</th><th>Change</th></tr></thead>
<tbody>${attributes.map(
        (attribute) => html`<tr id="attribute-${attribute.name}">
<td><a href="${attributeHref(attribute.name)}"><strong>${attribute.label}</strong></a><br><code>${attribute.name}</code>${attribute.manual ? html` <span class="muted">manual</span>` : ''}</td>
<td>${attribute.groupLabel}</td>
<td>${attribute.active ? (attribute.owner ? attribute.owner.label : 'Nobody') : html`<span class="muted">Inactive</span>`}</td>
<td><form method="post" action="/settings/attributes/${encodeURIComponent(attribute.name)}">
<input type="hidden" name="csrf_token" value="${nav.csrf}">
<select name="owner" aria-label="Owner of ${attribute.label}">${ownerOptions(attribute)}</select>
<label class="check"><input type="checkbox" name="private" value="1"${attribute.private ? html` checked` : ''}> Private</label>
<button type="submit" class="secondary">Save</button>
</form></td>
</tr>`,
      )}</tbody></table></div>`
    : ''
}`,
      });
    }),
  );

  router.post(
    '/settings/attributes/:name',
    formPage(deps, async (ctx, session, form) => {
      const name = String(ctx.params.name);
      const owner = field(form, 'owner');
      if (owner === DEACTIVATE && field(form, 'confirm') !== '1') {
        await confirmDeactivation(ctx, deps, session, name, checked(form, 'private'));
        return;
      }
      if (owner === DEACTIVATE) await deactivateAttribute(deps.db, session.userId, name);
      else if (owner !== '') await changeAttributeOwner(deps.db, session.userId, name, owner, deps.now());
      await setAttributePrivate(deps.db, session.userId, name, checked(form, 'private'));
      ctx.status = 303;
      ctx.redirect(`/settings/attributes?${new URLSearchParams({ notice: 'saved', attribute: name })}`);
    }),
  );
}

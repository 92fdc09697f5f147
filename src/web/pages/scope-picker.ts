/** Scope checkboxes (the app form) and scope lists in words (consent, apps, connected apps). */
import { GROUPS } from '../../db/catalogue-groups';
import { describeScope } from '../../domain/apps-and-grants/scopes';
import { html, type Html } from '../html';

export function scopeList(scopes: readonly string[]): Html {
  return html`<ul class="scopes">${scopes.map((scope) => html`<li>${describeScope(scope)} <span class="muted">(<code>${scope}</code>)</span></li>`)}</ul>`;
}

export function scopePicker(selected: readonly string[]): Html {
  const box = (scope: string, label: string) =>
    html`<label class="check"><input type="checkbox" name="scopes" value="${scope}"${selected.includes(scope) ? html` checked` : ''}> ${label}</label>`;
  const rows = [...GROUPS.map((group) => ({ prefix: group.name, label: group.label })), { prefix: 'manual', label: 'Manually tracked (any group)' }];
  return html`<table>
<thead><tr><th>Group</th><th>Read</th><th>Write</th></tr></thead>
<tbody>${rows.map(
    (row) => html`<tr><td>${row.label}</td><td>${box(`${row.prefix}_read`, 'read')}</td><td>${box(`${row.prefix}_write`, 'write')}</td></tr>`,
  )}</tbody>
</table>`;
}

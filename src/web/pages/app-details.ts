/** What the app pages show besides the form: a notice, an app's details, a secret shown once. */
import type { OAuthClient } from '../../domain/apps-and-grants/clients';
import { html, type Html } from '../html';
import { scopeList } from './scope-picker';

export type Notice = { text: string; error: boolean };

export function noticeBlock(notice: Notice | undefined): Html | string {
  return notice ? html`<p class="${notice.error ? 'error' : 'notice'}" role="status">${notice.text}</p>` : '';
}

export function secretBlock(title: string, value: string, note: Html | string): Html {
  return html`<label>${title}</label><code class="secret" data-secret="${title}">${value}</code><p class="muted">${note}</p>`;
}

export function appDetails(app: OAuthClient): Html {
  return html`<table>
<tr><th>Client ID</th><td><code class="client-id">${app.client_id}</code></td></tr>
<tr><th>Type</th><td>${app.confidential ? 'Confidential (has a client secret)' : 'Public (no secret; PKCE required)'}</td></tr>
${app.description ? html`<tr><th>Description</th><td>${app.description}</td></tr>` : ''}
${app.website ? html`<tr><th>Website</th><td>${app.website}</td></tr>` : ''}
<tr><th>Redirect URIs</th><td>${app.redirect_uris.map((uri) => html`<code>${uri}</code><br>`)}</td></tr>
<tr><th>Scopes</th><td>${scopeList(app.allowed_scopes)}</td></tr>
</table>`;
}

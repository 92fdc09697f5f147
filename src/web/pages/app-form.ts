/**
 * The app form, shared by registering an app (apps.ts) and editing one (app-settings.ts): its
 * values as typed, the settings they stand for (one set of rules for both: the domain's
 * `checkClientSettings`) and its fields.
 */
import type { ClientSettingsInput, OAuthClient } from '../../domain/apps-and-grants/clients';
import { field, fields, type Form } from '../forms';
import { html, type Html } from '../html';
import { scopePicker } from './scope-picker';

export interface AppFormValues {
  name: string;
  description: string;
  website: string;
  redirectUris: string;
  confidential: boolean;
  scopes: string[];
}

export const EMPTY_FORM: AppFormValues = { name: '', description: '', website: '', redirectUris: '', confidential: true, scopes: [] };

/** The app form as typed (kept as typed, to show again when it is refused). */
export function readAppForm(form: Form): AppFormValues {
  return {
    name: field(form, 'name'),
    description: field(form, 'description').trim(),
    website: field(form, 'website').trim(),
    redirectUris: field(form, 'redirect_uris'),
    confidential: field(form, 'client_type') !== 'public',
    scopes: fields(form, 'scopes'),
  };
}

/** The redirect URIs of the textarea: one per line, trimmed, blank lines and repeats dropped. */
function redirectUriLines(text: string): string[] {
  return [
    ...new Set(
      text
        .split(/\r?\n/)
        .map((line) => line.trim())
        .filter(Boolean),
    ),
  ];
}

export function settingsOf(values: AppFormValues): ClientSettingsInput {
  return {
    name: values.name,
    description: values.description,
    website: values.website,
    redirectUris: redirectUriLines(values.redirectUris),
    scopes: values.scopes,
  };
}

/** The edit form's starting values: the app as stored. */
export function valuesOf(app: OAuthClient): AppFormValues {
  return {
    name: app.name,
    description: app.description,
    website: app.website,
    redirectUris: app.redirect_uris.join('\n'),
    confidential: app.confidential,
    scopes: app.allowed_scopes,
  };
}

/**
 * The fields registering and editing share. `clientType` is the radio choice when registering and
 * a fixed statement when editing; `warnings` say what a change does to an app already in use.
 */
export function appFields(values: AppFormValues, clientType: Html, warnings?: { redirectUris: string; scopes: string }): Html {
  return html`<label for="name">Name</label>
<input type="text" id="name" name="name" value="${values.name}" required maxlength="100">
<label for="description">Description</label>
<textarea id="description" name="description" maxlength="1000">${values.description}</textarea>
<label for="website">Website</label>
<input type="url" id="website" name="website" value="${values.website}" placeholder="https://…">
<label for="redirect_uris">Redirect URIs, one per line</label>
<textarea id="redirect_uris" name="redirect_uris" required placeholder="https://example.com/oauth/callback">${values.redirectUris}</textarea>
<p class="muted">HTTPS, matched exactly. Plain http is allowed only for localhost, 127.0.0.1 and [::1] (any port), for development.${warnings ? html` ${warnings.redirectUris}` : ''}</p>
${clientType}
<label>Scopes the app may ask for</label>
${scopePicker(values.scopes)}
<p class="muted">Version 1 apps asking for <code>read</code> need every read scope; <code>read+write</code> needs every scope.${warnings ? html` ${warnings.scopes}` : ''}</p>`;
}

export function clientTypeChoice(confidential: boolean): Html {
  return html`<label>Client type</label>
<label class="check"><input type="radio" name="client_type" value="confidential"${confidential ? html` checked` : ''}> Confidential: a server that can keep a client secret</label>
<label class="check"><input type="radio" name="client_type" value="public"${confidential ? '' : html` checked`}> Public: a mobile, desktop or browser app (no secret; must use PKCE)</label>`;
}

export function fixedClientType(confidential: boolean): Html {
  return html`<label>Client type</label>
<p>${confidential ? 'Confidential (has a client secret)' : 'Public (no secret; PKCE required)'}. <span class="muted">The client type cannot be changed after registration: register a new app if you need the other type.</span></p>`;
}

/** The consent page (the app and each scope in plain words, Allow / Deny) and the authorisation error page. */
import type Koa from 'koa';
import type { Deps } from '../../deps';
import type { Session } from '../../domain/identity/sessions';
import type { AuthorizationRequest } from '../../oauth/authorization-request';
import type { Interactions } from '../../oauth/interactions';
import { csrfToken, csrfTokenValid } from '../csrf';
import { html } from '../html';
import { sendPage } from '../layout';
import { currentSession, loginUrl, navFor } from '../session';
import { scopeList } from './scope-picker';

function hidden(name: string, value: string | undefined) {
  return value === undefined ? '' : html`<input type="hidden" name="${name}" value="${value}">`;
}

export function sendConsentPage(ctx: Koa.Context, request: AuthorizationRequest, session: Session, now: Date, notice?: string): void {
  const { client, redirectUri } = request;
  const back = new URL(redirectUri);
  sendPage(ctx, {
    title: `Allow ${client.name}?`,
    nav: navFor(session, now),
    // The form's answer redirects to the app: the CSP's form-action must allow its origin.
    formTargets: [back.origin],
    body: html`<div class="card narrow consent">
${notice ? html`<p class="error" role="alert">${notice}</p>` : ''}
<h1>Allow ${client.name} to use your Daybook data?</h1>
${client.description ? html`<p>${client.description}</p>` : ''}
${client.website ? html`<p class="muted">${client.website}</p>` : ''}
<p><strong>${client.name}</strong> asks to:</p>
${scopeList(request.scopes)}
<p class="muted">You are logged in as <strong>${session.username}</strong>. Whatever you choose, you will be sent back to <code>${back.origin}${back.pathname}</code>. You can revoke access at any time on your connected apps page.</p>
<form method="post" action="/oauth2/authorize">
<input type="hidden" name="csrf_token" value="${csrfToken(session.csrfSecret, now)}">
${hidden('response_type', 'code')}
${hidden('client_id', client.client_id)}
${hidden('redirect_uri', redirectUri)}
${hidden('scope', request.scopeParam)}
${hidden('state', request.state)}
${hidden('code_challenge', request.codeChallenge)}
${hidden('code_challenge_method', request.codeChallenge ? 'S256' : undefined)}
<div class="actions">
<button type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny" class="secondary">Deny</button>
</div>
</form>
</div>`,
  });
}

/** A 400 page for the person, never a redirect (unknown client, unregistered redirect URI, bad form). */
export function sendAuthorizationErrorPage(ctx: Koa.Context, message: string): void {
  sendPage(ctx, {
    title: 'Authorisation error',
    status: 400,
    body: html`<div class="card narrow"><h1>This application cannot be authorised</h1><p class="error">${message}</p><p class="muted">Tell the application's developer what went wrong. Nothing has been shared.</p></div>`,
  });
}

/** The pages and session checks the authorisation endpoint is given (src/oauth/interactions.ts). */
export function oauthInteractions(deps: Deps): Interactions {
  return {
    currentSession: (ctx) => currentSession(ctx, deps),
    loginUrl,
    csrfTokenValid: (session, token, now) => csrfTokenValid(session.csrfSecret, token, now),
    consentPage: sendConsentPage,
    errorPage: sendAuthorizationErrorPage,
  };
}

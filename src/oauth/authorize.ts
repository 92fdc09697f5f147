/**
 * The authorisation endpoint, as a short list of named steps:
 *
 * GET  /oauth2/authorize: check the request -> require a logged-in person -> show consent.
 * POST /oauth2/authorize: check the request again -> check the decision -> check the anti-forgery
 *      token (a bad one shows the consent page again: a forged post achieves no more than a link)
 *      -> allow (a code, 303 to the app) or deny (access_denied, 303 to the app).
 *
 * Parameters are read raw (before the document's validation), so that a repeated parameter is
 * answered as OAuth says (invalid_request, or the error page for client_id / redirect_uri). Every
 * redirect back to the app, success or error, carries `iss`, the metadata's issuer (RFC 9207).
 */
import type Koa from 'koa';
import type { Deps } from '../deps';
import { issueAuthorisationCode } from '../domain/apps-and-grants/grants';
import { HttpError } from '../http/errors';
import type { OperationHandler } from '../http/backends';
import { authorizationPageUrl, checkAuthorizationRequest, type AuthorizationRequest } from './authorization-request';
import type { Interactions } from './interactions';
import { issuerOf } from './metadata';
import { authorizeErrorUrl, withQuery } from './oauth-error';
import type { RawParams } from './params';
import type { Handlers, OAuthOperation, OAuthOperations } from '../http/operation';

function redirect303(ctx: Koa.Context, url: string): void {
  ctx.status = 303;
  ctx.redirect(url);
}

/** A redirect to the app's redirect_uri (an authorisation response), with `iss` added (RFC 9207 section 2). */
function backToApp(ctx: Koa.Context, url: string): void {
  redirect303(ctx, withQuery(url, { iss: issuerOf(ctx) }));
}

/** Runs the request checks; answers the error page or the error redirect itself, or returns the valid request. */
async function checkedRequest(ctx: Koa.Context, deps: Deps, ui: Interactions, raw: RawParams | undefined): Promise<AuthorizationRequest | undefined> {
  const checked = await checkAuthorizationRequest(deps.db, raw);
  if ('errorPage' in checked) return void ui.errorPage(ctx, checked.errorPage);
  if ('redirect' in checked) return void backToApp(ctx, checked.redirect);
  return checked.valid;
}

function decisionOf(form: RawParams): 'allow' | 'deny' | undefined {
  const decision = form.decision;
  return decision === 'allow' || decision === 'deny' ? decision : undefined;
}

async function allow(ctx: Koa.Context, deps: Deps, request: AuthorizationRequest, userId: number): Promise<void> {
  const code = await issueAuthorisationCode(deps.db, {
    userId,
    clientPk: request.client.id,
    redirectUri: request.redirectUri,
    scopes: request.scopes,
    codeChallenge: request.codeChallenge,
    now: deps.now(),
  });
  backToApp(ctx, withQuery(request.redirectUri, { code, state: request.state }));
}

function deny(ctx: Koa.Context, request: AuthorizationRequest): void {
  backToApp(ctx, authorizeErrorUrl(request.redirectUri, 'access_denied', 'The person refused to authorise the application.', request.state));
}

export function authorizeHandlers(deps: Deps, ui: Interactions): Pick<Handlers<OAuthOperations>, 'showAuthorizationPage' | 'submitAuthorizationConsent'> {
  return {
    /** GET: the consent page for a logged-in person. */
    async showAuthorizationPage(_c: OAuthOperation<'showAuthorizationPage'>['context'], ctx: OAuthOperation<'showAuthorizationPage'>['ctx']): Promise<void> {
      const request = await checkedRequest(ctx, deps, ui, ctx.query as RawParams);
      if (!request) return;
      const session = await ui.currentSession(ctx);
      if (!session) return redirect303(ctx, ui.loginUrl(ctx.originalUrl));
      ui.consentPage(ctx, request, session, deps.now());
    },

    /** POST: the person's decision. */
    async submitAuthorizationConsent(
      _c: OAuthOperation<'submitAuthorizationConsent'>['context'],
      ctx: OAuthOperation<'submitAuthorizationConsent'>['ctx'],
    ): Promise<void> {
      const form = (ctx.request.body ?? {}) as RawParams;
      const request = await checkedRequest(ctx, deps, ui, form);
      if (!request) return;
      const decision = decisionOf(form);
      if (!decision) return ui.errorPage(ctx, 'The consent form must say allow or deny.');
      const session = await ui.currentSession(ctx);
      if (!session) return redirect303(ctx, ui.loginUrl(authorizationPageUrl(form)));
      if (!ui.csrfTokenValid(session, form.csrf_token, deps.now())) {
        return ui.consentPage(ctx, request, session, deps.now(), 'Please confirm your choice again.');
      }
      if (decision === 'deny') return deny(ctx, request);
      await allow(ctx, deps, request, session.userId);
    },
  };
}

/**
 * The consent form without a session: an API client (Authorization header) gets 401, since only
 * the person may consent; a browser whose session ended goes to the login page and back here.
 */
export const consentWithoutSession =
  (ui: Interactions): OperationHandler =>
  (_c, ctx) => {
    if (ctx.get('Authorization')) {
      throw new HttpError(401, 'Consent is given by the person in a browser session; API credentials are not accepted here.');
    }
    redirect303(ctx, ui.loginUrl(authorizationPageUrl((ctx.request.body ?? {}) as RawParams)));
  };

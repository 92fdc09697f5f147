/**
 * What the authorisation endpoint needs from the pages for people, given to it by the app (as
 * node-oidc-provider's interactions are): who is logged in, where to log in, the anti-forgery check,
 * and the consent and error pages. The OAuth code never imports the web layer.
 */
import type Koa from 'koa';
import type { Session } from '../domain/identity/sessions';
import type { AuthorizationRequest } from './authorization-request';

export interface Interactions {
  /** The person logged in in this browser, if any. */
  currentSession(ctx: Koa.Context): Promise<Session | undefined>;
  /** The log-in page that comes back to `next` afterwards. */
  loginUrl(next: string): string;
  /** Does the form's anti-forgery token belong to this session (and is it fresh)? */
  csrfTokenValid(session: Session, token: unknown, now: Date): boolean;
  /** The consent page: the app, each scope in plain words, Allow / Deny. */
  consentPage(ctx: Koa.Context, request: AuthorizationRequest, session: Session, now: Date, notice?: string): void;
  /** A 400 page for the person, never a redirect (unknown client, unregistered redirect URI, bad form). */
  errorPage(ctx: Koa.Context, message: string): void;
}

/**
 * What the middleware leaves on `ctx.state` for the steps after it, typed once for every handler
 * and page (Koa's `DefaultState`, extended here): who is calling, the request's database handle,
 * its count, its matched operation. Pages add their own session in src/web/session.ts.
 */
import type Koa from 'koa';
import type { Operation } from 'openapi-backend';
import type { RequestDatabase } from '../db/database';
import type { Principal } from '../domain/apps-and-grants/principal';
import type { OAuthClient } from '../domain/apps-and-grants/clients';
import type { QuotaCount } from '../domain/apps-and-grants/quota';
import type { CredentialsRecheck } from '../domain/apps-and-grants/credential-recheck';
import type { HttpError } from './errors';

export interface RequestState {
  /** The request id (X-Request-Id), set first of all. */
  requestId?: string;
  /** The client's address (TRUST_PROXY decides how it is found; http/client-address.ts). */
  clientAddress?: string;
  /** PUBLIC_URL, for absolute URLs and cookies. */
  publicUrl?: string;
  /** The API operation the request matched (http/serve.ts `recordRoute`), before authentication. */
  operation?: Operation;
  /** The route template the request took, for metrics (never the raw URL). */
  route?: string;
  /** A routine request logged at debug level (metrics scrapes). */
  quietLog?: boolean;
  /** The person calling (http/auth.ts), when the credentials were valid. */
  principal?: Principal;
  /** An app authenticated as itself (HTTP Basic client credentials; http/app-credentials.ts). */
  app?: OAuthClient;
  /** Why the credentials sent were refused (answered 401 where the operation needs them). */
  authProblem?: HttpError;
  /** The request's rate-limit count, when the credentials' lookup took it. */
  quotaCount?: QuotaCount;
  /**
   * The request's database handle (src/db/database.ts): the pool, or, for an operation whose
   * credentials are checked with its first statement (http/credential-checks.ts), a handle
   * carrying that check. Handlers of API operations run the domain on it.
   */
  db?: RequestDatabase;
  /** The check `db` carries, for the rate limit to settle and enforce (http/auth.ts sets it). */
  firstStatementCheck?: FirstStatementCheck;
  /** The body was parsed (a request served again keeps it; http/rate-limit.ts). */
  bodyParsed?: boolean;
}

/**
 * What the rate limit needs of a request whose credentials are checked by its first statement: the
 * check (its count once taken), and how to read the credentials again in full when it finds their
 * rows changed (the request is then served again from the start).
 */
export interface FirstStatementCheck {
  recheck: CredentialsRecheck;
  reauthenticate(): Promise<void>;
}

declare module 'koa' {
  // Merged into Koa's own DefaultState: every context's `state` is typed so.
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface DefaultState extends RequestState {}
}

/** The principal of an operation whose security requirements passed (an internal error otherwise). */
export function principalOf(ctx: Koa.Context): Principal {
  const principal = ctx.state.principal;
  if (!principal) throw new Error('An operation that needs credentials was reached without a principal.');
  return principal;
}

/** The app of an operation that takes its client credentials, once they passed (an internal error otherwise). */
export function appOf(ctx: Koa.Context): OAuthClient {
  const app = ctx.state.app;
  if (!app) throw new Error('An operation that needs client credentials was reached without an app.');
  return app;
}

/** The request's database handle, set by authentication for every API request (an internal error otherwise). */
export function databaseOf(ctx: Koa.Context): RequestDatabase {
  const db = ctx.state.db;
  if (!db) throw new Error('An API request was served without its database handle.');
  return db;
}

/**
 * Resolves who is calling, once per request, from `Authorization: Bearer` (OAuth2 access token),
 * `Authorization: Token` (simple token) or the session cookie. The outcome is left on ctx.state
 * for the document's security handlers: a principal, or the reason the credentials were refused
 * (answered 401 only where the operation needs authentication).
 */
import type Koa from 'koa';
import type { Knex } from 'knex';
import { unauthorized, type HttpError } from './errors';
import type { Principal } from '../domain/apps-and-grants/principal';
import { authenticateAccessTokenAndCount } from '../domain/apps-and-grants/tokens';
import { quotaKey, type QuotaCount, type QuotaWindow } from '../domain/apps-and-grants/quota';
import { authenticateSimpleTokenAndCount } from '../domain/apps-and-grants/simple-tokens';
import { RecentCredentials, type RememberedCredential, type RememberedUse } from '../domain/apps-and-grants/recent-credentials';
import { CredentialsRecheck } from '../domain/apps-and-grants/credential-recheck';
import { guardedDatabase, poolDatabase, type RequestDatabase } from '../db/database';
import type { FirstStatementCheck } from './request-state';
import { apiFor } from './documents';
import { credentialCheckOf } from './credential-checks';
import { findSessionUser, findSessionUserAndCount } from '../domain/identity/sessions';
import { readSessionCookie } from './session-cookie';
import { READ_SCOPES } from '../domain/apps-and-grants/scopes';
import { hashCredential } from '../domain/identity/credentials';
import type { OAuthClient } from '../domain/apps-and-grants/clients';
import { authenticateApp } from './app-credentials';
import type { Replicas } from '../db/replicas';
import { replicaReadsOf } from './replica-reads';

const REALM = 'realm="daybook"';

const BEARER_PROBLEMS = {
  unknown: 'The access token is invalid.',
  expired: 'The access token has expired: refresh it with the refresh token.',
  revoked: 'The access token has been revoked or replaced by a refresh.',
} as const;

function invalidBearer(detail: string): HttpError {
  return unauthorized(detail, `Bearer ${REALM}, error="invalid_token", error_description="${detail.replace(/"/g, "'")}"`);
}

/** Does this Bearer credential exist as a simple token? (Only to say which scheme to use.) */
async function isSimpleToken(db: Knex, token: string): Promise<boolean> {
  return Boolean(
    await db('users')
      .where({ simple_token_hash: hashCredential(token) })
      .first('id'),
  );
}

async function isAccessToken(db: Knex, token: string): Promise<boolean> {
  return Boolean(
    await db('tokens')
      .where({ access_hash: hashCredential(token) })
      .first('id'),
  );
}

/** Does the request's operation (matched before authentication) take the app's client credentials? */
function takesAppCredentials(ctx: Koa.Context): boolean {
  return (ctx.state.operation?.security ?? []).some((requirement) => 'ClientCredentials' in requirement);
}

/** A credential is at most 512 characters of token68 characters (RFC 7235). */
const TOKEN68 = /^[A-Za-z0-9\-._~+/]{1,512}=*$/;

interface Resolved {
  principal?: Principal;
  /** An app authenticated as itself (HTTP Basic client credentials; ./app-credentials.ts). */
  app?: OAuthClient;
  problem?: HttpError;
  /** The request's rate-limit count, when it was taken with the credentials' lookup. */
  count?: QuotaCount;
  /** A remembered credential handed back unchecked, for the request's first statement to recheck and count. */
  remembered?: RememberedCredential;
}

async function resolve(
  ctx: Koa.Context,
  db: Knex,
  now: Date,
  quota: QuotaWindow | undefined,
  recent: RecentCredentials,
  use: RememberedUse,
  sessionIdleMs: number,
): Promise<Resolved> {
  const header = ctx.get('Authorization');
  if (header) {
    const match = /^(\S+)\s+(.+)$/.exec(header.trim());
    const scheme = match?.[1].toLowerCase();
    const credential = match?.[2].trim() ?? '';
    if (scheme === 'bearer') {
      if (!TOKEN68.test(credential)) return { problem: invalidBearer(BEARER_PROBLEMS.unknown) };
      const { check, count, remembered } = await authenticateAccessTokenAndCount(db, credential, now, { quota, recent, use });
      if ('principal' in check) return { principal: check.principal, count, remembered };
      if (check.problem === 'unknown' && (await isSimpleToken(db, credential))) {
        return { problem: invalidBearer('This is a simple token: send it as "Authorization: Token <token>", not Bearer.') };
      }
      return { problem: invalidBearer(BEARER_PROBLEMS[check.problem]) };
    }
    if (scheme === 'token') {
      const { principal, count, remembered } = TOKEN68.test(credential)
        ? await authenticateSimpleTokenAndCount(db, credential, now, { quota, recent, use })
        : {};
      if (principal) return { principal, count, remembered };
      if (TOKEN68.test(credential) && (await isAccessToken(db, credential))) {
        return { problem: unauthorized('This is an OAuth2 access token: send it as "Authorization: Bearer <token>", not Token.', `Token ${REALM}`) };
      }
      return { problem: unauthorized('The simple token is invalid or has been reset.', `Token ${REALM}`) };
    }
    // HTTP Basic is the app's own client credentials, for the operations that take them only; on
    // any other path it stays an unsupported scheme.
    if (scheme === 'basic' && takesAppCredentials(ctx)) return authenticateApp(db, header.trim());
    return { problem: unauthorized('Unsupported authorization scheme: use "Bearer <access token>" or "Token <simple token>".', `Bearer ${REALM}`) };
  }
  const cookie = readSessionCookie(ctx);
  if (cookie) {
    const check = { idleMs: sessionIdleMs, legacyCookie: cookie.legacy };
    const { session, count } = quota
      ? await findSessionUserAndCount(db, cookie.id, now, check, quota)
      : { session: await findSessionUser(db, cookie.id, now, check) };
    if (session) {
      return {
        count,
        principal: {
          kind: 'session',
          userId: session.userId,
          username: session.username,
          scopes: new Set(READ_SCOPES),
          rateLimitKey: quotaKey(session.userId),
          ...('profile' in session ? { timezone: session.profile.timezone, profile: session.profile } : {}),
        },
      };
    }
  }
  return {};
}

/** The 401 for a request that needed credentials and sent none. */
export function credentialsMissing(): HttpError {
  return unauthorized('Authentication credentials were not provided.', `Bearer ${REALM}`);
}

/** Which requests the rate limit counts, its window and its limit. */
export interface CountedRequests {
  counts(ctx: Koa.Context): boolean;
  windowMs: number;
  limit: number;
}

/** Does the request's operation check its credentials with its first statement (http/credential-checks.ts)? */
function checkedByFirstStatement(ctx: Koa.Context): boolean {
  const api = apiFor(ctx.path);
  return api !== undefined && credentialCheckOf(api, ctx.state.operation?.operationId) === 'first-statement';
}

/** Leaves a resolution on the context, where the security handlers, the rate limit and the handlers read it. */
function record(ctx: Koa.Context, resolved: Resolved, db: RequestDatabase): void {
  ctx.state.principal = resolved.principal;
  ctx.state.app = resolved.app;
  ctx.state.authProblem = resolved.problem;
  ctx.state.quotaCount = resolved.count;
  ctx.state.db = db;
}

/** The first-statement check of a request that has one (http/rate-limit.ts settles and enforces it). */
export function firstStatementCheckOf(ctx: Koa.Context): FirstStatementCheck | undefined {
  return ctx.state.firstStatementCheck;
}

/**
 * `sessionIdleMs`: SESSION_IDLE_MINUTES, in milliseconds (a session unused longer is refused);
 * `replicas`: the heavy person-data reads' streaming replicas (http/replica-reads.ts).
 */
export function authenticate(db: Knex, now: () => Date, sessionIdleMs: number, counted?: CountedRequests, replicas?: Replicas): Koa.Middleware {
  // The credentials seen in the last minute, each rechecked by its request's statement.
  const recent = new RecentCredentials();
  const pool = poolDatabase(db);
  return async (ctx, next) => {
    const quota = counted?.counts(ctx) ? { windowMs: counted.windowMs, nowMs: Date.now() } : undefined;
    const use = quota && checkedByFirstStatement(ctx) ? 'defer' : 'recheck';
    const resolved = await resolve(ctx, db, now(), quota, recent, use, sessionIdleMs);
    const person = replicaReadsOf(ctx, replicas, resolved.principal?.userId);
    if (resolved.remembered && quota && counted) {
      const recheck = new CredentialsRecheck(resolved.remembered, quota, counted.limit);
      record(ctx, resolved, guardedDatabase(db, recheck, person));
      ctx.state.firstStatementCheck = {
        recheck,
        // When the check finds the credential's rows changed: read the credentials again in full.
        reauthenticate: async () => {
          ctx.state.firstStatementCheck = undefined;
          record(ctx, await resolve(ctx, db, now(), quota, recent, 'ignore', sessionIdleMs), pool);
        },
      };
    } else {
      record(ctx, resolved, person ? poolDatabase(db, person) : pool);
    }
    await next();
  };
}

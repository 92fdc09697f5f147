/**
 * Browser sessions: a random id in an HttpOnly cookie, stored hashed, valid for two weeks at most
 * and ended sooner by the idle timeout (SESSION_IDLE_MINUTES: a session unused that long is
 * refused; each use extends it, docs/security.md "Session cookies"). Each session has its own
 * random csrf_secret, from which the web pages derive their anti-forgery tokens. A session
 * remembers its browser (User-Agent) and when it was last used (to the minute: the idle clock and
 * the account page's list), so the person can end the sessions they do not recognise.
 */
import type { Knex } from 'knex';
import { empty, raw, rows, sql, type Sql } from '../../db/sql';
import { hashCredential, newSecret } from './credentials';
import { COUNT_COLUMNS, countedCte, countOf, quotaKeyOf, type QuotaCount, type QuotaWindow } from '../apps-and-grants/quota';
import { PROFILE_COLUMNS, profileOf, type AccountProfile } from './users';

export const SESSION_LIFETIME_MS = 14 * 24 * 60 * 60 * 1000;
/**
 * `last_seen_at` is written at most this often per session (a page view is not worth a write
 * each); the idle timeout is counted from it, so a session may live this much past its idle limit.
 */
const LAST_SEEN_RESOLUTION_MS = 60 * 1000;

/** How a session cookie is checked: the idle timeout, and whether it came under the plain name over HTTPS. */
export interface SessionCheck {
  idleMs: number;
  /** The cookie came under the plain name over HTTPS (http/session-cookie.ts): only a session never issued as `__Host-` is accepted. */
  legacyCookie: boolean;
}

/** The conditions on `sessions s` for a live session with this cookie value at `now`. */
function liveSession(id: string, now: Date, check: SessionCheck): Sql {
  const idleSince = new Date(now.getTime() - check.idleMs);
  return sql`s.id_hash = ${hashCredential(id)} and s.expires_at > ${now} and s.last_seen_at > ${idleSince}${check.legacyCookie ? sql` and not s.host_cookie` : empty}`;
}

/**
 * A CTE `touched` that records the use of the live session (`last_seen_at`, extending its idle
 * limit) when the last one recorded is older than the resolution; in the lookup's own statement.
 * Only a live one: an idle session must stay refused, not be revived by the attempt.
 */
function touchedCte(id: string, now: Date, check: SessionCheck): Sql {
  const stale = new Date(now.getTime() - LAST_SEEN_RESOLUTION_MS);
  return sql`touched as (update sessions s set last_seen_at = ${now} where ${liveSession(id, now, check)} and s.last_seen_at <= ${stale})`;
}
const USER_AGENT_MAX_LENGTH = 200;

/** Starts a session for a person and returns the cookie value. */
export async function createSession(db: Knex, userId: number, now: Date, userAgent = '', hostCookie = false): Promise<string> {
  const id = newSecret();
  await db('sessions').insert({
    user_id: userId,
    id_hash: hashCredential(id),
    csrf_secret: newSecret(),
    created_at: now,
    last_seen_at: now,
    host_cookie: hostCookie,
    expires_at: new Date(now.getTime() + SESSION_LIFETIME_MS),
    // PostgreSQL text cannot hold U+0000; a header can.
    // eslint-disable-next-line no-control-regex -- the NUL character is what is removed
    user_agent: userAgent.replace(/\u0000/g, '').slice(0, USER_AGENT_MAX_LENGTH),
  });
  return id;
}

/** The person's profile columns over `users u`. */
const PROFILE = raw(PROFILE_COLUMNS.map((column) => `u.${column}`).join(', '));

/**
 * The person of a live session and, in the same statement, the request counted against the
 * person's rate limit (quota.ts): one round trip before the request's data.
 */
export async function findSessionUserAndCount(
  db: Knex,
  id: string,
  now: Date,
  check: SessionCheck,
  quota: QuotaWindow,
): Promise<{ session?: { userId: number; username: string; profile: AccountProfile }; count?: QuotaCount }> {
  const [row] = await rows<AccountProfile & { id: number; quota_points: number | null; quota_expire: number | null }>(
    db,
    sql`with s as (
    select u.id, ${PROFILE} from sessions s join users u on u.id = s.user_id where ${liveSession(id, now, check)} limit 1
  ), ${touchedCte(id, now, check)}, ${countedCte(raw('s'), quotaKeyOf(raw('s.id')), sql`true`, quota)}
  select s.*, ${COUNT_COLUMNS} from s left join counted on true`,
  );
  return row ? { session: { userId: row.id, username: row.username, profile: profileOf(row) }, count: countOf(row) } : {};
}

export async function findSessionUser(db: Knex, id: string, now: Date, check: SessionCheck): Promise<{ userId: number; username: string } | undefined> {
  const [row] = await rows<{ id: number; username: string }>(
    db,
    sql`with ${touchedCte(id, now, check)} select u.id, u.username from sessions s join users u on u.id = s.user_id where ${liveSession(id, now, check)} limit 1`,
  );
  return row ? { userId: row.id, username: row.username } : undefined;
}

export async function endSession(db: Knex, id: string): Promise<void> {
  await db('sessions')
    .where({ id_hash: hashCredential(id) })
    .delete();
}

/** A live session as the web pages need it. */
export interface Session {
  idHash: string;
  userId: number;
  username: string;
  csrfSecret: string;
  expiresAt: Date;
}

/**
 * The live session with this cookie value, or undefined (unknown, expired, idle too long, or a
 * `__Host-` session under the plain name). Records the use (to the minute) in the same statement.
 */
export async function findSession(db: Knex, id: string, now: Date, check: SessionCheck): Promise<Session | undefined> {
  const [row] = await rows<{ id_hash: string; csrf_secret: string; expires_at: Date; id: number; username: string }>(
    db,
    sql`with ${touchedCte(id, now, check)} select s.id_hash, s.csrf_secret, s.expires_at, u.id, u.username
  from sessions s join users u on u.id = s.user_id where ${liveSession(id, now, check)} limit 1`,
  );
  if (!row) return undefined;
  return { idHash: row.id_hash, userId: row.id, username: row.username, csrfSecret: row.csrf_secret, expiresAt: new Date(row.expires_at) };
}

/** The session's cookie is `__Host-` from now on: the plain name no longer carries it (http/session-cookie.ts). */
export async function markHostCookie(db: Knex, idHash: string): Promise<void> {
  await db('sessions').where({ id_hash: idHash }).update({ host_cookie: true });
}

/** One of a person's live sessions, as the account page lists them. */
export interface SessionSummary {
  idHash: string;
  userAgent: string;
  createdAt: Date;
  lastSeenAt: Date;
}

/** The person's live sessions (neither expired nor idle past `idleMs`), most recently used first. */
export async function listSessions(db: Knex, userId: number, now: Date, idleMs: number): Promise<SessionSummary[]> {
  const rows: Array<{ id_hash: string; user_agent: string; created_at: Date; last_seen_at: Date }> = await db('sessions')
    .where({ user_id: userId })
    .where('expires_at', '>', now)
    .where('last_seen_at', '>', new Date(now.getTime() - idleMs))
    .orderBy([
      { column: 'last_seen_at', order: 'desc' },
      { column: 'created_at', order: 'desc' },
    ])
    .select('id_hash', 'user_agent', 'created_at', 'last_seen_at');
  return rows.map((r) => ({ idHash: r.id_hash, userAgent: r.user_agent, createdAt: new Date(r.created_at), lastSeenAt: new Date(r.last_seen_at) }));
}

/** Ends one of the person's sessions, named by its stored hash (never another person's); whether it existed. */
export async function endSessionOf(db: Knex, userId: number, idHash: string): Promise<boolean> {
  return (await db('sessions').where({ user_id: userId, id_hash: idHash }).delete()) > 0;
}

/** Ends every session of the person but `keepIdHash` (log out everywhere else); how many ended. */
export async function endOtherSessions(db: Knex, userId: number, keepIdHash: string): Promise<number> {
  return db('sessions').where({ user_id: userId }).whereNot({ id_hash: keepIdHash }).delete();
}

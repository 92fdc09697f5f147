/**
 * Browser sessions: a random id in an HttpOnly cookie, stored hashed, valid for two weeks. Each
 * session has its own random csrf_secret, from which the web pages derive their anti-forgery tokens.
 * A session remembers its browser (User-Agent) and when it was last used (to the minute), so the
 * person can list their sessions and end the ones they do not recognise.
 */
import type { Knex } from 'knex';
import { raw, rows, sql } from '../../db/sql';
import { hashCredential, newSecret } from './credentials';
import { COUNT_COLUMNS, countedCte, countOf, quotaKeyOf, type QuotaCount, type QuotaWindow } from '../apps-and-grants/quota';
import { PROFILE_COLUMNS, profileOf, type AccountProfile } from './users';

export const SESSION_COOKIE = 'daybook_session';
export const SESSION_LIFETIME_MS = 14 * 24 * 60 * 60 * 1000;
/** `last_seen_at` is written at most this often per session (a page view is not worth a write each). */
const LAST_SEEN_RESOLUTION_MS = 60 * 1000;
const USER_AGENT_MAX_LENGTH = 200;

/** Starts a session for a person and returns the cookie value. */
export async function createSession(db: Knex, userId: number, now: Date, userAgent = ''): Promise<string> {
  const id = newSecret();
  await db('sessions').insert({
    user_id: userId,
    id_hash: hashCredential(id),
    csrf_secret: newSecret(),
    created_at: now,
    last_seen_at: now,
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
  quota: QuotaWindow,
): Promise<{ session?: { userId: number; username: string; profile: AccountProfile }; count?: QuotaCount }> {
  const [row] = await rows<AccountProfile & { id: number; quota_points: number | null; quota_expire: number | null }>(
    db,
    sql`with s as (
    select u.id, ${PROFILE} from sessions s join users u on u.id = s.user_id where s.id_hash = ${hashCredential(id)} and s.expires_at > ${now} limit 1
  ), ${countedCte(raw('s'), quotaKeyOf(raw('s.id')), sql`true`, quota)}
  select s.*, ${COUNT_COLUMNS} from s left join counted on true`,
  );
  return row ? { session: { userId: row.id, username: row.username, profile: profileOf(row) }, count: countOf(row) } : {};
}

export async function findSessionUser(db: Knex, id: string, now: Date): Promise<{ userId: number; username: string } | undefined> {
  const row = await db('sessions as s')
    .join('users as u', 'u.id', 's.user_id')
    .where('s.id_hash', hashCredential(id))
    .where('s.expires_at', '>', now)
    .first('u.id', 'u.username');
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

/** The live session with this cookie value, or undefined (unknown or expired). Records the use (to the minute). */
export async function findSession(db: Knex, id: string, now: Date): Promise<Session | undefined> {
  const row = await db('sessions as s')
    .join('users as u', 'u.id', 's.user_id')
    .where('s.id_hash', hashCredential(id))
    .where('s.expires_at', '>', now)
    .first('s.id_hash', 's.csrf_secret', 's.expires_at', 's.last_seen_at', 'u.id', 'u.username');
  if (!row) return undefined;
  if (now.getTime() - new Date(row.last_seen_at).getTime() >= LAST_SEEN_RESOLUTION_MS) {
    await db('sessions').where({ id_hash: row.id_hash }).update({ last_seen_at: now });
  }
  return { idHash: row.id_hash, userId: row.id, username: row.username, csrfSecret: row.csrf_secret, expiresAt: new Date(row.expires_at) };
}

/** One of a person's live sessions, as the account page lists them. */
export interface SessionSummary {
  idHash: string;
  userAgent: string;
  createdAt: Date;
  lastSeenAt: Date;
}

/** The person's live sessions, most recently used first. */
export async function listSessions(db: Knex, userId: number, now: Date): Promise<SessionSummary[]> {
  const rows: Array<{ id_hash: string; user_agent: string; created_at: Date; last_seen_at: Date }> = await db('sessions')
    .where({ user_id: userId })
    .where('expires_at', '>', now)
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

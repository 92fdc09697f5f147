/**
 * Browser sessions: a random id in an HttpOnly cookie, stored hashed, valid for two weeks. Each
 * session has its own random csrf_secret, from which the web pages derive their anti-forgery tokens.
 */
import type { Knex } from 'knex';
import { hashCredential, newSecret } from './credentials';

export const SESSION_COOKIE = 'daybook_session';
export const SESSION_LIFETIME_MS = 14 * 24 * 60 * 60 * 1000;

/** Starts a session for a person and returns the cookie value. */
export async function createSession(db: Knex, userId: number, now: Date): Promise<string> {
  const id = newSecret();
  await db('sessions').insert({
    user_id: userId,
    id_hash: hashCredential(id),
    csrf_secret: newSecret(),
    created_at: now,
    last_seen_at: now,
    expires_at: new Date(now.getTime() + SESSION_LIFETIME_MS),
  });
  return id;
}

/** The user of a live session, or undefined. */
export async function findSessionUser(db: Knex, id: string, now: Date): Promise<{ userId: number; username: string } | undefined> {
  const row = await db('sessions as s')
    .join('users as u', 'u.id', 's.user_id')
    .where('s.id_hash', hashCredential(id))
    .where('s.expires_at', '>', now)
    .first('u.id', 'u.username');
  return row ? { userId: row.id, username: row.username } : undefined;
}

export async function endSession(db: Knex, id: string): Promise<void> {
  await db('sessions').where({ id_hash: hashCredential(id) }).delete();
}

/** A live session as the web pages need it. */
export interface Session {
  idHash: string;
  userId: number;
  username: string;
  csrfSecret: string;
  expiresAt: Date;
}

/** The live session with this cookie value, or undefined (unknown or expired). */
export async function findSession(db: Knex, id: string, now: Date): Promise<Session | undefined> {
  const row = await db('sessions as s')
    .join('users as u', 'u.id', 's.user_id')
    .where('s.id_hash', hashCredential(id))
    .where('s.expires_at', '>', now)
    .first('s.id_hash', 's.csrf_secret', 's.expires_at', 'u.id', 'u.username');
  if (!row) return undefined;
  return { idHash: row.id_hash, userId: row.id, username: row.username, csrfSecret: row.csrf_secret, expiresAt: new Date(row.expires_at) };
}

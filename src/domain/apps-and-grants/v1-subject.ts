/**
 * Whose data a version 1 path names (docs/decisions.md, "Visibility"). `:username` is the keyword
 * `$self` or a user name; the caller's own user name, in any letter case, is the same as `$self`.
 * Any other name is "another user": version 1 shows another user's public profile (and a stub of
 * their today) unless they are private, and never their attributes, values or derived data.
 */
import type { Knex } from 'knex';
import type { Principal } from './principal';
import { findUserById, findUserByUsername, type User } from '../identity/users';

export const SELF = '$self';

/** True when `username` names the caller: `$self`, or the caller's user name in any letter case. */
export function namesSelf(principal: Pick<Principal, 'username'>, username: string): boolean {
  return username === SELF || username.toLowerCase() === principal.username.toLowerCase();
}

/**
 * The person a path names, as far as the caller may see them: `self` (the caller's own account),
 * `other` (another user whose profile is public) or `hidden` (no such user, or a private one: the
 * two are never told apart).
 */
export type V1Subject = { kind: 'self'; user: User } | { kind: 'other'; user: User } | { kind: 'hidden' };

export async function resolveV1Subject(db: Knex, principal: Principal, username: string): Promise<V1Subject> {
  if (namesSelf(principal, username)) {
    const user = await findUserById(db, principal.userId);
    return user ? { kind: 'self', user } : { kind: 'hidden' };
  }
  const found = await findUserByUsername(db, username);
  if (!found || found.private) return { kind: 'hidden' };
  const { password_hash: _hash, ...user } = found;
  return { kind: 'other', user };
}

/**
 * Sign-up throttling: one client address may make SIGN_UPS_PER_HOUR sign-up attempts an hour
 * (each costs a scrypt hash of tens of milliseconds, so an unthrottled form is a cheap way to
 * keep the service's CPU busy, and to fill the users table). Attempts are rows of
 * `throttle_events`, counted by the service's clock; an attempt is counted whether or not it
 * made an account, since the hash is paid either way.
 */
import type { Knex } from 'knex';

export const SIGN_UP_WINDOW_SECONDS = 60 * 60;
const SIGN_UP = 'sign_up';

/**
 * Counts a sign-up attempt from `address`, or refuses it: the seconds to wait when the address
 * has made `perHour` attempts in the last hour already, else 0 (and the attempt is counted).
 */
export async function admitSignUp(db: Knex, input: { address: string; perHour: number; now: Date }): Promise<number> {
  const { address, perHour, now } = input;
  const oldestCounted: { at: Date } | undefined = await db('throttle_events')
    .where({ kind: SIGN_UP, address })
    .where('at', '>', new Date(now.getTime() - SIGN_UP_WINDOW_SECONDS * 1000))
    .orderBy('at', 'desc')
    .offset(perHour - 1)
    .first('at');
  if (oldestCounted) {
    return Math.max(1, Math.ceil((new Date(oldestCounted.at).getTime() + SIGN_UP_WINDOW_SECONDS * 1000 - now.getTime()) / 1000));
  }
  await db('throttle_events').insert({ kind: SIGN_UP, address, at: now });
  return 0;
}

/**
 * Sign-up throttling: one client address may make SIGN_UPS_PER_HOUR sign-up attempts an hour
 * (each costs a scrypt hash of tens of milliseconds, so an unthrottled form is a cheap way to
 * keep the service's CPU busy, and to fill the users table). Attempts are rows of
 * `throttle_events`, counted by the service's clock; an attempt is counted whether or not it
 * made an account, since the hash is paid either way.
 *
 * Exact under bursts: the count, the decision and the attempt's row are one transaction under the
 * address's lock (throttle-locks.ts), so 30 parallel sign-ups admit exactly the limit.
 */
import type { Knex } from 'knex';
import { accountKey } from './device-cookie';
import { rememberKnownAddress } from './known-addresses';
import { lockSignUpAddress } from './throttle-locks';

export const SIGN_UP_WINDOW_SECONDS = 60 * 60;
const SIGN_UP = 'sign_up';

/**
 * Counts a sign-up attempt from `address`, or refuses it: the seconds to wait when the address
 * has made `perHour` attempts in the last hour already, else 0 (and the attempt is counted).
 */
export async function admitSignUp(db: Knex, input: { address: string; perHour: number; now: Date }): Promise<number> {
  const { address, perHour, now } = input;
  return db.transaction(async (trx) => {
    await lockSignUpAddress(trx, address);
    const oldestCounted: { at: Date } | undefined = await trx('throttle_events')
      .where({ kind: SIGN_UP, address })
      .where('at', '>', new Date(now.getTime() - SIGN_UP_WINDOW_SECONDS * 1000))
      .orderBy('at', 'desc')
      .offset(perHour - 1)
      .first('at');
    if (oldestCounted) {
      return Math.max(1, Math.ceil((new Date(oldestCounted.at).getTime() + SIGN_UP_WINDOW_SECONDS * 1000 - now.getTime()) / 1000));
    }
    await trx('throttle_events').insert({ kind: SIGN_UP, address, at: now });
    return 0;
  });
}

/** After a sign-up made the account: its password was proved from `address`, now a known address of it. */
export async function signedUpFrom(db: Knex, input: { username: string; address: string; now: Date }): Promise<void> {
  await rememberKnownAddress(db, { account: accountKey(input.username), address: input.address, now: input.now });
}

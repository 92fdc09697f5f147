/**
 * Sign-in throttling (docs/decisions.md, "Credentials and scopes"; docs/security.md, "Throttles and
 * lock-out"), shared by the login form, the simple-token endpoint and account deletion. Failures
 * are rows of `throttle_events`, counted over a 15-minute window by the service's own clock (so
 * every instance sees one count, and tests move the clock instead of waiting). The rules, for a
 * browser or client that is not a trusted device:
 *
 * - one account from one address: the 6th failure in 15 minutes, and every attempt after it in
 *   the window (a correct password too), is refused. Stops one address guessing one password.
 * - one address across accounts: a higher limit, for password spraying.
 * - one account across many addresses at once (its failures of the last hour come from three or
 *   more addresses and number more than five): a growing delay after each failure (2, 4, 8 …
 *   seconds, at most 5 minutes), never a hard lock. An hour rather than 15 minutes, so that a
 *   botnet cannot wait for the count to fall and start again with free guesses. It does not hold
 *   back a known address (known-addresses.ts: a network the account proved its password from),
 *   so failures from elsewhere cannot keep the owner's script or a new browser at home out.
 *
 * Nobody can lock another person out: failures from one address hold back only that address, and
 * a trusted device (a browser holding a device cookie from an earlier successful sign-in to the
 * account, or a live session of it) passes all three, limited only by its own failures. A success
 * does not wipe the counts, so knowing one good password does not reset them for another.
 *
 * Exact under bursts: an attempt takes the locks of its account and address (throttle-locks.ts),
 * then counts, decides and records itself as a failure, in one transaction, before its password is
 * checked; the record is forgotten when the password was right. So parallel guesses see each other:
 * 40 at once from one address check exactly 5 passwords.
 */
import type { Knex } from 'knex';
import { accountKey } from './device-cookie';
import { isKnownAddress, rememberKnownAddress } from './known-addresses';
import { lockSignInKeys } from './throttle-locks';
import { authenticateUser, type User } from './users';

export const LOGIN_WINDOW_SECONDS = 15 * 60;
/** The account-wide delay counts the failures of this long. */
export const ACCOUNT_WINDOW_SECONDS = 60 * 60;
/** Failures one account may have from one address (and one trusted device may make) in the window. */
export const LOGIN_FAILURES_ALLOWED = 5;
/** Failures one address may make across all accounts in the window. */
export const ADDRESS_FAILURES_ALLOWED = 20;
/** The account-wide delay starts once its failures in the window come from this many addresses… */
export const ACCOUNT_SPREAD_ADDRESSES = 3;
/** …and number more than this. */
export const ACCOUNT_FAILURES_BEFORE_DELAY = 5;
/** The account-wide delay grows no longer than this. */
export const ACCOUNT_DELAY_MAX_SECONDS = 5 * 60;

const FAILURE = 'sign_in_failure';

export interface SignInAttempt {
  username: string;
  password: string;
  /** The client's address (src/http/client-address.ts). */
  address: string;
  /** A trusted device's key (a verified device cookie, or the session), when there is one. */
  trustedDevice?: string;
  now: Date;
}

function windowStart(now: Date): Date {
  return new Date(now.getTime() - LOGIN_WINDOW_SECONDS * 1000);
}

/** Seconds until `at` (a moment in the future), at least 1. */
function secondsUntil(at: number, now: Date): number {
  return Math.max(1, Math.ceil((at - now.getTime()) / 1000));
}

/**
 * Seconds until fewer than `allowed` failures matching `where` remain in the window (0 when there
 * are fewer already): the `allowed`-th most recent one leaves the window then.
 */
async function waitForCount(db: Knex, where: Record<string, string>, allowed: number, now: Date): Promise<number> {
  const row: { at: Date } | undefined = await db('throttle_events')
    .where({ kind: FAILURE, ...where })
    .where('at', '>', windowStart(now))
    .orderBy('at', 'desc')
    .offset(allowed - 1)
    .first('at');
  return row ? secondsUntil(new Date(row.at).getTime() + LOGIN_WINDOW_SECONDS * 1000, now) : 0;
}

/** The growing delay of an account whose failures come from many addresses: seconds left, or 0. */
async function accountDelay(db: Knex, account: string, now: Date): Promise<number> {
  const row = await db('throttle_events')
    .where({ kind: FAILURE, account_key: account })
    .where('at', '>', new Date(now.getTime() - ACCOUNT_WINDOW_SECONDS * 1000))
    .first(db.raw('count(*)::int as failures'), db.raw('count(distinct address)::int as addresses'), db.raw('max(at) as latest'));
  const { failures, addresses, latest } = row as { failures: number; addresses: number; latest: Date | null };
  if (!latest || addresses < ACCOUNT_SPREAD_ADDRESSES || failures <= ACCOUNT_FAILURES_BEFORE_DELAY) return 0;
  const delaySeconds = Math.min(2 ** (failures - ACCOUNT_FAILURES_BEFORE_DELAY), ACCOUNT_DELAY_MAX_SECONDS);
  const until = new Date(latest).getTime() + delaySeconds * 1000;
  return until > now.getTime() ? secondsUntil(until, now) : 0;
}

/** Seconds the account-wide delay holds this attempt back (0 from a known address of the account). */
async function accountWideWait(db: Knex, account: string, address: string, now: Date): Promise<number> {
  const failuresSince = new Date(now.getTime() - ACCOUNT_WINDOW_SECONDS * 1000);
  const known = await isKnownAddress(db, { account, address, now, failuresSince, ownFailuresAllowed: LOGIN_FAILURES_ALLOWED });
  return known ? 0 : accountDelay(db, account, now);
}

/** Seconds the attempt must wait, or 0 when it may be made now. Exact only under the attempt's locks (attemptSignIn). */
async function signInWait(db: Knex, attempt: Omit<SignInAttempt, 'password'>): Promise<number> {
  const { address, trustedDevice, now } = attempt;
  if (trustedDevice !== undefined) {
    const deviceWait = await waitForCount(db, { device_key: trustedDevice }, LOGIN_FAILURES_ALLOWED, now);
    // A device that has used up its own failures is trusted no more (for now): the rules for everyone apply.
    if (deviceWait === 0) return 0;
  }
  const account = accountKey(attempt.username);
  const pair = await waitForCount(db, { account_key: account, address }, LOGIN_FAILURES_ALLOWED, now);
  const spraying = await waitForCount(db, { address }, ADDRESS_FAILURES_ALLOWED, now);
  return Math.max(pair, spraying, await accountWideWait(db, account, address, now));
}

/**
 * Decides an attempt and, when it may be made, records it as a failure, in one transaction under
 * the locks of its account and address: the failure's id, or the seconds to wait.
 */
async function reserveAttempt(db: Knex, attempt: Omit<SignInAttempt, 'password'>): Promise<{ id: number } | { throttled: number }> {
  const account = accountKey(attempt.username);
  return db.transaction(async (trx) => {
    await lockSignInKeys(trx, account, attempt.address);
    const wait = await signInWait(trx, attempt);
    if (wait > 0) return { throttled: wait };
    const [{ id }] = await trx('throttle_events')
      .insert({ kind: FAILURE, account_key: account, address: attempt.address, device_key: attempt.trustedDevice ?? null, at: attempt.now })
      .returning('id');
    return { id: Number(id) };
  });
}

export type SignInResult = { user: User } | { throttled: number } | { wrongCredentials: true };

/**
 * One sign-in attempt, as the login form, the simple-token endpoint and account deletion make it:
 * refused while throttled (even with the right password), otherwise checked, a failure counted.
 */
export async function attemptSignIn(db: Knex, attempt: SignInAttempt): Promise<SignInResult> {
  const reserved = await reserveAttempt(db, attempt);
  if ('throttled' in reserved) return reserved;
  const user = await authenticateUser(db, attempt.username, attempt.password);
  if (!user) return { wrongCredentials: true };
  await db('throttle_events').where({ id: reserved.id }).delete();
  await rememberKnownAddress(db, { account: accountKey(attempt.username), address: attempt.address, now: attempt.now });
  return { user };
}

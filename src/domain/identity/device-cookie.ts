/**
 * Device cookies (OWASP, "Slow Down Online Guessing Attacks with Device Cookies"): a browser that
 * signed in to an account successfully gets a token signed with the server secret and bound to
 * that account. Presenting it on a later sign-in to the same account marks the attempt as coming
 * from a trusted device, which the account-wide throttle lets through: whoever floods an account
 * with wrong passwords from many addresses cannot lock its owner out of their own browser.
 *
 * A token is `<nonce>.<HMAC(secret, "device:" + account key + ":" + nonce)>`: it names no account
 * (the account is the one being signed in to), and cannot be made for another account without the
 * secret. Failures made with a token are counted against it, so a stolen one guesses no faster than
 * anyone else.
 */
import crypto from 'node:crypto';
import { newSecret } from './credentials';

export const DEVICE_COOKIE = 'daybook_device';
/** How long a browser stays trusted after a successful sign-in (renewed by each one). */
export const DEVICE_COOKIE_LIFETIME_SECONDS = 180 * 24 * 60 * 60;

/** The throttles' name for an account: a hash of the user name as typed, normalised (never the name itself). */
export function accountKey(username: string): string {
  return crypto.createHash('sha256').update(username.trim().toLowerCase()).digest('hex').slice(0, 40);
}

function signature(secretKey: string, account: string, nonce: string): string {
  return crypto.createHmac('sha256', secretKey).update(`device:${account}:${nonce}`).digest('base64url');
}

/** A new device token for the account signed in to. */
export function issueDeviceToken(secretKey: string, username: string): string {
  const nonce = newSecret(16);
  return `${nonce}.${signature(secretKey, accountKey(username), nonce)}`;
}

/**
 * The key the throttle counts a device's failures under, when `token` is a valid device token for
 * this account; otherwise undefined (absent, malformed, or made for another account).
 */
export function trustedDeviceKey(secretKey: string, username: string, token: string | undefined): string | undefined {
  const match = token ? /^([A-Za-z0-9_-]{16,64})\.([A-Za-z0-9_-]{43})$/.exec(token) : null;
  if (!match) return undefined;
  const expected = Buffer.from(signature(secretKey, accountKey(username), match[1]));
  const actual = Buffer.from(match[2]);
  if (expected.length !== actual.length || !crypto.timingSafeEqual(expected, actual)) return undefined;
  return `device:${crypto.createHash('sha256').update(match[1]).digest('hex').slice(0, 40)}`;
}

/**
 * Credentials at rest and on the wire. Every credential has at least 128 unpredictable bits;
 * tokens, codes and client secrets are stored only as SHA-256 hashes (they are random, so a fast
 * hash is enough), passwords with scrypt.
 */
import crypto from 'node:crypto';
import { promisify } from 'node:util';

const scrypt = promisify(crypto.scrypt) as (password: string, salt: Buffer, keylen: number, options: crypto.ScryptOptions) => Promise<Buffer>;

/** scrypt cost parameters: N=2^15, r=8, p=1 (about 32 MiB and tens of milliseconds per hash). */
const SCRYPT = { N: 32768, r: 8, p: 1, keylen: 64, maxmem: 64 * 1024 * 1024 };

/** A new random credential: 32 bytes (256 bits), base64url. */
export function newSecret(bytes = 32): string {
  return crypto.randomBytes(bytes).toString('base64url');
}

/**
 * The stored form of a random credential (token, code, client secret): its SHA-256, in hex. Node's
 * one-shot `crypto.hash` (the same digest) makes no Hash object: every authenticated request
 * hashes its credential, 0.6 us against `createHash`'s 1.9 (docs/request-path.md, "Issue 35, third stop").
 */
export function hashCredential(value: string): string {
  return crypto.hash('sha256', value, 'hex');
}

/** Constant-time comparison of a presented credential with a stored hash. */
export function credentialMatches(value: string, storedHash: string): boolean {
  const presented = Buffer.from(hashCredential(value), 'hex');
  const stored = Buffer.from(storedHash, 'hex');
  return presented.length === stored.length && crypto.timingSafeEqual(presented, stored);
}

/** Hashes a password as `scrypt$N$r$p$salt$hash`. */
export async function hashPassword(password: string): Promise<string> {
  const salt = crypto.randomBytes(16);
  const hash = await scrypt(password.normalize('NFC'), salt, SCRYPT.keylen, SCRYPT);
  return ['scrypt', SCRYPT.N, SCRYPT.r, SCRYPT.p, salt.toString('base64url'), hash.toString('base64url')].join('$');
}

/** Checks a password against its stored hash in constant time. */
export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  const parts = (stored ?? '').split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') {
    // Spend the same time whether or not the account exists, so timing does not reveal it.
    await scrypt(password, Buffer.alloc(16), SCRYPT.keylen, SCRYPT);
    return false;
  }
  const [, N, r, p, salt, hash] = parts;
  const expected = Buffer.from(hash, 'base64url');
  const actual = await scrypt(password.normalize('NFC'), Buffer.from(salt, 'base64url'), expected.length, {
    N: Number(N),
    r: Number(r),
    p: Number(p),
    maxmem: SCRYPT.maxmem,
  });
  return crypto.timingSafeEqual(actual, expected);
}

/**
 * A person's simple token: an HMAC of their id and token version under the server secret, so the
 * same token is returned every time it is asked for, and a reset (version + 1) replaces it.
 */
export function simpleTokenFor(userId: number, version: number, secretKey: string): string {
  return crypto.createHmac('sha256', secretKey).update(`simple-token:${userId}:${version}`).digest('base64url');
}

/**
 * The refresh leeway (docs/security.md, "Token endpoint limits and the refresh leeway"): a
 * refresh retried by the same client within REFRESH_LEEWAY_MS of its first exchange (two tabs
 * refreshing at once, a retry after a lost response) is answered the pair the first exchange
 * issued, the very same tokens, so whichever answer the client stores last works and nothing is
 * revoked. Outside the leeway a replaced refresh token is a replay and revokes the grant (RFC 9700
 * section 4.14.2).
 *
 * Tokens are stored only as hashes, so the new pair cannot be read back from its row. Instead the
 * replaced row keeps the new pair sealed (AES-256-GCM) under a key derived from the replaced
 * refresh token itself (HMAC-SHA-256 keyed by the token): only whoever presents that token can
 * open it; the database alone (which holds the token's SHA-256 hash, not the token) cannot.
 */
import crypto from 'node:crypto';

/**
 * 30 s: parallel refreshes arrive milliseconds apart, and a retry after a lost answer comes after
 * the client's own timeout (10 s in OkHttp, commonly 10-30 s elsewhere). Longer would only widen
 * the window in which a thief presenting a stolen old token is answered instead of detected.
 */
export const REFRESH_LEEWAY_MS = 30_000;

/** The tokens of a pair, as the client was answered them. */
export interface SealedPair {
  access_token: string;
  refresh_token: string;
}

const KEY_LABEL = 'daybook refresh successor v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

function keyOf(refreshToken: string): Buffer {
  return crypto.createHmac('sha256', refreshToken).update(KEY_LABEL).digest();
}

/** Seals the pair that replaced `refreshToken`'s pair: iv, tag, ciphertext. */
export function sealSuccessor(refreshToken: string, pair: SealedPair): Buffer {
  const iv = crypto.randomBytes(IV_BYTES);
  const cipher = crypto.createCipheriv('aes-256-gcm', keyOf(refreshToken), iv);
  const body = Buffer.concat([cipher.update(JSON.stringify([pair.access_token, pair.refresh_token]), 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]);
}

/** Opens a sealed successor with the refresh token it was sealed under; undefined when it does not open. */
export function openSuccessor(refreshToken: string, sealed: Buffer): SealedPair | undefined {
  try {
    const decipher = crypto.createDecipheriv('aes-256-gcm', keyOf(refreshToken), sealed.subarray(0, IV_BYTES));
    decipher.setAuthTag(sealed.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    const text = Buffer.concat([decipher.update(sealed.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
    const [access, refresh] = JSON.parse(text) as [string, string];
    return { access_token: access, refresh_token: refresh };
  } catch {
    return undefined;
  }
}

/** Was the pair replaced at `replacedAt` replaced within the leeway of `now`? */
export function withinLeeway(replacedAt: Date | string, now: Date): boolean {
  return now.getTime() - new Date(replacedAt).getTime() <= REFRESH_LEEWAY_MS;
}

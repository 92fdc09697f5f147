/**
 * PKCE (RFC 7636) for the authorisation code flow: a random verifier the app keeps, and its S256
 * challenge sent with the authorisation request. Public clients must use it; it protects
 * confidential clients' codes too.
 */
import { createHash, randomBytes } from 'node:crypto';

export interface Pkce {
  /** Keep it (e.g. in the person's session) and send it with the code exchange. */
  codeVerifier: string;
  /** Send it with the authorisation request (`authorizeUrl({codeChallenge})`). */
  codeChallenge: string;
  codeChallengeMethod: 'S256';
}

/** The S256 challenge of a verifier: base64url(SHA-256(verifier)). */
export function codeChallengeOf(codeVerifier: string): string {
  return createHash('sha256').update(codeVerifier).digest('base64url');
}

/** A fresh verifier (43 characters of base64url from 32 random bytes) and its challenge. */
export function createPkce(): Pkce {
  const codeVerifier = randomBytes(32).toString('base64url');
  return { codeVerifier, codeChallenge: codeChallengeOf(codeVerifier), codeChallengeMethod: 'S256' };
}

/** A random `state` for the authorisation request (check it on the redirect: it defeats CSRF). */
export function createState(): string {
  return randomBytes(16).toString('base64url');
}

/**
 * PKCE (RFC 7636) with S256 only: `plain` gives no protection against a stolen code, so it is
 * refused (RFC 9700 section 2.1.1). Required for public clients, optional for confidential ones.
 */
import crypto from 'node:crypto';

/** A challenge is BASE64URL(SHA256(verifier)) without padding: exactly 43 characters. */
const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
/** A verifier is 43 to 128 unreserved characters (RFC 7636 section 4.1). */
const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;

/** What is wrong with the PKCE parameters of an authorisation request, or undefined. */
export function challengeProblem(input: { challenge?: string; method?: string; publicClient: boolean }): string | undefined {
  const { challenge, method, publicClient } = input;
  if (challenge === undefined) {
    if (method !== undefined) return 'code_challenge_method was sent without a code_challenge.';
    if (publicClient) return 'A public client must use PKCE: send code_challenge and code_challenge_method=S256.';
    return undefined;
  }
  if (method === undefined) return 'code_challenge_method is required with a code_challenge: send S256.';
  if (method !== 'S256') return `code_challenge_method ${method} is not supported: only S256 is accepted (plain is refused).`;
  if (!CHALLENGE.test(challenge)) return 'code_challenge must be BASE64URL(SHA256(code_verifier)) without padding: 43 characters.';
  return undefined;
}

export function isWellFormedVerifier(verifier: string): boolean {
  return VERIFIER.test(verifier);
}

/** The S256 challenge of a verifier. */
export function s256(verifier: string): string {
  return crypto.createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

/** Does the verifier match the stored challenge (constant time)? */
export function verifierMatches(verifier: string, challenge: string): boolean {
  const actual = Buffer.from(s256(verifier));
  const expected = Buffer.from(challenge);
  return actual.length === expected.length && crypto.timingSafeEqual(actual, expected);
}

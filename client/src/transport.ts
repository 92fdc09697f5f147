/**
 * What the typed clients share: the credentials middleware, form bodies, idempotency keys, the
 * retrying fetch, and a path serializer that leaves version 1's `$self` as the v1 document writes
 * it ("Users and `$self`").
 */
import { randomUUID } from 'node:crypto';
import type { Middleware } from 'openapi-fetch';
import { IDEMPOTENCY_KEY, retryingFetch, type RetryOptions } from './retry';

/** How a client authenticates: an OAuth2 access token (Bearer) or a simple token (Token, read-only). */
export type Authorization = { bearer: string } | { simpleToken: string };

export function authorizationHeader(auth: Authorization): string {
  return 'bearer' in auth ? `Bearer ${auth.bearer}` : `Token ${auth.simpleToken}`;
}

/** Sets `Authorization` from `current()` on every request, so a refreshed token is used at once. */
export function credentialsMiddleware(current: () => Authorization | undefined): Middleware {
  return {
    onRequest({ request }) {
      const auth = current();
      if (auth) request.headers.set('Authorization', authorizationHeader(auth));
      return request;
    },
  };
}

/** Serialises a flat object as an `application/x-www-form-urlencoded` body (undefined fields left out). */
export function formBody(body: unknown): string {
  const form = new URLSearchParams();
  for (const [key, value] of Object.entries(body as Record<string, unknown>)) {
    if (value !== undefined && value !== null) form.append(key, String(value));
  }
  return form.toString();
}

export const FORM_HEADERS = { 'Content-Type': 'application/x-www-form-urlencoded' } as const;

/**
 * Fills `{name}` path parameters, percent-encoding them except `$`, a legal path character that
 * version 1 uses in its `$self` keyword (sent as written, as existing clients do).
 */
export function pathWithParams(pathname: string, params?: Record<string, unknown>): string {
  return pathname.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(String(params?.[name] ?? '')).replace(/%24/g, '$'));
}

/** The base URL without a trailing slash (the documents' paths start with one). */
export function trimBaseUrl(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, '');
}

/** Options every client takes besides its credentials. */
export interface TransportOptions {
  /** The service root, e.g. `https://daybook.example.org`. */
  baseUrl: string;
  /** The fetch to send requests with (default: the global fetch). */
  fetch?: typeof globalThis.fetch;
  /** How 429, 503 and network errors are retried (client/README.md, "Retries"); `false` never retries. */
  retry?: RetryOptions | false;
}

/** The fetch a client hands openapi-fetch: the caller's (or the global) fetch, retrying as asked. */
export function transportFetch(options: TransportOptions): (request: Request) => Promise<Response> {
  const send: typeof globalThis.fetch = (input, init) => (options.fetch ?? globalThis.fetch)(input, init);
  return retryingFetch(send, options.retry === false ? { maxAttempts: 1 } : options.retry);
}

/** Options of a call that changes data. */
export interface WriteOptions {
  /**
   * The call's `Idempotency-Key` (any string up to 255 characters). By default a random UUID,
   * new for each call and the same on each of its retries; pass your own to make a call you
   * repeat yourself (after a crash, say) count once.
   */
  idempotencyKey?: string;
}

/** The `Idempotency-Key` header of one logical call. */
export function idempotencyHeaders(options: WriteOptions = {}): Record<string, string> {
  return { [IDEMPOTENCY_KEY]: options.idempotencyKey ?? randomUUID() };
}

/** `Authorization: Basic` of an app's client credentials (webhook management, the token endpoint). */
export function basicAuthorization(clientId: string, clientSecret: string): string {
  return `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`).toString('base64')}`;
}

/**
 * What the typed clients share: the credentials middleware, form bodies, and a path serializer
 * that leaves version 1's `$self` as the v1 document writes it ("Users and `$self`").
 */
import type { Middleware } from 'openapi-fetch';

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

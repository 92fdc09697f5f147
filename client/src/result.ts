/**
 * What every call of the typed client answers: a value, never a thrown HTTP error. A success
 * carries the typed body; a failure carries the typed error body of that operation (the API's
 * `{detail}`, the token endpoint's RFC 6749 `{error, error_description}`, or a batch's
 * `{success, failed}` is a success). Both carry the status and the rate-limit headers, so a
 * caller can pace itself and wait `retryAfter` seconds after a 429.
 */

/** The rate-limit headers of a response (absent ones are undefined). */
export interface RateLimit {
  /** `X-RateLimit-Limit`: requests allowed per hour for this token. */
  limit?: number;
  /** `X-RateLimit-Remaining`: requests left in the current hour. */
  remaining?: number;
  /** `X-RateLimit-Reset`: seconds until the window starts again. */
  reset?: number;
  /** `Retry-After`: seconds to wait (sent with 429 and 503). */
  retryAfter?: number;
}

export interface ApiSuccess<T> {
  ok: true;
  status: number;
  data: T;
  rateLimit: RateLimit;
  /** The `X-Request-Id` to quote when reporting a problem. */
  requestId?: string;
  response: Response;
}

export interface ApiFailure<E> {
  ok: false;
  status: number;
  error: E;
  rateLimit: RateLimit;
  requestId?: string;
  response: Response;
}

export type ApiResult<T, E> = ApiSuccess<T> | ApiFailure<E>;

function headerNumber(headers: Headers, name: string): number | undefined {
  const raw = headers.get(name);
  if (raw === null || raw.trim() === '') return undefined;
  const value = Number(raw);
  return Number.isFinite(value) ? value : undefined;
}

/** Reads the rate-limit headers of a response. */
export function rateLimitOf(response: Response): RateLimit {
  return {
    limit: headerNumber(response.headers, 'X-RateLimit-Limit'),
    remaining: headerNumber(response.headers, 'X-RateLimit-Remaining'),
    reset: headerNumber(response.headers, 'X-RateLimit-Reset'),
    retryAfter: headerNumber(response.headers, 'Retry-After'),
  };
}

/** What openapi-fetch answers for one call. */
export interface FetchOutcome<T, E> {
  data?: T;
  error?: E;
  response: Response;
}

/**
 * Reads a response sent without openapi-fetch (an operation the generated types do not have yet)
 * as openapi-fetch would: the JSON body as data or error, an empty body as undefined.
 */
export async function readOutcome<T, E>(response: Response): Promise<FetchOutcome<T, E>> {
  const text = await response.text();
  const json: unknown = (response.headers.get('Content-Type') ?? '').includes('json') && text !== '' ? JSON.parse(text) : undefined;
  return response.ok ? { data: json as T, response } : { error: (json ?? text) as E, response };
}

/**
 * Turns openapi-fetch's outcome into an ApiResult. A failure whose body is not the documented
 * JSON (a proxy's HTML page, an empty body) is given the error shape by `fallback`, so the error
 * is always of the documented type.
 */
export function toResult<T, E>(outcome: FetchOutcome<T, E>, fallback: (status: number, text: string) => E): ApiResult<T, E> {
  const { response } = outcome;
  const common = { status: response.status, rateLimit: rateLimitOf(response), requestId: response.headers.get('X-Request-Id') ?? undefined, response };
  if (response.ok) return { ok: true, data: outcome.data as T, ...common };
  const error = outcome.error;
  const documented = error !== undefined && error !== null && typeof error === 'object';
  return { ok: false, error: documented ? error : fallback(response.status, typeof error === 'string' ? error : ''), ...common };
}

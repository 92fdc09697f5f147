/**
 * Retries of the typed client (client/README.md, "Retries"): a request that met a 429, a 503 or a
 * network error is sent again after `Retry-After` (seconds or an HTTP date), or after an
 * exponential backoff with full jitter when the answer names no wait, within a budget of attempts
 * and of total waiting. Only requests that are safe to repeat are retried: GET, HEAD, OPTIONS, PUT
 * and DELETE, and a POST that carries an `Idempotency-Key` (the service answers a repeat of it with
 * the first answer instead of applying it twice). Every attempt sends the same request, so a
 * retried POST carries the same key.
 */

export interface RetryOptions {
  /** Attempts in all, the first one included (default 4); 1 turns retries off. */
  maxAttempts?: number;
  /**
   * The longest one call waits in all between its attempts, in milliseconds (default 30 000). A
   * `Retry-After` that would go past it is not waited for: the 429 or 503 is answered at once.
   */
  maxTotalWaitMs?: number;
  /** The first backoff when the answer names no wait (default 500 ms); it doubles on each retry. */
  baseDelayMs?: number;
  /** The longest single backoff (default 8000 ms). */
  maxDelayMs?: number;
}

/** The statuses worth asking again: rate limited, and temporarily unavailable. */
const RETRIED_STATUSES = new Set([429, 503]);
/** Methods that change nothing, or whose repeat changes nothing more (RFC 9110, 9.2.2). */
const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

export const IDEMPOTENCY_KEY = 'Idempotency-Key';

/** Whether sending `request` twice is safe. */
export function isRetryable(request: Request): boolean {
  return IDEMPOTENT_METHODS.has(request.method.toUpperCase()) || request.headers.has(IDEMPOTENCY_KEY);
}

/**
 * The wait a `Retry-After` value asks for, in milliseconds: a number of seconds, or an HTTP date
 * (a date already past waits 0). Undefined when absent or unreadable.
 */
export function retryAfterMs(value: string | null, now: number = Date.now()): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** The backoff before retry number `retry` (1, 2, ...): a random wait up to base * 2^(retry-1), capped. */
function backoffMs(retry: number, baseDelayMs: number, maxDelayMs: number): number {
  return Math.round(Math.random() * Math.min(maxDelayMs, baseDelayMs * 2 ** (retry - 1)));
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A caller's own abort is an answer, not a network error to retry. */
function isAbort(error: unknown): boolean {
  return error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError');
}

/** Wraps `fetchImpl` so that each request is retried as the options allow. */
export function retryingFetch(fetchImpl: typeof globalThis.fetch, options: RetryOptions = {}): (request: Request) => Promise<Response> {
  const maxAttempts = Math.max(1, options.maxAttempts ?? 4);
  const maxTotalWaitMs = Math.max(0, options.maxTotalWaitMs ?? 30_000);
  const baseDelayMs = options.baseDelayMs ?? 500;
  const maxDelayMs = options.maxDelayMs ?? 8000;

  return async function send(request: Request): Promise<Response> {
    if (maxAttempts === 1 || !isRetryable(request)) return fetchImpl(request);
    let waited = 0;
    for (let attempt = 1; ; attempt++) {
      const last = attempt >= maxAttempts;
      let response: Response;
      try {
        // A clone per attempt: a body can be read once, and the next attempt sends it again.
        response = await fetchImpl(last ? request : request.clone());
      } catch (error) {
        const wait = backoffMs(attempt, baseDelayMs, maxDelayMs);
        if (last || isAbort(error) || request.signal.aborted || waited + wait > maxTotalWaitMs) throw error;
        waited += wait;
        await sleep(wait);
        continue;
      }
      if (last || !RETRIED_STATUSES.has(response.status)) return response;
      const wait = retryAfterMs(response.headers.get('Retry-After')) ?? backoffMs(attempt, baseDelayMs, maxDelayMs);
      if (waited + wait > maxTotalWaitMs || request.signal.aborted) return response;
      await response.body?.cancel();
      waited += wait;
      await sleep(wait);
    }
  };
}

/**
 * One webhook attempt over HTTP(S), with the safety rules of docs/webhooks.md: the host's
 * addresses are checked at connection time, on the address actually connected to (a custom
 * `lookup`; literal addresses are checked before, as Node does not look them up); redirects are
 * not followed (a 3xx is a failure); at most MAX_BODY_BYTES of the answer are read; the whole
 * attempt, connection included, is cut off after `timeoutMs`. What went wrong is told to the
 * owner in a fixed vocabulary (ATTEMPT_ERRORS) and in full only to the server log (`detail`). Node's own http client is used
 * (not fetch): only it lets us check the connected address.
 */
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { addressProblem, resolveHost, urlProblem } from './url-safety';
import { ATTEMPT_ERRORS, type AttemptResult } from './attempt';

/** Bytes of an endpoint's answer read (the rest is discarded). */
export const MAX_BODY_BYTES = 4096;

export interface SendOptions {
  timeoutMs: number;
  allowPrivate: boolean;
}

/** The owner's word for a request error (ATTEMPT_ERRORS); the socket's own words go to `detail`. */
function publicError(error: NodeJS.ErrnoException): string {
  const code = error.code ?? '';
  if (code === 'EADDRREFUSED') return ATTEMPT_ERRORS.refused;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'ENODATA') return ATTEMPT_ERRORS.notFound;
  if (/^(ERR_TLS|ERR_SSL|CERT_|EPROTO$)|CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)/.test(code)) return ATTEMPT_ERRORS.tls;
  return ATTEMPT_ERRORS.connection;
}

/** A `lookup` that refuses a host with any address Daybook does not call. */
function safeLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    resolveHost(hostname).then(
      (addresses) => {
        const refused = addresses.map((a) => addressProblem(a.address, allowPrivate)).find(Boolean);
        if (refused) return callback(Object.assign(new Error(`refused: ${refused}`), { code: 'EADDRREFUSED' }), '', 0);
        const wanted = options.family === 4 || options.family === 6 ? addresses.filter((a) => a.family === options.family) : addresses;
        if (wanted.length === 0) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), '', 0);
        if (options.all) return (callback as unknown as (e: null, a: typeof wanted) => void)(null, wanted);
        callback(null, wanted[0].address, wanted[0].family);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
}

/** POSTs `body` with `headers`; never throws: the outcome is in the result. */
export function postWebhook(url: string, headers: Record<string, string>, body: string, options: SendOptions): Promise<AttemptResult> {
  const started = performance.now();
  const latency = () => performance.now() - started;
  const problem = urlProblem(url, options.allowPrivate);
  if (problem) return Promise.resolve({ status: null, error: ATTEMPT_ERRORS.refused, detail: problem, latencyMs: 0 });
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: AttemptResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    const parsed = new URL(url);
    const request = (parsed.protocol === 'https:' ? https : http).request(
      parsed,
      {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'user-agent': 'Daybook-Webhooks/1' },
        lookup: safeLookup(options.allowPrivate),
        agent: false,
      },
      (response) => {
        let read = 0;
        response.on('data', (chunk: Buffer) => {
          read += chunk.length;
          // Enough read: the status is what counts.
          if (read > MAX_BODY_BYTES) response.destroy();
        });
        const done = () => finish({ status: response.statusCode ?? null, error: null, latencyMs: latency() });
        response.on('end', done);
        response.on('close', done);
        response.on('error', done);
      },
    );
    const timer = setTimeout(() => {
      request.destroy();
      finish({ status: null, error: ATTEMPT_ERRORS.timeout, detail: `timed out after ${options.timeoutMs / 1000} s`, latencyMs: latency() });
    }, options.timeoutMs);
    request.on('error', (error: NodeJS.ErrnoException) =>
      finish({ status: null, error: publicError(error), detail: [error.code, error.message].filter(Boolean).join(': '), latencyMs: latency() }),
    );
    request.end(body);
  });
}

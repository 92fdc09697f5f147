/**
 * One webhook attempt over HTTP(S), with the safety rules of docs/webhooks.md: the host's
 * addresses are checked at connection time, on the address actually connected to (a custom
 * `lookup`; literal addresses are checked before, as Node does not look them up); redirects are
 * not followed (a 3xx is a failure); at most MAX_BODY_BYTES of the answer are read; the whole
 * attempt, connection included, is cut off after `timeoutMs`. Node's own http client is used
 * (not fetch): only it lets us check the connected address.
 */
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { addressProblem, resolveHost, urlProblem } from './url-safety';
import type { AttemptResult } from './attempt';

/** Bytes of an endpoint's answer read (the rest is discarded). */
export const MAX_BODY_BYTES = 4096;

export interface SendOptions {
  timeoutMs: number;
  allowLoopback: boolean;
}

/** A `lookup` that refuses a host with any address Daybook does not call. */
function safeLookup(allowLoopback: boolean): LookupFunction {
  return (hostname, options, callback) => {
    resolveHost(hostname).then(
      (addresses) => {
        const refused = addresses.map((a) => addressProblem(a.address, allowLoopback)).find(Boolean);
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
  const problem = urlProblem(url, options.allowLoopback);
  if (problem) return Promise.resolve({ status: null, error: `refused: ${problem}`, latencyMs: 0 });
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
        lookup: safeLookup(options.allowLoopback),
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
      finish({ status: null, error: `timed out after ${options.timeoutMs / 1000} s`, latencyMs: latency() });
    }, options.timeoutMs);
    request.on('error', (error: NodeJS.ErrnoException) =>
      finish({ status: null, error: error.message || error.code || 'connection failed', latencyMs: latency() }),
    );
    request.end(body);
  });
}

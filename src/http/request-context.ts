/**
 * The first middleware of the chain: gives each request an id, maps every error to the error body,
 * works out the client's address, and writes one structured log line per request (never
 * credentials: only method, path, status, time, client address, principal ids).
 */
import crypto from 'node:crypto';
import type Koa from 'koa';
import type { Logger } from 'pino';
import { computeClientAddress } from './client-address';
import { asHttpError, HttpError, serviceUnavailable } from './errors';
import { lineWriter } from '../logger';

/** Errors that mean "the database is not there right now", answered 503 instead of 500. */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (!error || typeof error !== 'object') return false;
  const { code, name, message } = error as { code?: string; name?: string; message?: string };
  if (name === 'KnexTimeoutError') return true;
  if (code && ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE'].includes(code)) return true;
  // 08: connection exceptions; 57P0x: the server is shutting down or starting; 53300: too many
  // connections; 57014: the statement was cancelled (DB_STATEMENT_TIMEOUT_MS: an overloaded database).
  if (code && (/^08/.test(code) || ['57P01', '57P02', '57P03', '53300', '57014'].includes(code))) return true;
  // pg's connect limit (connectionTimeoutMillis) destroys the socket with "timeout expired"; the
  // pool's wait for a free connection (DB_ACQUIRE_TIMEOUT_MS) ends with "timeout exceeded when trying to connect".
  return (
    typeof message === 'string' &&
    /Connection terminated|connection timeout|timeout expired|timeout exceeded when trying to connect|Client has encountered a connection error|not queryable/i.test(
      message,
    )
  );
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** `proxyHops`: TRUST_PROXY, for the client's address (computed here, once, for every later step). */
export function requestContext(logger: Logger, proxyHops: number): Koa.Middleware {
  // The request line holds only the fields below, none of them a credential, so it is written
  // without the logger's redaction (src/logger.ts): its paths (`*.token`, `*.password`…) matched
  // nothing here, yet the redaction copied every line to look (about 40 us a line in a
  // micro-benchmark, the line's largest cost). It is serialised by one JSON.stringify
  // (`lineWriter`), not field by field by pino. A failure's line, which carries the error, keeps
  // pino's path and the redaction.
  const write = lineWriter(logger);
  return async (ctx, next) => {
    const started = process.hrtime.bigint();
    const address = computeClientAddress(ctx, proxyHops);
    ctx.state.clientAddress = address;
    const incoming = ctx.get('X-Request-Id');
    const requestId = REQUEST_ID.test(incoming) ? incoming : crypto.randomUUID();
    ctx.state.requestId = requestId;
    ctx.set('X-Request-Id', requestId);
    let failure: unknown;
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        throw new HttpError(404, `Nothing is served at ${ctx.path}.`);
      }
    } catch (error) {
      failure = error;
      const mapped = asHttpError(error) ?? (isDatabaseUnavailable(error) ? serviceUnavailable() : undefined);
      ctx.status = mapped?.status ?? 500;
      for (const [name, value] of Object.entries(mapped?.options.headers ?? {})) ctx.set(name, value);
      ctx.body = mapped
        ? mapped.body()
        : {
            detail: `Something went wrong on our side; it has been logged. Quote request id ${requestId} if you report it.`,
          };
    } finally {
      const principal = ctx.state.principal;
      const line = {
        requestId,
        method: ctx.method,
        path: ctx.path,
        status: ctx.status,
        ms: Number(process.hrtime.bigint() - started) / 1e6,
        address,
        // In alphabetical order, as pino writes a nested object (lineWriter).
        auth: principal ? { client: principal.clientId, kind: principal.kind, user: principal.userId } : undefined,
      };
      if (failure && !(failure instanceof HttpError) && ctx.status >= 500) {
        logger.error({ ...line, err: failure }, 'request failed');
      } else if (ctx.state.quietLog) {
        write('debug', line, 'request'); // routine and frequent (metrics scrapes)
      } else {
        write('info', line, 'request');
      }
    }
  };
}

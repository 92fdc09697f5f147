/**
 * The HTTP server of the process, with its limits set from the config rather than left to
 * Node's defaults (which change between versions): how long a client may take to send its headers
 * and its whole request (slow clients holding connections open), how long an idle kept-alive
 * connection stays, and how many connections one instance holds at once. Requests its parser
 * refuses are answered with the API's error body (http/client-errors.ts).
 *
 * HTTP_REQUEST_TIMEOUT_MS is Node's `requestTimeout` and bounds every request, except a large
 * streamed upload whose route declares it: that one has an idle and an overall deadline of its own
 * instead. The rule, and how the two meet, is in http/body-deadline.ts.
 */
import http from 'node:http';
import type { Config } from '../config';
import { answerClientErrors } from './client-errors';
import { trackRequests } from './graceful-stop';

/**
 * How often Node looks for requests past their headers or request timeout. Node's default (30 s)
 * would let a slow client keep its connection up to 30 s past the limit.
 */
const TIMEOUT_CHECK_INTERVAL_MS = 1000;

export type ServerLimits = Pick<Config, 'httpHeadersTimeoutMs' | 'httpRequestTimeoutMs' | 'httpKeepAliveTimeoutMs' | 'httpMaxConnections'>;

export function createHttpServer(handler: http.RequestListener, limits: ServerLimits): http.Server {
  const server = http.createServer(
    {
      headersTimeout: limits.httpHeadersTimeoutMs,
      requestTimeout: limits.httpRequestTimeoutMs,
      connectionsCheckingInterval: Math.min(TIMEOUT_CHECK_INTERVAL_MS, limits.httpHeadersTimeoutMs),
    },
    handler,
  );
  server.keepAliveTimeout = limits.httpKeepAliveTimeoutMs;
  server.maxConnections = limits.httpMaxConnections;
  answerClientErrors(server);
  trackRequests(server); // for stopServer (graceful-stop.ts)
  return server;
}

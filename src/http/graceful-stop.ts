/**
 * Stopping the HTTP server without keeping the process up for kept-alive connections
 * (docs/operating.md, "Stopping"). `server.close()` only stops accepting new connections; a
 * kept-alive socket would otherwise hold the process until HTTP_KEEP_ALIVE_TIMEOUT_MS or
 * SHUTDOWN_TIMEOUT_MS. So: idle sockets are closed at once, and each busy one right after its
 * in-flight response, which says `Connection: close` when its headers are not sent yet.
 */
import type http from 'node:http';
import type { Socket } from 'node:net';

/** The responses being written, per server, from `trackRequests` on. */
const inFlight = new WeakMap<http.Server, Set<http.ServerResponse>>();
/** The servers being stopped: a request that still arrives on a busy connection is the last one on it. */
const stopping = new WeakSet<http.Server>();

/** Makes its response end the connection: `Connection: close` if still possible, and the socket is ended once the response is written. */
function lastOnItsConnection(response: http.ServerResponse, socket: Socket): void {
  if (!response.headersSent) response.setHeader('Connection', 'close');
  if (response.writableFinished) socket.end();
  else response.once('finish', () => socket.end());
}

/** Keeps the set of responses in flight on `server` (called once, when it is created). */
export function trackRequests(server: http.Server): void {
  const responses = new Set<http.ServerResponse>();
  inFlight.set(server, responses);
  server.prependListener('request', (request: http.IncomingMessage, response: http.ServerResponse) => {
    if (stopping.has(server)) lastOnItsConnection(response, request.socket);
    responses.add(response);
    response.once('close', () => responses.delete(response));
  });
}

/**
 * Stops accepting connections, closes idle ones now and busy ones after their response; resolves
 * when all are gone. Connections still open after `graceMs` are cut.
 */
export async function stopServer(server: http.Server, graceMs: number): Promise<void> {
  stopping.add(server);
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  for (const response of inFlight.get(server) ?? []) {
    if (response.socket) lastOnItsConnection(response, response.socket);
  }
  const timer = setTimeout(() => server.closeAllConnections(), graceMs);
  await closed;
  clearTimeout(timer);
}

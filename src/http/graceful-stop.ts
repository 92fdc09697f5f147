/**
 * Stopping the HTTP server without keeping the process up for kept-alive connections
 * (docs/operating.md, "Stopping"). `server.close()` only stops accepting new connections; a
 * kept-alive socket would otherwise hold the process until HTTP_KEEP_ALIVE_TIMEOUT_MS or
 * SHUTDOWN_TIMEOUT_MS. So: idle sockets are closed at once, and each busy one right after its
 * in-flight response, which says `Connection: close` when its headers are not sent yet.
 */
import type http from 'node:http';
import type { Socket } from 'node:net';

/** The open connections, per server, from `trackRequests` on (a connection, not a request: kept-alive ones carry many). */
const connections = new WeakMap<http.Server, Set<Socket>>();
/** Each connection's latest response: in flight until it has finished writing. */
const latest = new WeakMap<Socket, http.ServerResponse>();
/** The servers being stopped: a request that still arrives on a busy connection is the last one on it. */
const stopping = new WeakSet<http.Server>();

/** Makes its response end the connection: `Connection: close` if still possible, and the socket is ended once the response is written. */
function lastOnItsConnection(response: http.ServerResponse, socket: Socket): void {
  if (!response.headersSent) response.setHeader('Connection', 'close');
  if (response.writableFinished) socket.end();
  else response.once('finish', () => socket.end());
}

/**
 * Keeps the open connections of `server` and each one's latest response (called once, when it is
 * created). Per request this is one WeakMap entry: no listener, no closure, no set to add to and
 * remove from (the bench's profiles counted those on every response).
 */
export function trackRequests(server: http.Server): void {
  const open = new Set<Socket>();
  connections.set(server, open);
  server.on('connection', (socket: Socket) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  });
  server.prependListener('request', (request: http.IncomingMessage, response: http.ServerResponse) => {
    if (stopping.has(server)) lastOnItsConnection(response, request.socket);
    latest.set(request.socket, response);
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
  for (const socket of connections.get(server) ?? []) {
    const response = latest.get(socket);
    // A response still attached to its socket is in flight (Node detaches it once it is done).
    if (response?.socket) lastOnItsConnection(response, response.socket);
  }
  const timer = setTimeout(() => server.closeAllConnections(), graceMs);
  await closed;
  clearTimeout(timer);
}

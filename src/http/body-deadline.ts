/**
 * How long a request's body may take (docs/operating.md, "Slow clients and long uploads"): the one
 * place that says it.
 *
 * - Every request: Node's `requestTimeout` (HTTP_REQUEST_TIMEOUT_MS, set in http/server.ts), from
 *   its first byte until its body has arrived in full; past it the connection is answered 408 and
 *   closed (http/client-errors.ts). Headers stay bounded by Node's `headersTimeout`.
 * - A request whose route declares a large streamed body (`takeLongBody`; today only the upload of
 *   /settings/import) is spared that limit once declared, and instead must keep arriving: no pause
 *   longer than `idleMs` (IMPORT_UPLOAD_IDLE_MS) and all of it within `totalMs`
 *   (IMPORT_UPLOAD_TIMEOUT_MS) of the declaration. Past either, the route's reader is told (an
 *   AbortSignal), stops reading, removes what it kept and answers 408 with `Connection: close`; a
 *   reader that has not answered one idle time later, or a response already sent, has its
 *   connection cut.
 *
 * Arrival is measured on the connection (`socket.bytesRead`, checked a few times per idle time),
 * not on the request stream, so that watching never makes the body flow before its reader wants
 * it, and a body nobody reads stops counting as arriving (Node stops reading the socket) and is
 * cut like a stalled one. The watch ends when the body has arrived in full or the connection
 * closes, not when the response finishes: a body still arriving after an early answer stays bounded.
 */
import type http from 'node:http';
import type { Duplex } from 'node:stream';

export interface LongBodyLimits {
  /** The longest pause in the body's arrival. */
  idleMs: number;
  /** The longest the whole body may take, from the declaration on. */
  totalMs: number;
}

/** Why a long body's reader was told to stop: it paused too long, or took too long in all. */
export class BodyDeadlinePassed extends Error {
  constructor(
    readonly kind: 'idle' | 'total',
    readonly limits: LongBodyLimits,
  ) {
    super(kind === 'idle' ? `no byte of the body arrived for ${limits.idleMs} ms` : `the body took longer than ${limits.totalMs} ms`);
    this.name = 'BodyDeadlinePassed';
  }
}

/** The most often a watch looks at its connection, and the least often (a quarter of the idle time in between). */
const CHECK_MIN_MS = 20;
const CHECK_MAX_MS = 1000;

/** Each connection's request whose long body is still being watched. */
const watched = new WeakMap<Duplex, http.IncomingMessage>();

/**
 * Node's request timeout has fired (`ERR_HTTP_REQUEST_TIMEOUT`, through the server's
 * 'clientError'): true when it is about a request that declared a long body still arriving, which
 * is then left to its own deadline (a 'clientError' listener that leaves the socket alone lets
 * Node go on reading it; Node checks each request once: so on Node 20, and
 * test/web/import-upload-deadline.test.ts fails should a release change it). Headers never get
 * here spared: a request is declared only once its headers are in.
 */
export function sparedFromRequestTimeout(error: NodeJS.ErrnoException, socket: Duplex): boolean {
  return error.code === 'ERR_HTTP_REQUEST_TIMEOUT' && watched.get(socket)?.complete === false;
}

/**
 * Declares that `request`'s body is large and streamed (see the top of this file). Answers the
 * signal its reader stops on, aborted with a BodyDeadlinePassed when a deadline passes; the
 * response is then made the last on its connection.
 */
export function takeLongBody(request: http.IncomingMessage, response: http.ServerResponse, limits: LongBodyLimits): AbortSignal {
  const controller = new AbortController();
  const socket = request.socket;
  if (request.complete || socket.destroyed) return controller.signal;
  watched.set(socket, request);

  const startedAt = Date.now();
  let bytesSeen = socket.bytesRead;
  let lastArrival = startedAt;

  const stop = (): void => {
    clearInterval(timer);
    socket.off('close', stop);
    if (watched.get(socket) === request) watched.delete(socket);
  };
  const expire = (reason: BodyDeadlinePassed): void => {
    stop();
    if (response.writableFinished) {
      socket.destroy();
      return;
    }
    if (!response.headersSent) response.setHeader('Connection', 'close');
    controller.abort(reason);
    const cut = setTimeout(() => socket.destroy(), limits.idleMs);
    socket.once('close', () => clearTimeout(cut));
  };
  const check = (): void => {
    if (request.complete) return stop();
    const now = Date.now();
    if (socket.bytesRead > bytesSeen) {
      bytesSeen = socket.bytesRead;
      lastArrival = now;
    }
    if (now - startedAt >= limits.totalMs) expire(new BodyDeadlinePassed('total', limits));
    else if (now - lastArrival >= limits.idleMs) expire(new BodyDeadlinePassed('idle', limits));
  };
  const timer = setInterval(check, Math.max(CHECK_MIN_MS, Math.min(CHECK_MAX_MS, Math.floor(limits.idleMs / 4))));
  socket.once('close', stop);
  return controller.signal;
}

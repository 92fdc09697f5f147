/**
 * Requests Node's HTTP parser refuses before the app sees them: a request line and headers over
 * the server's limit (Node's `maxHeaderSize`, 16 KiB), bytes that are not HTTP/1.1, a request
 * that took too long to arrive. Node answers these itself with a bare status line and no body;
 * here they get the error body every other answer of the API has (`{"detail": …}`, http/errors.ts)
 * with a sentence saying what to change. Written to the socket as raw HTTP, since there is no
 * request object (Node's 'clientError' event).
 */
import http from 'node:http';
import type { Duplex } from 'node:stream';
import { sparedFromRequestTimeout } from './body-deadline';

/** Node's parser error codes (`HPE_*`) and its request timeout, as the status and sentence they are answered with. */
function answerFor(code: string | undefined): { status: number; detail: string } {
  if (code === 'HPE_HEADER_OVERFLOW') {
    return {
      status: 431,
      detail: `The request line and headers are larger than ${http.maxHeaderSize} bytes: send a shorter URL (query string) and fewer or smaller headers and cookies.`,
    };
  }
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return { status: 408, detail: 'The request took too long to arrive: send it again, in full, without pausing.' };
  }
  return { status: 400, detail: 'The request is not valid HTTP/1.1 and could not be read: check the request line and headers your client sends.' };
}

/** The raw HTTP answer: the JSON error body, never kept alive (the parser cannot read on after an error). */
function rawAnswer(status: number, detail: string): string {
  const body = JSON.stringify({ detail });
  return [
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Cache-Control: no-store',
    'Connection: close',
    '',
    body,
  ].join('\r\n');
}

/**
 * Answers parser errors with the API's error body; a connection already answering (or gone) is
 * only closed. A request that declared a long body is left to its own deadline (http/body-deadline.ts).
 */
export function answerClientErrors(server: http.Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (sparedFromRequestTimeout(error, socket)) return;
    const inFlight = (socket as Duplex & { _httpMessage?: http.ServerResponse })._httpMessage;
    if (error.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    const { status, detail } = answerFor(error.code);
    socket.end(rawAnswer(status, detail));
  });
}

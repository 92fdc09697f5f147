/**
 * Sends a request exactly as built, byte for byte (node:http, not fetch: fetch normalises paths,
 * refuses some header values and always frames the body itself), with a deadline, and checks the
 * answer against the OpenAPI documents like every other test's responses.
 */
import http from 'node:http';
import { assertDocumented } from '../../support/contract';

export interface RawRequest {
  method: string;
  /** Path and query, already encoded (anything goes that Node lets through). */
  target: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** Send the body with Transfer-Encoding: chunked instead of Content-Length. */
  chunked?: boolean;
}

export interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  contentType: string;
  text: string;
  /** Parsed JSON when the answer is JSON, else the text. */
  body: unknown;
  ms: number;
}

/** Sends `request` to `baseUrl`; rejects if no full answer arrives within `deadlineMs` (a hang). */
export function sendRaw(baseUrl: string, request: RawRequest, deadlineMs = 10_000): Promise<RawAnswer> {
  const url = new URL(baseUrl);
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { ...request.headers };
    if (request.body && !request.chunked) headers['Content-Length'] = request.body.length;
    const req = http.request({ host: url.hostname, port: url.port, method: request.method, path: request.target, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        clearTimeout(timer);
        const text = Buffer.concat(chunks).toString('utf8');
        const contentType = String(res.headers['content-type'] ?? '');
        let body: unknown = text;
        if (contentType.startsWith('application/json') && text.length > 0) {
          try {
            body = JSON.parse(text);
          } catch {
            reject(
              new Error(`${request.method} ${request.target.slice(0, 200)} -> ${res.statusCode}: a JSON answer that does not parse: ${text.slice(0, 300)}`),
            );
            return;
          }
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, contentType, text, body, ms: Date.now() - started });
      });
      res.on('error', reject);
    });
    const timer = setTimeout(() => {
      req.destroy();
      reject(new Error(`${request.method} ${request.target.slice(0, 200)}: no answer within ${deadlineMs} ms (a hang)`));
    }, deadlineMs);
    req.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    if (request.body) req.write(request.body);
    req.end();
  });
}

/** The path part of a request target, as the server routes it (for finding the document's operation). */
export function pathOf(target: string): string {
  const end = target.search(/[?#]/);
  return end === -1 ? target : target.slice(0, end);
}

/** Sends and checks the answer against the documents (status, media type, body schema). */
export async function sendDocumented(baseUrl: string, request: RawRequest, deadlineMs?: number): Promise<RawAnswer> {
  const answer = await sendRaw(baseUrl, request, deadlineMs);
  await assertDocumented({
    method: request.method,
    path: pathOf(request.target),
    status: answer.status,
    contentType: answer.contentType,
    body: answer.body,
    location: typeof answer.headers.location === 'string' ? new URL(answer.headers.location, baseUrl).toString() : null,
  });
  return answer;
}

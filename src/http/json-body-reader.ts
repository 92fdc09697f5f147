/**
 * Daybook's own reader of a JSON request body (docs/request-path.md, "Issue 35, fourth stop"): the
 * request's chunks gathered into one Buffer, the 1 MiB limit counted as they arrive, the bytes
 * decoded as UTF-8 once and handed to JSON.parse. It replaced koa-body → co-body → raw-body
 * (+ inflation) → @hapi/bourne for JSON, which decoded each chunk through iconv-lite into a string
 * built by concatenation, copied its options per request, and had bourne search the text with a
 * regular expression for `__proto__` keys (that check is now made in body.ts's one walk of the
 * parsed value). Every rule of the former reader is kept, each pinned by
 * test/http/json-body-reader.test.ts:
 *
 * - Content-Encoding gzip and deflate (either, zlib tells them apart), br and identity are read;
 *   any other value, spelled exactly (case and lists count), is refused with the former answer.
 * - The charset parameter is not looked at: a body is read as UTF-8 (bytes that are not UTF-8
 *   become U+FFFD) and a leading byte order mark is dropped, as iconv-lite's decoder did.
 * - An empty body is the empty string, not a parse error (co-body's `strict: false`).
 * - A parse failure is answered with JSON.parse's own reason.
 */
import type http from 'node:http';
import type { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { HttpError, badRequest, payloadTooLarge, unsupportedMediaType } from './errors';

/** A body that could not be read or parsed, with its reason (whitespace folded, at most 200 characters). */
export function notParsed(reason: string): HttpError {
  return badRequest(`The request body could not be parsed: ${reason.replace(/\s+/g, ' ').slice(0, 200)}.`);
}

/**
 * A Content-Encoding that cannot be decoded. The former reader's words, kept as they were: its 415
 * came from inflation and was worded as a charset's by body.ts.
 */
export const unsupportedEncoding = (): HttpError => unsupportedMediaType('(this charset)', ['UTF-8']);

/** The body's bytes as they were before their Content-Encoding (inflation's choice of decoder). */
function decodedStream(request: http.IncomingMessage): Readable {
  const encoding = request.headers['content-encoding'] || 'identity';
  switch (encoding) {
    case 'identity':
      return request;
    case 'gzip':
    case 'deflate':
      return request.pipe(zlib.createUnzip());
    case 'br':
      return request.pipe(zlib.createBrotliDecompress());
    default:
      throw unsupportedEncoding();
  }
}

/**
 * The whole body when it has already arrived, unencoded, or undefined: then the stream's buffer is
 * taken in one `read()` (its one chunk as it is, or their concatenation), without the flowing
 * mode's events and turns of the loop (about 14-28 µs of a 35-item body's read). That is the case
 * when a statement ran before the body is read (a credential not remembered, a first request).
 * A steady request reaches the body before Node's parser has handed it over, even when it came in
 * the same packet as the headers (each of the parser's calls into JavaScript, the request's
 * emission first, runs the microtask queue when it returns), and reads it as a stream below.
 */
function arrived(source: Readable, request: http.IncomingMessage): Buffer | undefined {
  if (source !== request || !request.complete || !request.readable || request.readableFlowing) return undefined;
  return (request.read() as Buffer | null) ?? Buffer.alloc(0);
}

/**
 * The bytes of `source` in one Buffer, refused with 413 as soon as more than `limit` have arrived
 * (then `source` is paused and no more is kept). `length` is the declared Content-Length of an
 * unencoded body, which the bytes must match. A request that goes away before its end is a 400
 * (its client no longer listens; the log line records it), as it was.
 */
function gather(source: Readable, request: http.IncomingMessage, length: number | undefined, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    if (!source.readable) {
      reject(notParsed('stream is not readable'));
      return;
    }
    const chunks: Buffer[] = [];
    let received = 0;
    const settle = (error: Error | undefined, body?: Buffer): void => {
      source.off('data', onData);
      source.off('end', onEnd);
      source.off('error', onError);
      source.off('close', onAborted);
      request.off('aborted', onAborted);
      if (error) {
        source.unpipe();
        source.pause();
        reject(error);
      } else resolve(body!);
    };
    const onData = (chunk: Buffer): void => {
      received += chunk.length;
      if (received > limit) settle(payloadTooLarge());
      else chunks.push(chunk);
    };
    const onEnd = (): void => {
      if (length !== undefined && received !== length) settle(notParsed('request size did not match content length'));
      else settle(undefined, chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, received));
    };
    // A decoder's error (zlib: "incorrect header check", "unexpected end of file") is its reason.
    const onError = (error: Error): void => settle(notParsed(error.message));
    const onAborted = (): void => settle(notParsed('request aborted'));
    source.on('data', onData);
    source.on('end', onEnd);
    source.on('error', onError);
    source.on('close', onAborted); // only heard before the end: a stream destroyed mid-body
    request.on('aborted', onAborted);
  });
}

/** UTF-8 text of `bytes`, a leading byte order mark (EF BB BF) left out. */
function utf8Text(bytes: Buffer): string {
  const start = bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  return bytes.toString('utf8', start);
}

/**
 * Reads and parses `request`'s JSON body, at most `limit` bytes once decoded. Throws 415 for a
 * Content-Encoding it cannot decode, 413 past the limit, 400 for a body that could not be read or
 * is not JSON. An empty body is answered as ''. Whether the value holds `__proto__` keys, nests too
 * deeply or holds numbers out of range is for the caller's walk (body.ts).
 */
export async function readJsonBody(request: http.IncomingMessage, limit: number): Promise<unknown> {
  const source = decodedStream(request);
  const declared = request.headers['content-length'];
  const length = source === request && declared ? Number(declared) : undefined;
  const whole = arrived(source, request);
  if (whole !== undefined && whole.length > limit) throw payloadTooLarge();
  const text = utf8Text(whole ?? (await gather(source, request, length, limit)));
  if (text === '') return text;
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw notParsed((error as Error).message);
  }
}

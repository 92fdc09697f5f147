/**
 * Answers compressed when the client accepts it (docs/decisions.md, "Compressed answers"): Brotli
 * or gzip, whichever the client's Accept-Encoding prefers, for text, JSON, SVG and CSV bodies of at
 * least COMPRESS_MIN_BYTES (smaller ones gain little and cost the benchmark CPU). A streamed body
 * (the account's exports) stays a stream: each chunk is flushed through the compressor as it comes,
 * so the first bytes still leave at once and memory stays constant. Node's own zlib, no package.
 */
import { Readable, pipeline } from 'node:stream';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type Koa from 'koa';

/** Types worth compressing (images other than SVG, and archives, are compressed already). */
const COMPRESSIBLE = /^(text\/|application\/(json|[\w.+-]+\+json|javascript|xml|[\w.+-]+\+xml)|image\/svg\+xml)/;

/** Brotli at quality 4: most of its gain at a fraction of the default quality 11's CPU. */
const BROTLI = { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 } };

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

type Encoding = 'br' | 'gzip';

/** The bytes Koa would send for a finished body; undefined for a stream or no body. */
function bytesOf(body: unknown): Buffer | undefined {
  if (typeof body === 'string') return Buffer.from(body);
  if (Buffer.isBuffer(body)) return body;
  if (body === null || body === undefined || body instanceof Readable) return undefined;
  return Buffer.from(JSON.stringify(body));
}

function compressStream(source: Readable, encoding: Encoding): Readable {
  const compressor =
    encoding === 'br'
      ? zlib.createBrotliCompress({ ...BROTLI, flush: zlib.constants.BROTLI_OPERATION_FLUSH })
      : zlib.createGzip({ flush: zlib.constants.Z_SYNC_FLUSH });
  // An error of the source ends the compressed stream with it (Koa then closes the connection).
  return pipeline(source, compressor, () => undefined);
}

/**
 * `Vary: Accept-Encoding` on every answer. When no layer set a Vary field, which is every API
 * answer, it is set as it is; Koa's `vary` (the vary package: the field parsed, each name tested
 * against a regular expression, the list joined again) is for adding it to a field already there.
 */
function varyOnEncoding(ctx: Koa.Context): void {
  if (!ctx.res.hasHeader('Vary')) ctx.response.set('Vary', 'Accept-Encoding');
  else ctx.vary('Accept-Encoding');
}

/** Compresses the answer the rest of the chain produced, when worth it and accepted. */
export function compressAnswers(options: { minBytes: number }): Koa.Middleware {
  return async (ctx, next) => {
    await next();
    varyOnEncoding(ctx);
    // Most API clients (and the bench) ask for no encoding: nothing to negotiate then.
    if (!ctx.request.headers['accept-encoding']) return;
    if (ctx.method === 'HEAD' || ctx.status === 204 || ctx.status === 304 || ctx.response.get('Content-Encoding')) return;
    if (ctx.body === null || ctx.body === undefined || !COMPRESSIBLE.test(ctx.response.type)) return;
    const encoding = ctx.acceptsEncodings('br', 'gzip', 'identity');
    if (encoding !== 'br' && encoding !== 'gzip') return;
    if (ctx.body instanceof Readable) {
      // Koa keeps the Content-Type already set when the body is replaced.
      ctx.body = compressStream(ctx.body, encoding);
      ctx.remove('Content-Length');
      ctx.set('Content-Encoding', encoding);
      return;
    }
    const bytes = bytesOf(ctx.body);
    if (!bytes) return;
    if (bytes.length < options.minBytes) {
      // Sent as the bytes already made, so an object body is not serialised a second time by Koa
      // (Koa keeps the Content-Type already set when the body is replaced).
      if (!Buffer.isBuffer(ctx.body) && typeof ctx.body !== 'string') ctx.body = bytes;
      return;
    }
    ctx.body = encoding === 'br' ? await brotli(bytes, BROTLI) : await gzip(bytes);
    ctx.set('Content-Encoding', encoding);
  };
}

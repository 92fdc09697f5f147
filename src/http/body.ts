/**
 * Request bodies: JSON, urlencoded forms and (where an operation accepts it) multipart forms, at
 * most 1 MiB. Parsed only after the route is known, so the accepted media types come from the
 * operation's requestBody in the document. A body sent without a Content-Type is parsed as JSON
 * when the operation takes JSON (real clients do this).
 */
import type Koa from 'koa';
import { koaBody } from 'koa-body';
import coBody from 'co-body';
import { HttpError, badRequest, payloadTooLarge, unsupportedMediaType } from './errors';

export const BODY_LIMIT_BYTES = 1024 * 1024;

/**
 * How deeply a body's arrays and objects may nest (ours need 2: an array of flat objects). Found
 * by the fuzz suite: a body nested a hundred thousand levels deep parsed, but answering it (a
 * failed item echoes what was sent) overflowed the stack and the client got a bare 500.
 */
export const BODY_MAX_DEPTH = 32;

/** What `scan` found: nothing, a number out of range, or nesting past the limit (which stops it). */
const FINE = 0;
const OUT_OF_RANGE = 1;
const TOO_DEEP = 2;

/**
 * One walk of a parsed body for both checks, allocating nothing: whether it nests deeper than
 * `limit` (found first whatever else it holds) and whether it holds a number JSON.parse could not
 * hold. Recursive, but never deeper than `limit`, so a deep value cannot overflow the stack here.
 * (It was two walks that queued a pair per value and built the JSON pointer of every value, the
 * largest item of body parsing in a 35-item write's profile.)
 */
function scan(value: unknown, depth: number, limit: number): number {
  if (typeof value === 'number') return Number.isFinite(value) ? FINE : OUT_OF_RANGE;
  if (value === null || typeof value !== 'object') return FINE;
  if (depth >= limit) return TOO_DEEP;
  let found = FINE;
  if (Array.isArray(value)) {
    for (const child of value) {
      const result = scan(child, depth + 1, limit);
      if (result === TOO_DEEP) return TOO_DEEP;
      found |= result;
    }
    return found;
  }
  const record = value as Record<string, unknown>;
  for (const key in record) {
    if (!Object.hasOwn(record, key)) continue;
    const result = scan(record[key], depth + 1, limit);
    if (result === TOO_DEEP) return TOO_DEEP;
    found |= result;
  }
  return found;
}

/**
 * The JSON pointer of the first number in `value` that JSON.parse could not hold (`1e400` parses
 * to Infinity, which would reach validation and the database as something else: it was reported
 * as "not null"), or undefined. Iterative; run only on a body `scan` found such a number in.
 */
function outOfRangeNumber(value: unknown): string | undefined {
  const pending: Array<[unknown, string]> = [[value, '']];
  while (pending.length > 0) {
    const [current, pointer] = pending.pop()!;
    if (typeof current === 'number' && !Number.isFinite(current)) return pointer;
    if (current === null || typeof current !== 'object') continue;
    for (const [key, child] of Object.entries(current)) pending.push([child, `${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`]);
  }
  return undefined;
}

/**
 * Fields a urlencoded body may hold (qs's own default), and so how often one field may repeat and
 * still be a list. qs turns a field repeated more than `arrayLimit` times (20 by default) into an
 * object keyed by index, so a form ticking all 34 scopes arrived as no scope at all.
 */
export const FORM_FIELD_LIMIT = 1000;

const parser = koaBody({
  json: true,
  jsonStrict: false, // a JSON body of the wrong shape (a number, a string) is a validation error with a clear message, not a parse error
  urlencoded: true,
  multipart: true,
  text: false,
  jsonLimit: BODY_LIMIT_BYTES,
  formLimit: BODY_LIMIT_BYTES,
  queryString: { parameterLimit: FORM_FIELD_LIMIT, arrayLimit: FORM_FIELD_LIMIT },
  parsedMethods: ['POST', 'PUT', 'PATCH', 'DELETE'] as never,
  formidable: { maxFileSize: BODY_LIMIT_BYTES, maxTotalFileSize: BODY_LIMIT_BYTES, maxFieldsSize: BODY_LIMIT_BYTES, maxFiles: 0 },
  onError: (error: Error) => {
    throw error;
  },
});

function hasBody(ctx: Koa.Context): boolean {
  const length = ctx.get('Content-Length');
  return Boolean(ctx.get('Transfer-Encoding')) || (length !== '' && length !== '0');
}

function mediaType(ctx: Koa.Context): string {
  return (ctx.get('Content-Type').split(';')[0] ?? '').trim().toLowerCase();
}

/** Turns a parser failure into the right client error. */
function parseFailure(error: unknown): HttpError {
  const e = error as { status?: number; statusCode?: number; type?: string; message?: string; httpCode?: number; code?: number };
  const status = e.status ?? e.statusCode ?? e.httpCode;
  if (status === 413 || e.type === 'entity.too.large' || /maxFileSize|maxTotalFileSize|maxFieldsSize|exceeded/i.test(e.message ?? '')) {
    return payloadTooLarge();
  }
  if (status === 415) return unsupportedMediaType('(this charset)', ['UTF-8']);
  return badRequest(`The request body could not be parsed: ${(e.message ?? 'malformed').replace(/\s+/g, ' ').slice(0, 200)}.`);
}

/**
 * Parses the body into ctx.request.body for an operation that accepts `accepted` media types.
 * Throws 415 for another media type, 413 past 1 MiB, 400 for a malformed body, one nested
 * deeper than BODY_MAX_DEPTH or one holding a number too large for a double.
 */
export async function parseBody(ctx: Koa.Context, accepted: string[]): Promise<void> {
  await parseAcceptedBody(ctx, accepted);
  const found = scan(ctx.request.body, 0, BODY_MAX_DEPTH);
  if (found === TOO_DEEP) {
    throw badRequest(`The request body nests arrays and objects more than ${BODY_MAX_DEPTH} levels deep.`);
  }
  const pointer = found === OUT_OF_RANGE ? outOfRangeNumber(ctx.request.body) : undefined;
  if (pointer !== undefined) {
    const message = 'is a number out of range (beyond ±1.8e308, the largest a JSON number may be here)';
    throw badRequest(pointer ? `Invalid request body ${pointer}: ${message}.` : `The request body ${message}.`, [{ in: 'body', name: pointer, message }]);
  }
}

async function parseAcceptedBody(ctx: Koa.Context, accepted: string[]): Promise<void> {
  const declared = Number(ctx.get('Content-Length'));
  if (Number.isFinite(declared) && declared > BODY_LIMIT_BYTES) throw payloadTooLarge();
  if (!hasBody(ctx)) return;
  const type = mediaType(ctx);
  if (type === '') {
    if (!accepted.includes('application/json')) throw unsupportedMediaType('(none)', accepted);
    try {
      ctx.request.body = await coBody.json(ctx.req, { limit: BODY_LIMIT_BYTES, strict: false });
    } catch (error) {
      throw parseFailure(error);
    }
    return;
  }
  if (!accepted.includes(type)) throw unsupportedMediaType(type, accepted);
  try {
    await parser(ctx, async () => undefined);
  } catch (error) {
    throw parseFailure(error);
  }
}

/**
 * Request bodies: JSON, urlencoded forms and (where an operation accepts it) multipart forms, at
 * most 1 MiB. Parsed only after the route is known, so the accepted media types come from the
 * operation's requestBody in the document. A body sent without a Content-Type is parsed as JSON
 * when the operation takes JSON (real clients do this). JSON is read by Daybook's own reader
 * (http/json-body-reader.ts; docs/request-path.md, "Issue 35, fourth stop"), forms by koa-body.
 */
import type Koa from 'koa';
import { koaBody } from 'koa-body';
import { HttpError, badRequest, payloadTooLarge, unsupportedMediaType } from './errors';
import { notParsed, readJsonBody, unsupportedEncoding } from './json-body-reader';

export const BODY_LIMIT_BYTES = 1024 * 1024;

/**
 * How deeply a body's arrays and objects may nest (ours need 2: an array of flat objects). Found
 * by the fuzz suite: a body nested a hundred thousand levels deep parsed, but answering it (a
 * failed item echoes what was sent) overflowed the stack and the client got a bare 500.
 */
export const BODY_MAX_DEPTH = 32;

/**
 * What `scan` found, as bits: a number out of range, an own `__proto__` key, or nesting past the
 * limit (which stops the walk).
 */
const FINE = 0;
const OUT_OF_RANGE = 1;
const TOO_DEEP = 2;
const PROTO_KEY = 4;

/**
 * One walk of a parsed body for every check, allocating nothing: whether it nests deeper than
 * `limit` (found first whatever else it holds), whether it holds a number JSON.parse could not
 * hold, and whether an object has an own `__proto__` key (JSON.parse makes one for the key
 * `"__proto__"`, however escaped; merged into another object it would set that object's
 * prototype). Recursive, but never deeper than `limit`, so a deep value cannot overflow the stack
 * here. (It was two walks that queued a pair per value and built the JSON pointer of every value,
 * the largest item of body parsing in a 35-item write's profile; the key check was @hapi/bourne's,
 * a regular expression over the text and a walk of its own when it matched.)
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
    if (key === '__proto__') found |= PROTO_KEY;
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
 * Whether any object in `value` has an own `__proto__` key, at any depth: @hapi/bourne's scan,
 * which the former reader made before the depth limit was looked at. Iterative; run only on a body
 * nested too deeply for `scan` to have seen all of it.
 */
function hasProtoKey(value: unknown): boolean {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const current = pending.pop();
    if (current === null || typeof current !== 'object') continue;
    if (Object.hasOwn(current, '__proto__')) return true;
    for (const child of Object.values(current)) pending.push(child);
  }
  return false;
}

/**
 * Fields a urlencoded body may hold (qs's own default), and so how often one field may repeat and
 * still be a list. qs turns a field repeated more than `arrayLimit` times (20 by default) into an
 * object keyed by index, so a form ticking all 34 scopes arrived as no scope at all.
 */
export const FORM_FIELD_LIMIT = 1000;

/** Forms only: JSON is read by readJsonBody. */
const formParser = koaBody({
  json: false,
  urlencoded: true,
  multipart: true,
  text: false,
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

/**
 * Koa's (type-is's) test for a JSON body, which the former reader made: the media type before any
 * parameters, trimmed of spaces and tabs only, is application/json.
 */
const JSON_MEDIA_TYPE = /^[ \t]*application\/json[ \t]*(?:;|$)/i;

/** The methods koa-body read a body on (its `parsedMethods`); the API's bodies are all POSTs. */
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Turns a form parser's failure into the right client error. */
function parseFailure(error: unknown): HttpError {
  const e = error as { status?: number; statusCode?: number; type?: string; message?: string; httpCode?: number; code?: number };
  const status = e.status ?? e.statusCode ?? e.httpCode;
  if (status === 413 || e.type === 'entity.too.large' || /maxFileSize|maxTotalFileSize|maxFieldsSize|exceeded/i.test(e.message ?? '')) {
    return payloadTooLarge();
  }
  if (status === 415) return unsupportedEncoding();
  return notParsed(e.message ?? 'malformed');
}

/**
 * Parses the body into ctx.request.body for an operation that accepts `accepted` media types.
 * Throws 415 for another media type, 413 past 1 MiB, 400 for a malformed body, one nested
 * deeper than BODY_MAX_DEPTH or one holding a number too large for a double.
 */
export async function parseBody(ctx: Koa.Context, accepted: string[]): Promise<void> {
  const json = await parseAcceptedBody(ctx, accepted);
  const found = scan(ctx.request.body, 0, BODY_MAX_DEPTH);
  // A JSON body's `__proto__` key is refused before its depth and numbers, as @hapi/bourne did.
  if (json && ((found & PROTO_KEY) !== 0 || (found === TOO_DEEP && hasProtoKey(ctx.request.body)))) {
    throw notParsed('Object contains forbidden prototype property');
  }
  if (found === TOO_DEEP) {
    throw badRequest(`The request body nests arrays and objects more than ${BODY_MAX_DEPTH} levels deep.`);
  }
  const pointer = (found & OUT_OF_RANGE) !== 0 ? outOfRangeNumber(ctx.request.body) : undefined;
  if (pointer !== undefined) {
    const message = 'is a number out of range (beyond ±1.8e308, the largest a JSON number may be here)';
    throw badRequest(pointer ? `Invalid request body ${pointer}: ${message}.` : `The request body ${message}.`, [{ in: 'body', name: pointer, message }]);
  }
}

/** Reads the body into ctx.request.body; answers whether it was read as JSON. */
async function parseAcceptedBody(ctx: Koa.Context, accepted: string[]): Promise<boolean> {
  const declared = Number(ctx.get('Content-Length'));
  if (Number.isFinite(declared) && declared > BODY_LIMIT_BYTES) throw payloadTooLarge();
  if (!hasBody(ctx)) return false;
  const type = mediaType(ctx);
  if (type === '') {
    if (!accepted.includes('application/json')) throw unsupportedMediaType('(none)', accepted);
    ctx.request.body = (await readJsonBody(ctx.req, BODY_LIMIT_BYTES)) as Koa.Request['body'];
    return true;
  }
  if (!accepted.includes(type)) throw unsupportedMediaType(type, accepted);
  if (type === 'application/json') {
    // Past `mediaType`'s looser trim, a type koa-body did not take for JSON was left unread.
    if (!JSON_MEDIA_TYPE.test(ctx.get('Content-Type')) || !BODY_METHODS.has(ctx.method)) return false;
    ctx.request.body = (await readJsonBody(ctx.req, BODY_LIMIT_BYTES)) as Koa.Request['body'];
    return true;
  }
  try {
    await formParser(ctx, async () => undefined);
  } catch (error) {
    throw parseFailure(error);
  }
  return false;
}

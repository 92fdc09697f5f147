/**
 * Idempotency keys (docs/idempotency.md): a data-changing v2 POST sent with an `Idempotency-Key`
 * header runs in one transaction that first claims the key (domain/idempotency/keys.ts) and last
 * stores its answer; a retry with the same key and the same request, by the same client for the
 * same person, within 24 hours, is answered that first answer again (status, body, Location) with
 * `Idempotent-Replayed: true`, and applies nothing. The same key with another request is 422. A
 * retry while the first is still running waits for it at its claim (bounded by
 * DB_STATEMENT_TIMEOUT_MS, then 503), and is then answered the first's answer.
 *
 * Which operations take a key is declared once per operation below, typed by the document's
 * operations, so a new operation does not compile until it says whether it takes one. A request
 * without the header is served exactly as before: no statement, no transaction.
 *
 * What is kept: every answer the handler gives, and every 4xx it throws except 401, 403, 408, 409
 * and 429 (those depend on the credentials or on the moment, and a retry must be free to succeed);
 * a 5xx is never kept (its transaction rolls back: the retry applies).
 */
import crypto from 'node:crypto';
import type Koa from 'koa';
import type { Knex } from 'knex';
import type { Context as ApiContext } from 'openapi-backend';
import { poolDatabase } from '../db/database';
import { claimKey, releaseKey, storeAnswer, type KeyedRequest, type StoredAnswer } from '../domain/idempotency/keys';
import { asHttpError, badRequest, HttpError } from './errors';
import type { HandlerMap, OperationHandler } from './backends';
import type { V2Operations } from './operation';
import { databaseOf } from './request-state';

/** Whether each v2 operation takes an `Idempotency-Key`: the POSTs that change data do. */
const V2_KEYS: Record<keyof V2Operations, boolean> = {
  listAttributeTemplates: false,
  listAttributes: false,
  listAttributesWithValues: false,
  listAttributeValues: false,
  listOwnedAttributes: false,
  updateAttributeValues: true,
  incrementAttributeValues: true,
  acquireAttributes: true,
  releaseAttributes: true,
  createAttributes: true,
  listCorrelations: false,
  getCorrelationCombo: false,
  listAverages: false,
  listInsights: false,
  getProfile: false,
  // Issues a credential and changes nothing: the same answer every time anyway.
  createSimpleToken: false,
  listWebhooks: false,
  createWebhook: true,
  getWebhook: false,
  // Sets the fields it is sent: a retry leaves the same endpoint. DELETE is idempotent by its method.
  updateWebhook: false,
  deleteWebhook: false,
  rotateWebhookSecret: true,
  listWebhookDeliveries: false,
  resendWebhookDelivery: true,
  sendWebhookTestEvent: true,
};

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
export const REPLAYED_HEADER = 'Idempotent-Replayed';
const MAX_KEY_LENGTH = 255;
/** Headers of an answer that are kept and replayed with it (the rate-limit and request-id fields are the retry's own). */
const KEPT_HEADERS = ['Location'];
/** Thrown answers that are not kept: they depend on the credentials or the moment. */
const NOT_KEPT = new Set([401, 403, 408, 409, 429]);

/** The key sent, undefined without the header; 400 for an empty or too long one. */
function keyOf(ctx: Koa.Context): string | undefined {
  const key = ctx.headers['idempotency-key'];
  if (key === undefined) return undefined;
  const text = Array.isArray(key) ? key.join(', ') : key;
  if (text.length === 0 || text.length > MAX_KEY_LENGTH) {
    throw badRequest(`The ${IDEMPOTENCY_HEADER} header must be 1 to ${MAX_KEY_LENGTH} characters long (got ${text.length}).`, [
      { in: 'header', name: IDEMPOTENCY_HEADER, message: `must be 1 to ${MAX_KEY_LENGTH} characters long` },
    ]);
  }
  return text;
}

/** The key's scope: the client and the person (an app authenticated as itself, or a person's own credential). */
function scopeOf(ctx: Koa.Context): Pick<KeyedRequest, 'scope' | 'userId' | 'clientPk'> {
  const { principal, app } = ctx.state;
  if (principal?.clientPk !== undefined)
    return { scope: `client:${principal.clientPk}/user:${principal.userId}`, userId: principal.userId, clientPk: principal.clientPk };
  if (principal) return { scope: `user:${principal.userId}`, userId: principal.userId, clientPk: null };
  if (app) return { scope: `app:${app.id}`, userId: null, clientPk: app.id };
  throw new Error('An operation that takes an idempotency key was reached without credentials.');
}

/** What the request asks, hashed: its path, its declared query parameters and its body. */
function fingerprintOf(c: ApiContext, ctx: Koa.Context): string {
  const query = Object.entries(c.request.query ?? {}).sort(([a], [b]) => (a < b ? -1 : 1));
  return crypto
    .createHash('sha256')
    .update(JSON.stringify([ctx.method, ctx.path, query, ctx.request.body ?? null]))
    .digest('base64url');
}

/**
 * The answer the handler left on the context. A JSON answer may be its finished text (`answerJson`,
 * http/json-body.ts): it is kept as the value it spells, so that a replay answers it as JSON again.
 */
function answerOf(ctx: Koa.Context): StoredAnswer {
  const headers: Record<string, string> = {};
  for (const name of KEPT_HEADERS) if (ctx.response.get(name)) headers[name] = ctx.response.get(name);
  const body: unknown = ctx.body;
  return { status: ctx.status, headers, body: typeof body === 'string' && ctx.response.type === 'application/json' ? JSON.parse(body) : (body ?? null) };
}

/** A thrown error's answer, when it is one that is kept. */
function keptErrorAnswer(error: unknown): StoredAnswer | undefined {
  const mapped = asHttpError(error);
  if (!mapped || mapped.status >= 500 || NOT_KEPT.has(mapped.status)) return undefined;
  const headers = Object.fromEntries(Object.entries(mapped.options.headers ?? {}).filter(([name]) => KEPT_HEADERS.includes(name)));
  return { status: mapped.status, headers, body: mapped.body() };
}

/** Answers a stored answer again, or 422 when the key was used for another request. */
function replay(ctx: Koa.Context, request: KeyedRequest, fingerprint: string, answer: StoredAnswer): void {
  if (fingerprint !== request.fingerprint) {
    throw new HttpError(
      422,
      `This ${IDEMPOTENCY_HEADER} was used in the last 24 hours for another request (another body, path or query). Send a new key for a new request; nothing was applied.`,
    );
  }
  ctx.status = answer.status;
  if (answer.body !== null) ctx.body = answer.body;
  for (const [name, value] of Object.entries(answer.headers)) ctx.set(name, value);
  ctx.set(REPLAYED_HEADER, 'true');
}

/** Runs `work` in a transaction of its own, rolled back when it throws. */
async function inTransaction<T>(db: Knex, work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
  const trx = await db.transaction();
  try {
    const result = await work(trx);
    if (!trx.isCompleted()) await trx.commit();
    return result;
  } catch (error) {
    if (!trx.isCompleted()) await trx.rollback();
    throw error;
  }
}

/**
 * Keeps a thrown answer: its writes were rolled back with its transaction, so the key is claimed
 * again in a short transaction of its own and the answer stored there (a request with the same
 * key that completed meanwhile is replayed instead). Then the error is answered as usual.
 */
async function keepThrown(db: Knex, now: () => Date, ctx: Koa.Context, request: KeyedRequest, error: unknown, answer: StoredAnswer): Promise<void> {
  const replayed = await inTransaction(db, async (trx) => {
    const claim = await claimKey(trx, request, now());
    if (!claim.claimed) {
      await trx.rollback();
      replay(ctx, request, claim.fingerprint, claim.answer);
      return true;
    }
    await storeAnswer(trx, request, answer);
    return false;
  });
  if (!replayed) throw error;
}

/** Serves one request that sent a key: claim, handler, answer, in one transaction. */
async function serveWithKey(db: Knex, now: () => Date, handler: OperationHandler, c: ApiContext, ctx: Koa.Context, request: KeyedRequest): Promise<void> {
  // The request's credentials check, when its first statement was to carry it, runs alone first
  // (docs/statements.md): nothing may run before it, and it must not be undone with the transaction.
  const requestDb = databaseOf(ctx);
  await requestDb.settle();
  let thrown: { error: unknown; answer: StoredAnswer } | undefined;
  await inTransaction(db, async (trx) => {
    const claim = await claimKey(trx, request, now());
    if (!claim.claimed) {
      await trx.rollback();
      return replay(ctx, request, claim.fingerprint, claim.answer);
    }
    ctx.state.db = poolDatabase(trx); // every statement of the handler runs in this transaction
    try {
      await handler(c, ctx);
    } catch (error) {
      const answer = keptErrorAnswer(error);
      if (!answer) throw error;
      thrown = { error, answer };
      await trx.rollback();
      return;
    } finally {
      ctx.state.db = requestDb;
    }
    const answer = answerOf(ctx);
    if (answer.status < 500) await storeAnswer(trx, request, answer);
    else await releaseKey(trx, request);
  });
  if (thrown) await keepThrown(db, now, ctx, request, thrown.error, thrown.answer);
}

/** The handler of an operation that takes a key: as before without the header, else `serveWithKey`. */
function keyed(db: Knex, now: () => Date, operation: string, handler: OperationHandler): OperationHandler {
  return async (c, ctx) => {
    const key = keyOf(ctx);
    if (key === undefined) return handler(c, ctx);
    const request: KeyedRequest = { ...scopeOf(ctx), operation, key, fingerprint: fingerprintOf(c, ctx) };
    return serveWithKey(db, now, handler, c, ctx, request);
  };
}

/** The v2 handlers, each operation that takes a key wrapped by `keyed` (V2_KEYS). */
export function withIdempotencyKeys(db: Knex, now: () => Date, handlers: HandlerMap): HandlerMap {
  const wrapped: HandlerMap = { ...handlers };
  for (const [operation, takesKey] of Object.entries(V2_KEYS)) {
    if (takesKey) wrapped[operation] = keyed(db, now, operation, handlers[operation]);
  }
  return wrapped;
}

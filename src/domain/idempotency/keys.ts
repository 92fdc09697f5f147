/**
 * The idempotency keys' store (docs/idempotency.md): the first answer to a data-changing request
 * sent with an `Idempotency-Key`, kept 24 hours so that a retry with the same key is answered it
 * again and applies nothing. The HTTP part (which operations take a key, what is stored, the
 * replay) is src/http/idempotency.ts.
 *
 * A key is claimed by the first statement of the request's own transaction and its answer stored
 * by the last one before COMMIT, so the row exists exactly when the request's writes do: a request
 * that fails or dies leaves no key behind, and a retry then simply applies. A second request with
 * the same key while the first is still running waits at its claim, on the first's uncommitted row
 * (the primary key's uniqueness), and then finds the first's stored answer.
 */
import type { Knex } from 'knex';
import { inTransaction, knexRaw, sql } from '../../db/sql';

/** How long an answer is kept (and replayed): 24 hours, as Stripe does. */
export const KEY_LIFETIME_MS = 24 * 60 * 60 * 1000;

/** Who a key belongs to and what it was sent with; the same key in another scope is another key. */
export interface KeyedRequest {
  /** The caller: client and person (`client:<pk>/user:<id>`), person alone, or an app as itself. */
  scope: string;
  operation: string;
  key: string;
  userId: number | null;
  clientPk: number | null;
  /** A hash of what the request asks (path, query and body): a retry must ask the same. */
  fingerprint: string;
}

/** An answer as stored and replayed. */
export interface StoredAnswer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

export type Claim = { claimed: true } | { claimed: false; fingerprint: string; answer: StoredAnswer };

type ClaimRow = { fingerprint: string; status: number | null; headers: Record<string, string> | null; body: unknown };

/**
 * Claims the key in the request's transaction `trx`: inserts it without an answer, or, when a row
 * of the key exists, answers it (a row past its lifetime that housekeeping has not deleted yet is
 * taken over as if absent). A row holding no answer is this claim's own: every committed row has
 * one (storeAnswer, or the whole transaction rolls back).
 *
 * The conflicting row is read through `on conflict do update` (which sees the latest committed
 * version, after waiting for an uncommitted one) rather than by a second select, whose snapshot
 * would be taken before the wait in READ COMMITTED and so could miss it. Its values are written
 * back unchanged; the caller rolls that back.
 */
export async function claimKey(trx: Knex.Transaction, request: KeyedRequest, now: Date): Promise<Claim> {
  const expired = sql`k.created_at <= ${new Date(now.getTime() - KEY_LIFETIME_MS)}::timestamptz`;
  const [row] = await inTransaction<ClaimRow>(
    trx,
    sql`insert into idempotency_keys as k (scope, operation, key, user_id, client_pk, fingerprint, status, headers, body, created_at)
        values (${request.scope}, ${request.operation}, ${request.key}, ${request.userId}::bigint, ${request.clientPk}::bigint,
                ${request.fingerprint}, null, null, null, ${now}::timestamptz)
        on conflict (scope, operation, key) do update set
          fingerprint = case when ${expired} then excluded.fingerprint else k.fingerprint end,
          status = case when ${expired} then null else k.status end,
          headers = case when ${expired} then null else k.headers end,
          body = case when ${expired} then null else k.body end,
          created_at = case when ${expired} then excluded.created_at else k.created_at end
        returning k.fingerprint, k.status, k.headers, k.body`,
  );
  if (row.status === null) return { claimed: true };
  return { claimed: false, fingerprint: row.fingerprint, answer: { status: row.status, headers: row.headers ?? {}, body: row.body } };
}

/** Stores the answer of a claimed key, in the request's transaction (its last statement before COMMIT). */
export async function storeAnswer(trx: Knex.Transaction, request: KeyedRequest, answer: StoredAnswer): Promise<void> {
  await inTransaction(
    trx,
    sql`update idempotency_keys set status = ${answer.status}::smallint, headers = ${JSON.stringify(answer.headers)}::jsonb,
               body = ${answer.body === undefined ? null : JSON.stringify(answer.body)}::jsonb
         where scope = ${request.scope} and operation = ${request.operation} and key = ${request.key}`,
  );
}

/** Gives up a claimed key in the request's transaction (an answer that is not kept, whose writes are committed anyway). */
export async function releaseKey(trx: Knex.Transaction, request: KeyedRequest): Promise<void> {
  await inTransaction(trx, sql`delete from idempotency_keys where scope = ${request.scope} and operation = ${request.operation} and key = ${request.key}`);
}

/** Housekeeping: deletes keys past their lifetime, at most `batch` of them; how many. */
export async function deleteExpiredKeys(db: Knex, now: Date, batch: number): Promise<number> {
  const cutoff = new Date(now.getTime() - KEY_LIFETIME_MS);
  const result = (await db.raw(
    ...knexRaw(
      sql`delete from idempotency_keys where (scope, operation, key) in (
            select scope, operation, key from idempotency_keys where created_at <= ${cutoff}::timestamptz limit ${batch})`,
    ),
  )) as { rowCount: number | null };
  return result.rowCount ?? 0;
}

/**
 * The token and revocation endpoints' budgets (docs/security.md, "Token endpoint limits and the
 * refresh leeway"), counted in the shared `rate_limits` table with atomic upserts, so they are
 * exact across requests and instances (the same counting as quota.ts, under keys of their own):
 *
 * - per client: every request of an authenticated client (generous: one app serves many people);
 * - per grant: refreshes of one grant (a refresh token hammered), counted in the refresh's own
 *   transaction, after the row lock;
 * - per address: failed client authentications only (guessing client secrets). Once spent, every
 *   request from the address is refused until the window ends, a correct secret too, so guessing
 *   learns nothing past the budget.
 *
 * A code needs no budget: it is exchanged once (any failed exchange by its client burns it).
 */
import type { Knex } from 'knex';
import { knexRaw, sql } from '../../db/sql';
import type { QuotaCount } from './quota';

/** How many in how long. */
export interface Budget {
  limit: number;
  windowMs: number;
}

export interface TokenBudgets {
  perClient: Budget;
  perGrant: Budget;
  failuresPerAddress: Budget;
}

const PREFIX = 'oauth';
const clientKey = (clientPk: number) => `${PREFIX}:client:${clientPk}`;
const grantKey = (grantId: string) => `${PREFIX}:grant:${grantId}`;
const failureKey = (address: string) => `${PREFIX}:client-auth-failures:${address}`;

async function run<R>(db: Knex | Knex.Transaction, statement: ReturnType<typeof sql>): Promise<R[]> {
  return ((await db.raw(...knexRaw(statement))) as { rows: R[] }).rows;
}

/** Counts one under `key` (a window that has ended starts again at 1). */
function countOne(key: string, budget: Budget, nowMs: number) {
  return sql`insert into rate_limits (key, points, expire) values (${key}, 1, ${nowMs + budget.windowMs}::bigint)
    on conflict (key) do update set
      points = case when rate_limits.expire <= ${nowMs}::bigint then 1 else rate_limits.points + 1 end,
      expire = case when rate_limits.expire <= ${nowMs}::bigint then excluded.expire else rate_limits.expire end
    returning points, expire`;
}

const toCount = (row: { points: number | string; expire: number | string }): QuotaCount => ({ points: Number(row.points), expire: Number(row.expire) });

/** Counts one refresh of a grant, in the refresh's transaction. */
export async function countGrantRefresh(trx: Knex.Transaction, grantId: string, budget: Budget, nowMs: number): Promise<QuotaCount> {
  const [row] = await run<{ points: string; expire: string }>(trx, countOne(grantKey(grantId), budget, nowMs));
  return toCount(row);
}

/**
 * Counts a failed client authentication from `address`, unless the address's budget is already
 * spent (the condition is part of the upsert, so parallel failures never count past it). Answers
 * when the spent budget's window ends, or undefined when this failure was within the budget.
 */
export async function recordClientAuthFailure(db: Knex, address: string, budget: Budget, nowMs: number): Promise<number | undefined> {
  const key = failureKey(address);
  const counted = await run(
    db,
    sql`insert into rate_limits (key, points, expire) values (${key}, 1, ${nowMs + budget.windowMs}::bigint)
      on conflict (key) do update set
        points = case when rate_limits.expire <= ${nowMs}::bigint then 1 else rate_limits.points + 1 end,
        expire = case when rate_limits.expire <= ${nowMs}::bigint then excluded.expire else rate_limits.expire end
      where rate_limits.expire <= ${nowMs}::bigint or rate_limits.points < ${budget.limit}::integer
      returning points`,
  );
  if (counted.length > 0) return undefined;
  const [spent] = await run<{ expire: string }>(db, sql`select expire from rate_limits where key = ${key}`);
  return spent ? Number(spent.expire) : nowMs + budget.windowMs;
}

/**
 * For an authenticated client: whether its address's failure budget is spent (then nothing is
 * counted: `spentUntil`), else its request counted under the client. One statement.
 */
export async function countClientRequest(
  db: Knex,
  clientPk: number,
  address: string,
  budgets: Pick<TokenBudgets, 'perClient' | 'failuresPerAddress'>,
  nowMs: number,
): Promise<{ spentUntil: number } | { count: QuotaCount }> {
  const { perClient, failuresPerAddress } = budgets;
  const [row] = await run<{ spent_until: string | null; points: string | null; expire: string | null }>(
    db,
    sql`with spent as (
        select expire from rate_limits
        where key = ${failureKey(address)} and expire > ${nowMs}::bigint and points >= ${failuresPerAddress.limit}::integer
      ), counted as (
        insert into rate_limits (key, points, expire)
        select ${clientKey(clientPk)}, 1, ${nowMs + perClient.windowMs}::bigint where not exists (select 1 from spent)
        on conflict (key) do update set
          points = case when rate_limits.expire <= ${nowMs}::bigint then 1 else rate_limits.points + 1 end,
          expire = case when rate_limits.expire <= ${nowMs}::bigint then excluded.expire else rate_limits.expire end
        returning points, expire
      )
      select (select expire from spent limit 1) as spent_until, counted.points, counted.expire
      from (select 1) as one left join counted on true`,
  );
  if (row.spent_until !== null) return { spentUntil: Number(row.spent_until) };
  return { count: toCount({ points: row.points!, expire: row.expire! }) };
}

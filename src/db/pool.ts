/**
 * The connection pool of a database: pg's own (pg-pool), one per Knex instance, shared by knex
 * (handed to it as its `connectionPool`) and by `rows` (db/sql.ts), which takes its connections
 * from it directly. pg-pool hands a released connection to the oldest waiting request inside the
 * release itself, so a waiting statement is sent before the releasing request goes on with its
 * answer; knex's own pool (tarn) handed it over through a pending operation, a timer and a chain of
 * promises per acquire (docs/request-path.md, "Issue 35, sixth stop").
 */
import { Client, Pool, type ClientConfig, type PoolClient } from 'pg';

/** The pool's size and time limits (0: no limit), from createKnex's options (db/knex.ts). */
export interface PoolSettings {
  min: number;
  max: number;
  /** Opening a connection: TCP, start-up and authentication. */
  connectMs: number;
  /** Waiting for a free connection (and for a new one to open, at most). */
  acquireMs: number;
  /** The server's statement_timeout. */
  statementMs: number;
}

/** How long a connection above `min` stays open unused: knex's own pool's 30 s, kept. */
const IDLE_MS = 30_000;

/** What a pooled connection carries besides pg's client (knex reads and writes these names). */
export interface PoolConnection extends PoolClient {
  /** Why the connection cannot be used again (a connection error, its end): released, it is closed. */
  __knex__disposed?: unknown;
}

const pools = new WeakMap<object, Pool>();

/**
 * A pool of connections to `databaseUrl`. Every connection keeps an error listener for its whole
 * life: pg-pool listens only while a connection is idle, and an error event nobody listens to
 * would end the process; a connection that failed is marked, and closed when it is released. An
 * idle connection that fails is closed by pg-pool, which then reports it on the pool: nothing is
 * lost (no request held it), and the next request opens a new one, so that report is only noted.
 */
export function createPool(databaseUrl: string, settings: PoolSettings): Pool {
  const connectMs = settings.connectMs;
  // pg-pool's one limit (`connectionTimeoutMillis`) bounds both the wait for a free connection
  // and the opening of a new one, and is handed on to each client as its connect limit: a client
  // class of the pool's own gives each connection the connect limit instead.
  class LimitedClient extends Client {
    constructor(config?: ClientConfig) {
      super({ ...config, connectionTimeoutMillis: connectMs > 0 ? connectMs : undefined });
    }
  }
  const pool = new Pool({
    connectionString: databaseUrl,
    Client: LimitedClient,
    min: settings.min,
    max: settings.max,
    idleTimeoutMillis: IDLE_MS,
    ...(settings.acquireMs > 0 ? { connectionTimeoutMillis: settings.acquireMs } : {}),
    ...(settings.statementMs > 0 ? { statement_timeout: settings.statementMs } : {}),
    // Idle pooled connections to a vanished server are noticed (and replaced) instead of being handed out.
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
  });
  pool.on('connect', (client: PoolConnection) => {
    client.on('error', (error: Error) => (client.__knex__disposed = error));
    client.on('end', () => (client.__knex__disposed ??= 'The connection ended.'));
  });
  pool.on('error', () => undefined); // an idle connection failed: pg-pool has closed it already
  return pool;
}

/** Notes that `owner` (a knex client) takes its connections from `pool`. */
export function ownPool(owner: object, pool: Pool): void {
  pools.set(owner, pool);
}

/** The pool a knex client takes its connections from; undefined for a transaction's client (it holds one connection). */
export function poolOf(owner: object): Pool | undefined {
  return pools.get(owner);
}

/** Closes the pool once every lent connection is back. */
export async function endPool(owner: object): Promise<void> {
  const pool = pools.get(owner);
  if (!pool || pool.ending) return;
  await pool.end();
}

/** The pool's connections by state, for the metrics: lent out, idle, and requests waiting for one. */
export function poolCounts(owner: object): { used: number; free: number; pending: number } | undefined {
  const pool = pools.get(owner);
  if (!pool || pool.ending) return undefined;
  return { used: pool.totalCount - pool.idleCount, free: pool.idleCount, pending: pool.waitingCount };
}

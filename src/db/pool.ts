/**
 * The connection pool of a database: pg's own (pg-pool), one per Knex instance, shared by knex
 * (handed to it as its `connectionPool`) and by `rows` (db/sql.ts), which takes its connections
 * from it directly. pg-pool hands a released connection to the oldest waiting request inside the
 * release itself, so a waiting statement is sent before the releasing request goes on with its
 * answer; knex's own pool (tarn) handed it over through a pending operation, a timer and a chain of
 * promises per acquire (docs/request-path.md, "Issue 35, sixth stop").
 */
import { setTimeout as delay } from 'node:timers/promises';
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

/** The pool of each knex client (`ownPool`), and the connections of each pool (`createPool`). */
const owners = new WeakMap<object, Pool>();
const pools = new WeakMap<Pool, ConnectionTracker>();

/**
 * A pool of connections to `databaseUrl`. Every connection keeps an error listener for its whole
 * life: pg-pool listens only while a connection is idle, and an error event nobody listens to
 * would end the process; a connection that failed is marked, and closed when it is released. An
 * idle connection that fails is closed by pg-pool, which then reports it on the pool: nothing is
 * lost (no request held it), and the next request opens a new one, so that report is dropped.
 */
export function createPool(databaseUrl: string, settings: PoolSettings): Pool {
  // pg-pool's one limit (`connectionTimeoutMillis`) bounds both the wait for a free connection
  // and the opening of a new one, and is handed on to each client as its connect limit: the
  // pool's client class gives each connection the connect limit instead.
  const tracker = trackConnections(settings.connectMs);
  const pool = new Pool({
    connectionString: databaseUrl,
    Client: tracker.Client,
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
  pools.set(pool, tracker);
  return pool;
}

/** How long `endPool` waits for the connections to end, at most (a server that does not answer: the stop goes on). */
const END_WAIT_MS = 5000;

/** The connections of a pool's client class, from their creation to their end (`trackConnections`). */
export interface ConnectionTracker {
  /** The pg client class to give a pool (its `Client` option). */
  readonly Client: typeof Client;
  /** Resolves once every connection made so far has ended, or after `limitMs`. */
  ended(limitMs?: number): Promise<void>;
}

/**
 * A pg client class whose connections are noted until they end, and a wait for their end.
 * pg-pool's `end()` resolves once it has asked its connections to close, not once they have: a
 * caller that stops PostgreSQL next (the embedded server's stop) would cut connections still
 * saying goodbye, and their pool would report the server's "terminating connection" (57P01) as
 * an error. `connectMs`: each connection's connect limit, in place of the pool's (see createPool).
 */
export function trackConnections(connectMs?: number): ConnectionTracker {
  const open = new Set<Client>();
  class TrackedClient extends Client {
    constructor(config?: ClientConfig) {
      super(connectMs === undefined ? config : { ...config, connectionTimeoutMillis: connectMs > 0 ? connectMs : undefined });
      open.add(this);
      this.once('end', () => open.delete(this));
    }
  }
  return {
    Client: TrackedClient,
    async ended(limitMs = END_WAIT_MS) {
      if (open.size === 0) return;
      const ends = [...open].map((client) => new Promise((resolve) => client.once('end', resolve)));
      await Promise.race([Promise.all(ends), delay(limitMs, undefined, { ref: false })]);
    },
  };
}

/** Notes that `owner` (a knex client) takes its connections from `pool`. */
export function ownPool(owner: object, pool: Pool): void {
  owners.set(owner, pool);
}

/** The pool a knex client takes its connections from; undefined for a transaction's client (it holds one connection). */
export function poolOf(owner: object): Pool | undefined {
  return owners.get(owner);
}

/** Closes the pool once every lent connection is back, and waits for its connections to end. */
export async function endPool(owner: object): Promise<void> {
  const pool = owners.get(owner);
  if (!pool || pool.ending) return;
  await pool.end();
  await pools.get(pool)?.ended();
}

/** The pool's connections by state, for the metrics: lent out, idle, and requests waiting for one. */
export function poolCounts(owner: object): { used: number; free: number; pending: number } | undefined {
  const pool = owners.get(owner);
  if (!pool || pool.ending) return undefined;
  return { used: pool.totalCount - pool.idleCount, free: pool.idleCount, pending: pool.waitingCount };
}

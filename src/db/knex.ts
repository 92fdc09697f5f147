/**
 * The Knex instance, and the pg type parsers every query relies on.
 */
import knexFactory, { type Knex } from 'knex';
import { types } from 'pg';
import { createPool, endPool, ownPool } from './pool';
import { mayName, statementName, withAnswerDeadline, type PooledConnection } from './sql';

// Set once at module load: pg's parsers are process-wide.
// Dates in this API are plain local YYYY-mm-dd strings end to end; pg's default turns `date` into a
// Date at midnight in the server's zone, which shifts the day for anyone not on UTC.
// (Array OIDs are missing from pg-types' TypeId enum, hence the casts.)
const DATE_OID = types.builtins.DATE;
const DATE_ARRAY_OID = 1182 as typeof types.builtins.DATE;
const TEXT_ARRAY_OID = 1009 as typeof types.builtins.TEXT;
// int8 (bigserial ids, count(*)) as JS numbers: ids and counts here stay far below 2^53.
const INT8_OID = types.builtins.INT8;
const INT8_ARRAY_OID = 1016 as typeof types.builtins.INT8;
const INT4_ARRAY_OID = 1007 as typeof types.builtins.INT4;

types.setTypeParser(DATE_OID, (value: string) => value);
types.setTypeParser(DATE_ARRAY_OID, types.getTypeParser(TEXT_ARRAY_OID));
types.setTypeParser(INT8_OID, (value: string) => Number(value));
types.setTypeParser(INT8_ARRAY_OID, types.getTypeParser(INT4_ARRAY_OID));

/**
 * How long the service waits for the database before it gives up, so that a stopped or unreachable
 * Postgres is answered with 503 in seconds instead of hanging requests (pg's connect has no limit
 * of its own, nor has pg-pool's wait for a free connection, and a query on a connection whose server
 * went silent waits for TCP to give up, which takes many minutes). 0 means no limit.
 */
export interface DatabaseTimeouts {
  /** Opening a connection: TCP, start-up and authentication. */
  connectMs: number;
  /** Waiting for a free connection of the pool (a new one included: it must open within this too). */
  acquireMs: number;
  /** The server's statement_timeout: it cancels a statement running longer (error 57014). */
  statementMs: number;
  /**
   * A query the server has not answered at all after this long: the connection is dropped (the
   * pool opens a new one) and the query fails. Keep it above `statementMs`, so that a server that
   * is there always answers first.
   */
  unansweredMs: number;
}

/**
 * Used for what a caller leaves out: pg's own behaviour (no connect limit), and 60 s to wait for a
 * pooled connection (knex's own pool's limit, kept). The service passes its settings (config.ts,
 * DB_*_TIMEOUT_MS).
 */
export const DEFAULT_TIMEOUTS: DatabaseTimeouts = { connectMs: 0, acquireMs: 60_000, statementMs: 0, unansweredMs: 0 };

/** Pool settings (min 2 and max 10 otherwise, knex's own defaults, kept) and time limits. */
export interface CreateKnexOptions {
  pool?: { min: number; max: number };
  timeouts?: Partial<DatabaseTimeouts>;
}

/**
 * A Knex instance on Postgres at `databaseUrl` (postgres://user:pass@host:port/db), on a pool of
 * its own (db/pool.ts), closed by its `destroy`.
 * Keep the pool max at 2 or more: `migrateLatest` holds one connection for its lock.
 */
export function createKnex(databaseUrl: string, opts: CreateKnexOptions = {}): Knex {
  const timeouts = { ...DEFAULT_TIMEOUTS, ...opts.timeouts };
  const { min, max } = opts.pool ?? { min: 2, max: 10 };
  const pool = createPool(databaseUrl, { min, max, connectMs: timeouts.connectMs, acquireMs: timeouts.acquireMs, statementMs: timeouts.statementMs });
  const knex = knexFactory({
    client: PreparingPgClient as unknown as typeof Knex.Client,
    connectionPool: pool,
    unansweredQueryMs: timeouts.unansweredMs,
  } as Knex.Config);
  ownPool(knex.client, pool);
  return knex;
}

/** Marks a knex query to run as a named prepared statement (see sql.ts). */
export { PREPARED } from './sql';

interface QueryObject {
  sql?: string;
  bindings?: unknown[];
  options?: Record<string, unknown>;
}
type PgClientClass = new (config: Knex.Config) => Knex.Client & {
  config: Knex.Config & { unansweredQueryMs?: number };
  _query(connection: PooledConnection, obj: QueryObject): Promise<unknown>;
  destroy(callback?: () => void): Promise<void>;
};

// Knex's own PostgreSQL client (the class behind `client: 'pg'`); its module has no type declarations.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const PgClient = require('knex/lib/dialects/postgres') as PgClientClass;

/**
 * Knex's pg client passes a query's `options` on to pg's query config, where a `name` makes a
 * prepared statement. This client names the statements marked PREPARED after a hash of their
 * text, so the same text always has the same name, and leaves every other statement as it was.
 * (Statements without parameters go over pg's simple protocol, which allows several statements in
 * one string; they are never named.) A subclass rather than a patched instance, because knex
 * builds each transaction's client from the class's prototype.
 */
class PreparingPgClient extends PgClient {
  override _query(connection: PooledConnection, obj: QueryObject): Promise<unknown> {
    if (obj.options?.prepare) {
      const { prepare: _prepare, ...rest } = obj.options;
      obj.options = rest;
      if (obj.sql && obj.bindings && obj.bindings.length > 0) {
        const name = statementName(obj.sql);
        if (mayName(connection, name)) obj.options = { ...rest, name };
      }
    }
    return withAnswerDeadline(super._query(connection, obj), connection, this.config.unansweredQueryMs ?? 0);
  }

  /** Knex leaves a pool it was handed open (db/pool.ts): this instance's pool is its own, closed with it. */
  override async destroy(callback?: () => void): Promise<void> {
    await super.destroy();
    await endPool(this);
    callback?.();
  }
}

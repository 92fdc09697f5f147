/** What the app's parts need from the process: settings, the database, the log, the clock and the job queue. */
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Config } from './config';
import type { Database } from './db/database';
import type { Jobs } from './jobs/queues';
import type { Replicas } from './db/replicas';

export interface Deps {
  config: Config;
  db: Knex;
  /**
   * The pool as the domain's Database (src/db/database.ts), for the functions that serve API reads
   * and value writes when no request is behind them (pages, jobs); an API request's handler uses
   * the request's own, `ctx.state.db`, which may carry the request's credentials check.
   */
  database: Database;
  logger: Logger;
  /** The streaming replicas of DATABASE_REPLICA_URLS, when set: the heavy person-data reads go there (src/db/replicas.ts). */
  replicas?: Replicas;
  /** Server secret for derived credentials (simple tokens). */
  secretKey: string;
  /** The clock; tests replace it to check expiries. */
  now: () => Date;
  /** The job queue, when this process runs the job workers (WORKERS=1); the metrics report its sizes. */
  jobs?: Jobs;
}

/** Where the person's heavy reads run outside an API request (pages, jobs): a usable replica (src/db/replicas.ts), else the pool. */
export function personDatabase(deps: Pick<Deps, 'database' | 'replicas'>, userId: number): Database {
  return deps.replicas?.databaseFor(userId) ?? deps.database;
}

/**
 * The query builder for a person's heavy reads made with knex (v1 values, averages, insights): a
 * usable replica holding every write of the person (one round trip to ask both marks), else the pool.
 */
export async function personKnex(deps: Pick<Deps, 'db' | 'replicas'>, userId: number): Promise<Knex> {
  return deps.replicas ? deps.replicas.knexFor(userId) : deps.db;
}

/**
 * The Knex instance, and the pg type parsers every query relies on.
 */
import crypto from 'node:crypto';
import knexFactory, { type Knex } from 'knex';
import { types } from 'pg';

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
 * of its own, knex waits 60 s for a pooled connection, and a query on a connection whose server
 * went silent waits for TCP to give up, which takes many minutes). 0 means no limit.
 */
export interface DatabaseTimeouts {
  /** Opening a connection: TCP, start-up and authentication. */
  connectMs: number;
  /** Waiting for a free connection of the pool. */
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
 * Used for what a caller leaves out: pg's and knex's own behaviour (no connect limit, 60 s to wait
 * for a pooled connection). The service passes its settings (config.ts, DB_*_TIMEOUT_MS).
 */
export const DEFAULT_TIMEOUTS: DatabaseTimeouts = { connectMs: 0, acquireMs: 60_000, statementMs: 0, unansweredMs: 0 };

/** Pool settings (knex's defaults, min 2 and max 10, otherwise) and time limits. */
export interface CreateKnexOptions {
  pool?: { min: number; max: number };
  timeouts?: Partial<DatabaseTimeouts>;
}

/**
 * A Knex instance on Postgres at `databaseUrl` (postgres://user:pass@host:port/db).
 * Keep the pool max at 2 or more: `migrateLatest` holds one connection for its lock.
 */
export function createKnex(databaseUrl: string, opts: CreateKnexOptions = {}): Knex {
  const timeouts = { ...DEFAULT_TIMEOUTS, ...opts.timeouts };
  return knexFactory({
    client: PreparingPgClient as unknown as typeof Knex.Client,
    connection: {
      connectionString: databaseUrl,
      ...(timeouts.connectMs > 0 ? { connectionTimeoutMillis: timeouts.connectMs } : {}),
      ...(timeouts.statementMs > 0 ? { statement_timeout: timeouts.statementMs } : {}),
      // Idle pooled connections to a vanished server are noticed (and replaced) instead of being handed out.
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
    },
    acquireConnectionTimeout: timeouts.acquireMs,
    unansweredQueryMs: timeouts.unansweredMs,
    ...(opts.pool ? { pool: opts.pool } : {}),
  } as Knex.Config);
}

/**
 * `query.options(PREPARED)`: run the statement as a named prepared statement, so PostgreSQL parses
 * and plans it once per connection instead of on every request (for the list queries of the API
 * that was a third to a half of their database time). Use it only on hot statements whose text
 * is fixed by the code (parameters vary, the SQL does not) and that name their columns (no
 * `select *` / `returning *`, whose cached plan a later migration could invalidate).
 */
export const PREPARED: Readonly<{ prepare: true }> = { prepare: true };

/** Named statements one connection keeps at most (each costs the server some memory); beyond it, statements run unnamed. */
const MAX_PREPARED_PER_CONNECTION = 200;

/** Statement names by SQL text, so a hot statement's text is hashed once per process, not per request. */
const statementNames = new Map<string, string>();
/** Distinct texts named at most (the PREPARED texts are fixed by the code: a few dozen). */
const MAX_NAMED_TEXTS = 1000;

function statementName(sql: string): string {
  let name = statementNames.get(sql);
  if (name === undefined) {
    name = `daybook_${crypto.createHash('sha1').update(sql).digest('base64url')}`;
    if (statementNames.size < MAX_NAMED_TEXTS) statementNames.set(sql, name);
  }
  return name;
}

interface PgConnection {
  connection?: { parsedStatements?: Record<string, string>; stream?: { destroy(): void } };
  /** Set by knex's pg dialect when the connection failed: the pool then discards it. */
  __knex__disposed?: unknown;
}
interface QueryObject {
  sql?: string;
  bindings?: unknown[];
  options?: Record<string, unknown>;
}
type PgClientClass = new (config: Knex.Config) => Knex.Client & {
  config: Knex.Config & { unansweredQueryMs?: number };
  _query(connection: PgConnection, obj: QueryObject): Promise<unknown>;
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
  override _query(connection: PgConnection, obj: QueryObject): Promise<unknown> {
    if (obj.options?.prepare) {
      const { prepare: _prepare, ...rest } = obj.options;
      obj.options = rest;
      if (obj.sql && obj.bindings && obj.bindings.length > 0) {
        const name = statementName(obj.sql);
        const prepared = connection.connection?.parsedStatements ?? {};
        if (name in prepared || Object.keys(prepared).length < MAX_PREPARED_PER_CONNECTION) obj.options = { ...rest, name };
      }
    }
    return withAnswerDeadline(super._query(connection, obj), connection, this.config.unansweredQueryMs ?? 0);
  }
}

/**
 * Fails a query the server has not answered within `limitMs` and drops its connection. pg's own
 * query_timeout is not used: it leaves the unanswered query on the connection, which then goes
 * back to the pool and stalls every later query on it.
 */
function withAnswerDeadline(query: Promise<unknown>, connection: PgConnection, limitMs: number): Promise<unknown> {
  if (!(limitMs > 0)) return query;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      const error = Object.assign(new Error(`The database did not answer within ${limitMs} ms; the connection was dropped.`), { code: 'ETIMEDOUT' });
      connection.__knex__disposed = error;
      connection.connection?.stream?.destroy();
      reject(error);
    }, limitMs);
  });
  return Promise.race([query, deadline]).finally(() => clearTimeout(timer));
}

/**
 * A JS array bound as ONE PostgreSQL array parameter (write `?::bigint[]`, `?::date[]`…): pg turns
 * it into an array literal, nulls included. Knex's types only know arrays of strings or numbers.
 */
export function sqlArray(values: ReadonlyArray<string | number | boolean | null>): Knex.Value {
  return values as unknown as Knex.Value;
}

/** The part of knex's client hotQuery uses (public methods of knex's Client, untyped by knex). */
interface QueryingClient {
  acquireConnection(): Promise<HotConnection>;
  releaseConnection(connection: unknown): Promise<unknown>;
  positionBindings(sql: string): string;
  config: { unansweredQueryMs?: number };
  emit(event: string, ...args: unknown[]): boolean;
}
/** A pooled pg connection as knex hands it out. */
type HotConnection = PgConnection & {
  __knexUid?: string;
  query(config: { name?: string; text: string; values: readonly unknown[] }): Promise<{ rows: unknown[] }>;
};

/** Hot statement texts with `?` placeholders turned into PostgreSQL's `$1, $2…`, once per text. */
const positionalTexts = new Map<string, string>();

/**
 * Runs one hot statement of fixed text on a pooled connection, straight on pg: the same `?`
 * bindings, named prepared statement, answer deadline and 'query' event as
 * `db.raw(sql, bindings).options(PREPARED)`, without what knex does around each statement (a
 * query runner and a raw-query object, the `?` to `$n` rewrite by regular expression, a copy of
 * the query config): together about a tenth of a cheap request's own CPU in the bench's profiles
 * (docs/request-path.md). It takes a connection of its own: never use it for a statement of a
 * transaction.
 */
export async function hotQuery<R>(db: Knex, sql: string, bindings: readonly unknown[]): Promise<R[]> {
  const client = db.client as unknown as QueryingClient;
  let text = positionalTexts.get(sql);
  if (text === undefined) {
    text = client.positionBindings(sql);
    if (positionalTexts.size < MAX_NAMED_TEXTS) positionalTexts.set(sql, text);
  }
  const connection = await client.acquireConnection();
  try {
    // Statement counters (tests) listen for knex's 'query' event; nobody listens in production.
    if (db.listenerCount('query') > 0) client.emit('query', { __knexUid: connection.__knexUid, method: 'raw', sql, bindings });
    const name = statementName(sql);
    const prepared = connection.connection?.parsedStatements ?? {};
    const named = bindings.length > 0 && (name in prepared || Object.keys(prepared).length < MAX_PREPARED_PER_CONNECTION);
    const result = (await withAnswerDeadline(
      connection.query(named ? { name, text, values: bindings } : { text, values: bindings }),
      connection,
      client.config.unansweredQueryMs ?? 0,
    )) as { rows: R[] };
    return result.rows;
  } finally {
    await client.releaseConnection(connection);
  }
}

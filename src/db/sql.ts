/**
 * The statement layer (docs/statements.md): the one way Daybook writes SQL.
 *
 * A statement is a tagged template, `sql\`select … where a.user_id = ${userId}\``: every value is
 * bound where it appears, and a value that is itself a statement (a fragment) is spliced in with
 * its own values, so a rule written once as a fragment (a live token, the list order, …) is used
 * wherever it applies, with no positional binding lists to keep in order by hand. The templates
 * (sql-template.ts) compile each shape of statement once, to a `$n` text for pg and a `?` text for
 * knex; this module says how Daybook runs them:
 *
 * - `rows(db, statement)`: a hot statement, straight on a pooled pg connection, as a named prepared
 *   statement (parsed and planned once per connection; its name is a hash of its `$n` text,
 *   computed once per shape).
 * - `fragment(db, statement)` and `knexRaw(statement)`: the same SQL as a knex raw fragment, inside a
 *   query-builder query where the builder is clearer (`query.whereRaw`, columns, transactions).
 */
import type { Knex } from 'knex';
import type { Sql } from './sql-template';

export { empty, join, raw, sql, statementName, type Sql } from './sql-template';

/** The statement as knex's raw arguments (`?` text, values), for `query.whereRaw(...knexRaw(statement))` and the like. */
export function knexRaw(statement: Sql): [string, Knex.RawBinding[]] {
  return [statement.sql, statement.values as Knex.RawBinding[]];
}

/** The statement as a knex raw fragment (`?` placeholders), for use inside a knex query (a column, a join condition). */
export function fragment(db: Knex, statement: Sql): Knex.Raw {
  return db.raw(...knexRaw(statement));
}

/**
 * `query.options(PREPARED)`: run a knex statement as a named prepared statement (db/knex.ts names
 * it after a hash of its text), so PostgreSQL parses and plans it once per connection. Only for
 * statements whose text is fixed by the code's shape (values vary, the text does not) and that
 * name their columns (no `select *` / `returning *`, whose cached plan a migration could invalidate).
 */
export const PREPARED: Readonly<{ prepare: true }> = { prepare: true };

/** Runs one statement of a transaction (knex's `trx`), as a named prepared statement; its rows. */
export async function inTransaction<R>(trx: Knex.Transaction, statement: Sql): Promise<R[]> {
  const result = (await trx.raw(...knexRaw(statement)).options(PREPARED)) as { rows: R[] };
  return result.rows;
}

/** Named statements one connection keeps at most (each costs the server some memory); beyond it, statements run unnamed. */
const MAX_PREPARED_PER_CONNECTION = 200;
/** The part of knex's client `rows` uses (public methods of knex's Client, untyped by knex). */
interface QueryingClient {
  acquireConnection(): Promise<PooledConnection>;
  releaseConnection(connection: unknown): Promise<unknown>;
  config: { unansweredQueryMs?: number };
  emit(event: string, ...args: unknown[]): boolean;
}

/** A pooled pg connection as knex hands it out. */
export interface PooledConnection {
  connection?: { parsedStatements?: Record<string, string>; stream?: { destroy(): void } };
  /** Set by knex's pg dialect when the connection failed: the pool then discards it. */
  __knex__disposed?: unknown;
  __knexUid?: string;
  query(config: { name?: string; text: string; values: readonly unknown[] }): Promise<{ rows: unknown[] }>;
}

/** Whether a statement with values may be named on this connection (it is already, or there is room). */
export function mayName(connection: PooledConnection, name: string): boolean {
  const prepared = connection.connection?.parsedStatements ?? {};
  return name in prepared || Object.keys(prepared).length < MAX_PREPARED_PER_CONNECTION;
}

/**
 * Fails a query the server has not answered within `limitMs` and drops its connection. pg's own
 * query_timeout is not used: it leaves the unanswered query on the connection, which then goes
 * back to the pool and stalls every later query on it.
 */
export function withAnswerDeadline<T>(query: Promise<T>, connection: PooledConnection, limitMs: number): Promise<T> {
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
 * Runs one statement on a pooled connection, straight on pg, as a named prepared statement: the
 * answer deadline and the 'query' event of knex's own queries, without what knex does around each
 * statement (a query runner and a raw-query object, a `?` to `$n` rewrite by regular expression, a
 * copy of the query config): together about a tenth of a cheap request's own CPU in the bench's
 * profiles (docs/request-path.md). It takes a connection of its own: never use it for a statement
 * of a transaction (use `trx.raw(…)` with `fragment` there).
 */
export async function rows<R>(db: Knex, statement: Sql): Promise<R[]> {
  const client = db.client as unknown as QueryingClient;
  const { text, values } = statement;
  const connection = await client.acquireConnection();
  try {
    // Statement counters (tests) listen for knex's 'query' event; nobody listens in production. A
    // transaction's client passes the event on to the pool's, where the listeners are.
    if (db.listenerCount('query') > 0 || db.isTransaction)
      client.emit('query', { __knexUid: connection.__knexUid, method: 'raw', sql: text, bindings: values });
    const name = statement.name;
    const named = values.length > 0 && mayName(connection, name);
    const result = await withAnswerDeadline(
      connection.query(named ? { name, text, values } : { text, values }),
      connection,
      client.config.unansweredQueryMs ?? 0,
    );
    return result.rows as R[];
  } finally {
    await client.releaseConnection(connection);
  }
}

/** A connection's own query function: a pg client the caller holds (inside its transaction, say). */
export interface QueryFunction {
  query<R extends object = Record<string, unknown>>(text: string, values?: unknown[]): Promise<{ rows: R[] }>;
}

/** Runs one statement on a connection the caller holds; its rows. */
export async function rowsOn<R extends object>(client: QueryFunction, statement: Sql): Promise<R[]> {
  return (await client.query<R>(statement.text, statement.values as unknown[])).rows;
}

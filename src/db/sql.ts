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
import { Query, type Pool, type QueryArrayConfig } from 'pg';
import { poolOf, type PoolConnection } from './pool';
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
  /** pg's form for a query object it runs as given (`submit`), answering its callback, not a promise. */
  query(query: Query): unknown;
}

/** Whether a statement with values may be named on this connection (it is already, or there is room). */
export function mayName(connection: PooledConnection, name: string): boolean {
  const prepared = connection.connection?.parsedStatements ?? {};
  return name in prepared || Object.keys(prepared).length < MAX_PREPARED_PER_CONNECTION;
}

/**
 * A statement waiting for its answer: when it must have one, how to fail it, and its neighbours in
 * its watch's list. Once answered (or failed) it is taken out of the list and lets go of all of
 * them, so an answered statement holds nothing of its request.
 */
interface Waiting {
  deadline: number;
  connection: PooledConnection | undefined;
  fail: ((error: Error) => void) | undefined;
  older: Waiting | undefined;
  newer: Waiting | undefined;
}

/**
 * The statements waiting for an answer under one limit, oldest first (the same limit for each, so
 * insertion order is deadline order), watched by ONE timer armed for the oldest: a statement costs
 * an entry linked in and out, where a timer of its own (setTimeout, a deadline promise, a race and
 * clearTimeout) cost 1.5-2.5 µs of CPU per statement and 0.8 % of an update's own CPU in the bench's
 * profile (docs/request-path.md, "Issue 35, second stop").
 *
 * A list of its own, not a Set: a Set that gains and loses an entry per statement rebuilds its
 * table every few statements, and V8 links each table it leaves to the next one. Once the garbage
 * collector has moved the Set's table to the old generation (any full collection does), each
 * abandoned table keeps the next one and the entries it held (their `fail`, and through it each
 * request's whole state) alive through the following young collections, which then copy and
 * promote about a tenth of everything the service allocates until the next full collection
 * (docs/request-path.md, "Issue 35, seventh stop"). An entry taken out of this list is unlinked and
 * emptied, so nothing that has died points at anything young.
 */
class AnswerWatch {
  private oldest: Waiting | undefined;
  private newest: Waiting | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly limitMs: number) {}

  add(connection: PooledConnection, fail: (error: Error) => void): Waiting {
    const entry: Waiting = { deadline: performance.now() + this.limitMs, connection, fail, older: this.newest, newer: undefined };
    if (this.newest) this.newest.newer = entry;
    else this.oldest = entry;
    this.newest = entry;
    if (!this.timer) this.arm(this.limitMs);
    return entry;
  }

  /** Ends the watch of a statement answered; false when the watch had failed it already. */
  remove(entry: Waiting): boolean {
    if (entry.fail === undefined) return false;
    this.unlink(entry);
    return true;
  }

  /** Takes `entry` out of the list and empties it. */
  private unlink(entry: Waiting): void {
    if (entry.older) entry.older.newer = entry.newer;
    else this.oldest = entry.newer;
    if (entry.newer) entry.newer.older = entry.older;
    else this.newest = entry.older;
    entry.older = entry.newer = undefined;
    entry.connection = undefined;
    entry.fail = undefined;
  }

  private arm(ms: number): void {
    // Unreferenced: a pending statement's socket keeps the process alive, the watch itself never does.
    this.timer = setTimeout(() => this.expire(), Math.max(1, Math.ceil(ms))).unref();
  }

  /** Fails every statement past its deadline, then waits for the oldest one left (none left: no timer). */
  private expire(): void {
    this.timer = undefined;
    const now = performance.now();
    for (let entry = this.oldest; entry; entry = this.oldest) {
      if (entry.deadline > now) return this.arm(entry.deadline - now);
      const { connection, fail } = entry;
      this.unlink(entry);
      const error = Object.assign(new Error(`The database did not answer within ${this.limitMs} ms; the connection was dropped.`), { code: 'ETIMEDOUT' });
      connection!.__knex__disposed = error;
      connection!.connection?.stream?.destroy();
      fail!(error);
    }
  }
}

const watches = new Map<number, AnswerWatch>();

/**
 * Fails a query the server has not answered within `limitMs` and drops its connection. pg's own
 * query_timeout is not used: it leaves the unanswered query on the connection, which then goes
 * back to the pool and stalls every later query on it. (The server's statement_timeout, set too,
 * cancels a statement that runs long; this is for a server that does not answer at all.)
 */
export function withAnswerDeadline<T>(query: Promise<T>, connection: PooledConnection, limitMs: number): Promise<T> {
  if (!(limitMs > 0)) return query;
  return new Promise<T>((resolve, reject) => {
    const settle = watched(connection, limitMs, reject);
    query.then(
      (answer) => {
        if (settle()) resolve(answer);
      },
      (error: unknown) => {
        if (settle()) reject(error as Error);
      },
    );
  });
}

/** Watches a statement for its answer when there is a limit; the returned function ends the watch (true: not failed by it). */
function watched(connection: PooledConnection, limitMs: number, fail: (error: Error) => void): () => boolean {
  if (!(limitMs > 0)) return () => true;
  let watch = watches.get(limitMs);
  if (!watch) watches.set(limitMs, (watch = new AnswerWatch(limitMs)));
  const entry = watch.add(connection, fail);
  const watching = watch;
  return () => watching.remove(entry);
}

/** A query config asking for rows as arrays: pg takes its row mode only from a config (which it copies: a few properties, once a statement). */
function arrayConfig(text: string, values: readonly unknown[]): QueryArrayConfig {
  return { text, values: values as unknown[], rowMode: 'array' };
}

/**
 * How `rows` hands out a statement's rows: pg's default is an object per row keyed by column name,
 * made by copying a prebuilt object of every column before filling it in (`parseRow`);
 * `ARRAY_ROWS` asks pg for an array per row, its values in the select list's order (pg's
 * `rowMode: 'array'`), for a hot read of many rows whose reader takes its columns by position
 * (named constants, never bare numbers; docs/request-path.md, "Issue 35, fifth stop").
 */
export interface RowShape {
  readonly rowMode: 'array';
}

/** The rows of a statement as arrays, in the select list's order (see RowShape). */
export const ARRAY_ROWS: RowShape = { rowMode: 'array' };

/**
 * Runs one statement on a pooled connection, straight on pg, as a named prepared statement: the
 * answer deadline and the 'query' event of knex's own queries, without what knex does around each
 * statement (a query runner and a raw-query object, a `?` to `$n` rewrite by regular expression, a
 * copy of the query config): together about a tenth of a cheap request's own CPU in the bench's
 * profiles (docs/request-path.md). On a transaction's knex it runs on the transaction's connection;
 * otherwise it takes a connection of its own from the pool (db/pool.ts). `shape`: ARRAY_ROWS for
 * rows as arrays (R is then the array's type).
 */
export async function rows<R>(db: Knex, statement: Sql, shape?: RowShape): Promise<R[]> {
  const client = db.client as unknown as QueryingClient;
  const pool = poolOf(client);
  const result = pool ? await onPooledConnection(pool, client, db, statement, shape) : await onKnexConnection(client, db, statement, shape);
  return result.rows as R[];
}

/**
 * The statement on a connection of the pool, taken and given back in pg-pool's callbacks, with no
 * promise between: a connection freed while requests wait is handed to the oldest inside its
 * release, and that request's statement is sent right then, before the releasing request goes on
 * with its answer (the baseline's `pool.query` does the same). The connection goes back as soon as
 * its answer is in; one that failed (or that the answer deadline dropped) is closed, not reused
 * (docs/request-path.md, "Issue 35, sixth stop").
 */
function onPooledConnection(pool: Pool, client: QueryingClient, db: Knex, statement: Sql, shape: RowShape | undefined): Promise<{ rows: unknown[] }> {
  return new Promise((resolve, reject) => {
    pool.connect((error, lent, giveBack) => {
      if (error || !lent) return reject(error ?? new Error('The pool lent no connection.'));
      const connection = lent as PoolConnection & PooledConnection;
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        giveBack(connection.__knex__disposed !== undefined); // true: pg-pool closes it (as it does one that is no longer queryable)
      };
      try {
        send(client, db, connection, statement, shape, (failure, answer) => {
          release();
          if (failure) reject(failure);
          else resolve(answer!);
        });
      } catch (thrown) {
        // A value pg cannot send, say: this runs inside another request's release, so nothing may escape.
        release();
        reject(thrown as Error);
      }
    });
  });
}

/** The statement on the connection knex lends: a transaction's own (given back by nobody here: knex does, at its end). */
async function onKnexConnection(client: QueryingClient, db: Knex, statement: Sql, shape: RowShape | undefined): Promise<{ rows: unknown[] }> {
  const connection = await client.acquireConnection();
  try {
    return await new Promise((resolve, reject) => {
      send(client, db, connection, statement, shape, (failure, answer) => (failure ? reject(failure) : resolve(answer!)));
    });
  } finally {
    void client.releaseConnection(connection);
  }
}

/**
 * Sends the statement on the connection, named when it may be (`mayName`), watched by the answer
 * deadline; `answered` runs once, with the answer or the failure (a statement the deadline failed
 * has its connection dropped: `AnswerWatch`).
 */
function send(
  client: QueryingClient,
  db: Knex,
  connection: PooledConnection,
  statement: Sql,
  shape: RowShape | undefined,
  answered: (error: Error | undefined, result: { rows: unknown[] } | undefined) => void,
): void {
  const { text, values } = statement;
  // Statement counters (tests) listen for knex's 'query' event; nobody listens in production. A
  // transaction's client passes the event on to the pool's, where the listeners are.
  if (db.listenerCount('query') > 0 || db.isTransaction) client.emit('query', { __knexUid: connection.__knexUid, method: 'raw', sql: text, bindings: values });
  const named = values.length > 0 && mayName(connection, statement.name);
  let settle = (): boolean => true;
  const callback = (error: Error | undefined, result: { rows: unknown[] }) => {
    if (!settle()) return; // failed already by the answer deadline
    answered(error ?? undefined, error ? undefined : result);
  };
  const sent = withArraysAsText(values);
  // pg's promise form copies the query's config property by property (`cloneQueryConfig`: 1 % of
  // an update's own CPU in the bench's profile) and chains a promise that rewrites each error's
  // stack; a query made from its text with a callback takes neither. Its name (a prepared
  // statement's) is set before pg reads it, at submit.
  const query = shape ? new Query(arrayConfig(text, sent), callback) : new Query(text, sent as unknown[], callback);
  if (named) (query as Query & { name?: string }).name = statement.name;
  settle = watched(connection, client.config.unansweredQueryMs ?? 0, (error) => answered(error, undefined));
  try {
    connection.query(query);
  } catch (thrown) {
    // Not sent: the watch ends here, so that it never drops a connection that is back in the pool.
    if (settle()) answered(thrown as Error, undefined);
  }
}

/**
 * The values as pg is to send them, arrays of plain elements already as the array literal pg would
 * write for them (`arrayText`); other values as they are, for pg.
 */
function withArraysAsText(values: readonly unknown[]): readonly unknown[] {
  let sent: unknown[] | undefined;
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    if (!Array.isArray(value)) continue;
    const text = arrayText(value);
    if (text === undefined) continue;
    sent ??= [...values];
    sent[i] = text;
  }
  return sent ?? values;
}

/**
 * The PostgreSQL array literal of an array of strings, numbers, booleans and nulls, character for
 * character the text pg's own conversion (`prepareValue`, `arrayString`) writes for it: `{` and `}`
 * around the elements separated by `,`, each element in double quotes with `\` and `"` escaped by
 * a backslash, a null (or undefined) as NULL. Undefined for an array holding anything else (a Date,
 * an object, a nested array), which is left to pg. pg runs two regular expressions over every
 * element and its whole conversion per element; the write statement passes a dozen arrays of 35
 * (docs/request-path.md, "Issue 35, third stop"). test/db/array-text.test.ts holds the two equal.
 *
 * An array with neither nulls nor a character to escape, the usual one (ids, dates, values), is
 * one `join` of its elements' texts instead of a quoted string and a concatenation per element:
 * about half the garbage and a quarter of the time for the bench's arrays of 35 (docs/request-path.md,
 * "Issue 35, eleventh stop").
 */
export function arrayText(array: readonly unknown[]): string | undefined {
  if (array.length === 0) return '{}';
  if (allPlain(array)) return `{"${array.join('","')}"}`;
  let text = '{';
  for (let i = 0; i < array.length; i++) {
    if (i > 0) text += ',';
    const element = array[i];
    if (element === null || element === undefined) {
      text += 'NULL';
      continue;
    }
    if (typeof element === 'string') text += `"${needsEscape(element) ? element.replace(/[\\"]/g, '\\$&') : element}"`;
    // A number's or a boolean's text (`String`, as pg's `toString`) has neither character to escape.
    else if (typeof element === 'number' || typeof element === 'boolean') text += `"${String(element)}"`;
    else return undefined;
  }
  return `${text}}`;
}

/** Does an array element's text hold a character its quoted form escapes (a backslash or a double quote)? */
const needsEscape = (text: string) => text.includes('\\') || text.includes('"');

/**
 * Is every element's quoted text its `join` text as it is: a number, a boolean, a string with
 * nothing to escape? (A loop, not `every`, which skips a sparse array's holes: a hole is a NULL.)
 */
function allPlain(array: readonly unknown[]): boolean {
  for (let i = 0; i < array.length; i++) {
    const element = array[i];
    if (typeof element === 'number' || typeof element === 'boolean') continue;
    if (typeof element !== 'string' || needsEscape(element)) return false;
  }
  return true;
}

/** A connection's own query function: a pg client the caller holds (inside its transaction, say). */
export interface QueryFunction {
  query<R extends object = Record<string, unknown>>(text: string, values?: unknown[]): Promise<{ rows: R[] }>;
}

/** Runs one statement on a connection the caller holds; its rows. */
export async function rowsOn<R extends object>(client: QueryFunction, statement: Sql): Promise<R[]> {
  return (await client.query<R>(statement.text, statement.values as unknown[])).rows;
}

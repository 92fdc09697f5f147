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

/** Pool settings; knex's defaults (min 2, max 10) otherwise. */
export interface CreateKnexOptions {
  pool?: { min: number; max: number };
}

/**
 * A Knex instance on Postgres at `databaseUrl` (postgres://user:pass@host:port/db).
 * Keep the pool max at 2 or more: `migrateLatest` holds one connection for its lock.
 */
export function createKnex(databaseUrl: string, opts: CreateKnexOptions = {}): Knex {
  return knexFactory({
    client: PreparingPgClient as unknown as typeof Knex.Client,
    connection: databaseUrl,
    ...(opts.pool ? { pool: opts.pool } : {}),
  });
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

interface PgConnection {
  connection?: { parsedStatements?: Record<string, string> };
}
interface QueryObject {
  sql?: string;
  bindings?: unknown[];
  options?: Record<string, unknown>;
}
type PgClientClass = new (config: Knex.Config) => Knex.Client & { _query(connection: PgConnection, obj: QueryObject): Promise<unknown> };

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
        const name = `daybook_${crypto.createHash('sha1').update(obj.sql).digest('base64url')}`;
        const prepared = connection.connection?.parsedStatements ?? {};
        if (name in prepared || Object.keys(prepared).length < MAX_PREPARED_PER_CONNECTION) obj.options = { ...rest, name };
      }
    }
    return super._query(connection, obj);
  }
}

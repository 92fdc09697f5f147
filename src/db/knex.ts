/**
 * The Knex instance, and the pg type parsers every query relies on.
 */
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
    client: 'pg',
    connection: databaseUrl,
    ...(opts.pool ? { pool: opts.pool } : {}),
  });
}

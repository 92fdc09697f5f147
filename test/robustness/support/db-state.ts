/**
 * What the database holds, to compare before and after a request: a digest of every table (one
 * query), and, for one person, their attributes, values, services and value changes row by row,
 * keyed so that a change can be traced to the batch item that made it.
 */
import type { Knex } from 'knex';

/**
 * Counters that every request moves by design: the rate limit counts, sign-in failures and sign-up
 * attempts, and the networks a sign-in proved the password from (renewed by every success).
 */
const SKIPPED_TABLES = new Set(['knex_migrations', 'knex_migrations_lock', 'rate_limits', 'throttle_events', 'sign_in_known_addresses']);
/** Columns that record use, not data: a token's "last used" minute, a session's "last seen" minute. */
const SKIPPED_COLUMNS = new Set(['tokens.last_used_at', 'sessions.last_seen_at']);
/**
 * The person-keyed tables compared row by row (`PersonState`) instead of in the digest, and
 * `person_writes`, the person's last-write mark for read replicas (docs/operating.md, "Read
 * replicas"), which a trigger moves with every statement that changes their data: left out for the
 * person, while another person's mark moving still shows in the digest.
 */
export const PERSON_TABLES = ['attributes', 'attribute_values', 'attribute_services', 'value_changes', 'person_writes'];

export interface DigestOptions {
  /** Rows of this person in PERSON_TABLES are left out (compared by `personState`). */
  personId?: number;
  /** More columns to leave out, as `table.column`. */
  skipColumns?: string[];
}

export type Digest = Record<string, string>;

type Columns = Array<{ table_name: string; column_name: string }>;

/**
 * The public schema's columns, read once per database: no request changes the schema, and the
 * information_schema query cost more than the digest itself (about 11 of 19 ms, measured on the
 * fuzz suite's database), twice per fuzzed request.
 */
const columnsOf = new WeakMap<Knex, Promise<Columns>>();

function publicColumns(db: Knex): Promise<Columns> {
  let columns = columnsOf.get(db);
  if (!columns) {
    columns = db
      .raw(
        `select table_name, column_name from information_schema.columns
          where table_schema = 'public' order by table_name, ordinal_position`,
      )
      .then((result: { rows: Columns }) => result.rows);
    columnsOf.set(db, columns);
  }
  return columns;
}

/** One md5 per table of the public schema (less the counters), in one round trip. */
export async function digest(db: Knex, options: DigestOptions = {}): Promise<Digest> {
  const columns = await publicColumns(db);
  const skip = new Set([...SKIPPED_COLUMNS, ...(options.skipColumns ?? [])]);
  const byTable = new Map<string, string[]>();
  for (const { table_name: table, column_name: column } of columns) {
    if (SKIPPED_TABLES.has(table) || skip.has(`${table}.${column}`)) continue;
    byTable.set(table, [...(byTable.get(table) ?? []), column]);
  }
  const parts = [...byTable].map(([table, cols]) => {
    const where = options.personId !== undefined && PERSON_TABLES.includes(table) ? ` where user_id <> ${Number(options.personId)}` : '';
    const row = `(${cols.map((c) => `"${c}"`).join(', ')})`;
    return `(select md5(coalesce(string_agg(${row}::text, '|' order by ${row}::text), '')) from "${table}"${where}) as "${table}"`;
  });
  return (await db.raw(`select ${parts.join(', ')}`)).rows[0] as Digest;
}

/** Tables whose digest differs. */
export function changedTables(before: Digest, after: Digest): string[] {
  return Object.keys(after).filter((table) => before[table] !== after[table]);
}

/** A person's rows by key: `attr:<name>`, `value:<name>:<date>`, `service:<name>:<client pk>`, `change:<date>`. */
export type PersonState = Map<string, string>;

export async function personState(db: Knex, userId: number): Promise<PersonState> {
  const state: PersonState = new Map();
  const attributes = await db('attributes').where({ user_id: userId }).select('*');
  const names = new Map<number, string>(attributes.map((a: { id: number; name: string }) => [a.id, a.name]));
  for (const row of attributes) state.set(`attr:${row.name}`, JSON.stringify(row));
  for (const row of await db('attribute_values').where({ user_id: userId }).select('attribute_id', 'date', 'value_num', 'value_text')) {
    state.set(`value:${names.get(row.attribute_id)}:${row.date}`, JSON.stringify([row.value_num, row.value_text]));
  }
  for (const row of await db('attribute_services').where({ user_id: userId }).select('attribute_id', 'client_pk', 'acquired_at')) {
    state.set(`service:${names.get(row.attribute_id)}:${row.client_pk}`, JSON.stringify(row.acquired_at));
  }
  for (const row of await db('value_changes').where({ user_id: userId }).select('date', db.raw('changed_at::text as changed_at'))) {
    state.set(`change:${row.date}`, row.changed_at);
  }
  return state;
}

/** Keys added, removed or changed between two states. */
export function changedKeys(before: PersonState, after: PersonState): string[] {
  const keys = new Set([...before.keys(), ...after.keys()]);
  return [...keys].filter((key) => before.get(key) !== after.get(key)).sort();
}

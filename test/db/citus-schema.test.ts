/**
 * The schema keeps the promise that lets a distributed PostgreSQL (Citus) shard it by person
 * (docs/scaling.md): read from the catalog (pg_catalog) of a freshly migrated database, every
 * per-person table (one with a `user_id` column, and `users` itself, keyed by `id`) has the person
 * leading its primary key and every unique constraint or index, and every foreign key to another
 * per-person table carries the person. A break fails, naming the table and the rule, unless
 * docs/scaling.md's "Accounted exceptions" table names it (and says how that table is found
 * without the person). The test reads that table from the document, so the two cannot drift: an
 * exception the schema no longer has fails too, and so does a table the document does not place.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Knex } from 'knex';
import { createKnex } from '../../src/db/knex';
import { migrateLatest } from '../../src/db/migrate';
import { PROJECT_ROOT } from '../../src/paths';
import { databaseUrl, withAdmin, workerAdminUrl } from '../support/clusters';

const SCALING_DOC = path.join(PROJECT_ROOT, 'docs', 'scaling.md');
const database = `daybook_test_citus_${crypto.randomBytes(4).toString('hex')}`;
let knex: Knex;

beforeAll(async () => {
  await withAdmin(workerAdminUrl(), (client) => client.query(`CREATE DATABASE "${database}"`));
  knex = createKnex(databaseUrl(workerAdminUrl(), database), { pool: { min: 0, max: 2 } });
  await migrateLatest(knex);
});

afterAll(async () => {
  await knex?.destroy();
  await withAdmin(workerAdminUrl(), (client) => client.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`));
});

type Rule = 'primary-key' | 'unique' | 'foreign-key';

interface Break {
  table: string;
  rule: Rule;
  /** The constraint or index that breaks the rule; `(none)` for a missing primary key. */
  constraint: string;
  detail: string;
}

/** The person's column of a per-person table: `id` in `users`, `user_id` elsewhere. */
const personColumn = (table: string) => (table === 'users' ? 'id' : 'user_id');

/** The per-person tables of `schema`: `users` and every table with a `user_id` column. */
async function personTables(db: Knex, schema: string): Promise<string[]> {
  const { rows } = await db.raw<{ rows: Array<{ table: string }> }>(
    `select c.relname as table
       from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = ? and c.relkind in ('r', 'p')
        and (c.relname = 'users' or exists (select 1 from pg_attribute a where a.attrelid = c.oid and a.attname = 'user_id' and not a.attisdropped))
      order by 1`,
    [schema],
  );
  return rows.map((row) => row.table);
}

/** Every break of the three rules among the per-person tables of `schema`. */
async function schemaBreaks(db: Knex, schema: string): Promise<Break[]> {
  const tables = await personTables(db, schema);
  const breaks: Break[] = [];
  // Primary keys and unique indexes (a unique constraint is one; an expression's column is null).
  const { rows: keys } = await db.raw<{ rows: Array<{ table: string; name: string; primary: boolean; first: string | null; definition: string }> }>(
    `select c.relname as table, i.relname as name, x.indisprimary as primary,
            (select a.attname from pg_attribute a where a.attrelid = x.indrelid and a.attnum = x.indkey[0]) as first,
            pg_get_indexdef(x.indexrelid) as definition
       from pg_index x
       join pg_class c on c.oid = x.indrelid join pg_namespace n on n.oid = c.relnamespace
       join pg_class i on i.oid = x.indexrelid
      where n.nspname = ? and x.indisunique and c.relname = any(?)
      order by 1, 2`,
    [schema, tables],
  );
  for (const table of tables) {
    if (!keys.some((key) => key.table === table && key.primary)) {
      breaks.push({ table, rule: 'primary-key', constraint: '(none)', detail: `no primary key (it must lead with ${personColumn(table)})` });
    }
  }
  for (const key of keys) {
    if (key.first === personColumn(key.table)) continue;
    breaks.push({
      table: key.table,
      rule: key.primary ? 'primary-key' : 'unique',
      constraint: key.name,
      detail: `${key.definition} does not lead with ${personColumn(key.table)}`,
    });
  }
  // Foreign keys to another per-person table: one of the column pairs must be person -> person.
  const { rows: foreign } = await db.raw<{ rows: Array<{ table: string; name: string; target: string; pairs: string[]; definition: string }> }>(
    `select c.relname as table, k.conname as name, t.relname as target, pg_get_constraintdef(k.oid) as definition,
            array(select a.attname || '>' || b.attname
                    from unnest(k.conkey, k.confkey) as p(mine, theirs)
                    join pg_attribute a on a.attrelid = k.conrelid and a.attnum = p.mine
                    join pg_attribute b on b.attrelid = k.confrelid and b.attnum = p.theirs) as pairs
       from pg_constraint k
       join pg_class c on c.oid = k.conrelid join pg_namespace n on n.oid = c.relnamespace
       join pg_class t on t.oid = k.confrelid
      where n.nspname = ? and k.contype = 'f' and c.relname = any(?) and t.relname = any(?)
      order by 1, 2`,
    [schema, tables, tables],
  );
  for (const key of foreign) {
    if (key.pairs.includes(`${personColumn(key.table)}>${personColumn(key.target)}`)) continue;
    breaks.push({ table: key.table, rule: 'foreign-key', constraint: key.name, detail: `${key.definition} leaves the person out (to ${key.target})` });
  }
  return breaks;
}

/** A markdown section's table rows (cells trimmed, backquotes dropped), without its header and rule lines. */
function tableRows(markdown: string, heading: string): string[][] {
  const start = markdown.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`docs/scaling.md has no section "## ${heading}"`);
  const end = markdown.indexOf('\n## ', start + 1);
  return markdown
    .slice(start, end < 0 ? undefined : end)
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .map((line) =>
      line
        .slice(1, -1)
        .split('|')
        .map((cell) => cell.trim().replace(/`/g, '')),
    )
    .slice(2);
}

/** docs/scaling.md's accounted exceptions, as `table rule constraint`. */
function accounted(): Set<string> {
  return new Set(tableRows(fs.readFileSync(SCALING_DOC, 'utf8'), 'Accounted exceptions').map(([table, rule, constraint]) => `${table} ${rule} ${constraint}`));
}

const keyOf = (broken: Break) => `${broken.table} ${broken.rule} ${broken.constraint}`;

test('every per-person table leads its keys with the person, or docs/scaling.md says how it is found without the person', async () => {
  const unaccounted = (await schemaBreaks(knex, 'public')).filter((broken) => !accounted().has(keyOf(broken)));
  expect(unaccounted.map((broken) => `${broken.table}: rule ${broken.rule} (${broken.constraint}): ${broken.detail}`)).toEqual([]);
});

test("docs/scaling.md accounts for no break the schema no longer has (a fixed table leaves the document's list)", async () => {
  const found = new Set((await schemaBreaks(knex, 'public')).map(keyOf));
  expect([...accounted()].filter((exception) => !found.has(exception))).toEqual([]);
});

test('docs/scaling.md places every table: distributed (by what), reference, or local to the coordinator (keep_local: a plain table there)', async () => {
  const { rows } = await knex.raw<{ rows: Array<{ tablename: string }> }>(`select tablename from pg_tables where schemaname = 'public' order by 1`);
  const doc = fs.readFileSync(SCALING_DOC, 'utf8');
  const placed = new Set(
    [...doc.matchAll(/(?:create_distributed_table|create_reference_table|citus_add_local_table_to_metadata|keep_local)\('(\w+)'/g)].map((match) => match[1]),
  );
  expect(rows.map((row) => row.tablename).filter((table) => !placed.has(table))).toEqual([]);
});

test('the check names the table and the rule of a per-person table that breaks one', async () => {
  // A scratch schema in this test's own database, with one break of each rule.
  await knex.raw(`
    create schema scratch;
    create table scratch.users (id bigint primary key, email text unique);
    create table scratch.notes (user_id bigint not null, id bigint not null, primary key (user_id, id), unique (id));
    create table scratch.pins (note_id bigint primary key, user_id bigint not null, foreign key (note_id) references scratch.notes (id));
    create table scratch.drafts (user_id bigint not null, body text)`);
  const found = (await schemaBreaks(knex, 'scratch')).map(keyOf).sort();
  expect(found).toEqual([
    'drafts primary-key (none)',
    'notes unique notes_id_key',
    'pins foreign-key pins_note_id_fkey',
    'pins primary-key pins_pkey',
    'users unique users_email_key',
  ]);
});

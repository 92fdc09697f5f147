/**
 * Loads a bench dataset into a fresh database: the schema (the service's migrations and catalogue
 * seed), N users with A attributes each (the demo generator's first A templates, owned by the
 * built-in demo service, as `loadDemoData` makes them) and D days of values from the deterministic
 * demo generator, bulk-loaded with COPY.
 *
 * Realistic layout: a service writes everyone's day as it comes, so the rows of one person end up
 * spread over the table. The values are therefore copied date by date across a block of users
 * (500 at a time), not person by person, which would make each person's rows contiguous and the
 * reads look cheaper than they are. The table's keys and indexes are dropped for the copy and
 * rebuilt after it (exactly as the migrations define them), then everything is vacuumed and
 * analysed, as autovacuum would have done on a live database.
 */
import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { createKnex } from '../../src/db/knex';
import { migrateLatest } from '../../src/db/migrate';
import { DEMO_SERVICE } from '../../src/db/catalogue-services';
import { TEMPLATES_BY_NAME } from '../../src/db/catalogue-templates';
import { isTextValueType } from '../../src/db/catalogue-value-types';
import { seedCatalogue } from '../../src/db/seed-catalogue';
import { generateDemoData, selectDemoTemplates } from '../../src/demo/demo-generator';
import { daysEndingAt } from '../../src/domain/time';
import { datasetDatabaseName, freshDatabase, loadedSpec, recordSpec, sameSpec, withClient, type BenchServer, type DatasetSpec } from './database';
import { progressBar, say, timed } from './progress';

export interface LoadReport {
  database: string;
  spec: DatasetSpec;
  /** True when --reuse-data found the database already loaded with this spec (no load time then). */
  reused: boolean;
  users: number;
  attributes: number;
  values: number;
  /** Seconds per phase; `copy` includes generating the values. */
  seconds: { schema: number; rows: number; copy: number; indexes: number; vacuum: number; total: number } | undefined;
  /** Values per second of the copy phase. */
  copyRate: number | undefined;
  databaseBytes: number;
}

/** Users generated and copied together: 500 x 40 x 730 doubles is 117 MB. */
const BLOCK_USERS = 500;
/** Bytes gathered before a write to the COPY stream. */
const CHUNK_BYTES = 1 << 18;

/** COPY text format: backslash, tab, newline and carriage return are escaped. */
function copyText(value: string): string {
  return value.replace(/[\\\t\n\r]/g, (c) => (c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r'));
}

interface Constraint {
  name: string;
  type: 'p' | 'f';
  definition: string;
}

/** The keys and indexes of attribute_values, to drop before the copy and rebuild after it. */
async function valueIndexes(client: pg.Client): Promise<{ constraints: Constraint[]; indexes: string[] }> {
  const constraints = (
    await client.query<Constraint>(
      `select conname as name, contype as type, pg_get_constraintdef(oid) as definition
         from pg_constraint where conrelid = 'attribute_values'::regclass and contype in ('p', 'f') order by contype desc`,
    )
  ).rows;
  const indexes = (
    await client.query<{ indexdef: string }>(
      `select indexdef from pg_indexes where schemaname = current_schema() and tablename = 'attribute_values'
          and indexname not in (select conname from pg_constraint where conrelid = 'attribute_values'::regclass)`,
    )
  ).rows.map((row) => row.indexdef);
  return { constraints, indexes };
}

async function dropValueIndexes(client: pg.Client, found: { constraints: Constraint[]; indexes: string[] }): Promise<void> {
  // Foreign keys first ('f' sorts before 'p' in the order above), then the primary key, then the rest.
  for (const constraint of found.constraints) await client.query(`alter table attribute_values drop constraint "${constraint.name}"`);
  for (const definition of found.indexes) {
    const name = /^CREATE (?:UNIQUE )?INDEX (\S+) ON/.exec(definition)?.[1];
    if (!name) throw new Error(`Cannot read the index name of: ${definition}`);
    await client.query(`drop index ${name}`);
  }
}

async function rebuildValueIndexes(client: pg.Client, found: { constraints: Constraint[]; indexes: string[] }): Promise<void> {
  const primary = found.constraints.filter((c) => c.type === 'p');
  const foreign = found.constraints.filter((c) => c.type === 'f');
  for (const c of primary) {
    await timed(`  primary key ${c.name}`, () => client.query(`alter table attribute_values add constraint "${c.name}" ${c.definition}`));
  }
  for (const definition of found.indexes)
    await timed(`  ${definition.replace(/^CREATE (UNIQUE )?INDEX (\S+) .*/, 'index $2')}`, () => client.query(definition));
  for (const c of foreign) {
    await timed(`  foreign key ${c.name}`, () => client.query(`alter table attribute_values add constraint "${c.name}" ${c.definition}`));
  }
}

/** Users and their attributes (owned by the demo service, which can also handle them), in a few statements. */
async function createRows(url: string, spec: DatasetSpec): Promise<{ userIds: number[]; attributeIds: Float64Array; templates: string[] }> {
  const templates = selectDemoTemplates(spec.attributes);
  return withClient(url, async (client) => {
    await client.query('begin');
    const users = await client.query<{ id: number }>(
      `insert into users (username, timezone)
       select 'bench_' || lpad(i::text, 6, '0'), 'UTC' from generate_series(1, $1::int) as i order by i
       returning id`,
      [spec.users],
    );
    const userIds = users.rows.map((row) => Number(row.id)).sort((a, b) => a - b);
    const demo = await client.query<{ id: number }>('select id from oauth_clients where client_id = $1', [DEMO_SERVICE.name]);
    await client.query(
      `insert into attributes (user_id, name, label, template_name, group_name, value_type, priority, manual, owner_client_pk)
       select u.id, t.name, t.label, t.name, t.group_name, t.value_type, t.priority, false, $3
         from unnest($1::bigint[]) as u(id)
         cross join unnest($2::text[]) with ordinality as n(name, position)
         join templates t on t.name = n.name
        order by u.id, n.position`,
      [userIds, templates, demo.rows[0].id],
    );
    await client.query(
      `insert into attribute_services (user_id, attribute_id, client_pk)
       select a.user_id, a.id, a.owner_client_pk from attributes a where a.user_id = any($1::bigint[])`,
      [userIds],
    );
    const rows = await client.query<{ user_id: string; name: string; id: string }>(
      'select user_id, name, id from attributes where user_id = any($1::bigint[])',
      [userIds],
    );
    await client.query('commit');
    const userIndex = new Map(userIds.map((id, i) => [id, i]));
    const templateIndex = new Map(templates.map((name, i) => [name, i]));
    const attributeIds = new Float64Array(userIds.length * templates.length);
    for (const row of rows.rows) attributeIds[userIndex.get(Number(row.user_id))! * templates.length + templateIndex.get(row.name)!] = Number(row.id);
    return { userIds, attributeIds, templates };
  });
}

/** Generates every user's values and streams them to COPY, date-major within blocks of users. */
async function copyValues(client: pg.Client, spec: DatasetSpec, rows: { userIds: number[]; attributeIds: Float64Array; templates: string[] }): Promise<number> {
  const { userIds, attributeIds, templates } = rows;
  const A = templates.length;
  const dates = daysEndingAt(spec.endDate, spec.days).reverse(); // oldest first, as a service would write them
  const D = dates.length;
  const dayIndex = new Map(dates.map((date, i) => [date, i]));
  const text = templates.map((name) => isTextValueType(TEMPLATES_BY_NAME.get(name)!.valueType));
  const stream = client.query(copyFrom('COPY attribute_values (user_id, attribute_id, date, value_num, value_text) FROM STDIN'));
  const bar = progressBar('values', userIds.length * 2, 'steps');
  let copied = 0;
  let done = 0;
  let chunk = '';
  const flush = async () => {
    if (!stream.write(chunk)) await once(stream, 'drain');
    chunk = '';
  };
  for (let start = 0; start < userIds.length; start += BLOCK_USERS) {
    const count = Math.min(BLOCK_USERS, userIds.length - start);
    const nums = new Float64Array(count * A * D).fill(NaN);
    const strings = new Map<number, string>();
    for (let u = 0; u < count; u++) {
      const series = generateDemoData({ seed: spec.seed, days: spec.days, endDate: spec.endDate, attributes: A, user: start + u });
      series.forEach((s, a) => {
        const base = (u * A + a) * D;
        for (const point of s.values) {
          const slot = base + dayIndex.get(point.date)!;
          if (text[a]) strings.set(slot, String(point.value));
          else nums[slot] = point.value as number;
        }
      });
      bar.update(++done, `generating users ${start + 1}-${start + count}`);
    }
    for (let d = 0; d < D; d++) {
      const date = dates[d];
      for (let u = 0; u < count; u++) {
        const userId = userIds[start + u];
        for (let a = 0; a < A; a++) {
          const slot = (u * A + a) * D + d;
          if (text[a]) {
            const value = strings.get(slot);
            if (value === undefined) continue;
            chunk += `${userId}\t${attributeIds[(start + u) * A + a]}\t${date}\t\\N\t${copyText(value)}\n`;
          } else {
            const value = nums[slot];
            if (Number.isNaN(value)) continue;
            chunk += `${userId}\t${attributeIds[(start + u) * A + a]}\t${date}\t${value}\t\\N\n`;
          }
          copied++;
        }
      }
      if (chunk.length >= CHUNK_BYTES) await flush();
      bar.update(done + Math.round(((d + 1) / D) * count), `copying users ${start + 1}-${start + count}: ${copied.toLocaleString('en')} values`);
    }
    done += count;
  }
  if (chunk.length > 0) await flush();
  stream.end();
  await finished(stream);
  bar.stop();
  return copied;
}

async function countRows(url: string): Promise<{ users: number; attributes: number; values: number; bytes: number }> {
  return withClient(url, async (client) => {
    const row = (
      await client.query<{ users: string; attributes: string; values: string; bytes: string }>(
        `select (select count(*) from users where username like 'bench\\_%') as users,
                (select count(*) from attributes) as attributes,
                (select reltuples::bigint from pg_class where relname = 'attribute_values') as values,
                pg_database_size(current_database()) as bytes`,
      )
    ).rows[0];
    return { users: Number(row.users), attributes: Number(row.attributes), values: Number(row.values), bytes: Number(row.bytes) };
  });
}

/**
 * Makes sure the dataset of `spec` is loaded in its database: reuses it when `reuse` is set and it
 * was loaded with the same parameters, else drops it and loads it fresh.
 */
export async function loadDataset(server: BenchServer, spec: DatasetSpec, reuse: boolean): Promise<LoadReport> {
  const database = datasetDatabaseName(spec);
  const url = server.urlOf(database);
  const previous = await loadedSpec(server, database);
  if (reuse && sameSpec(previous, spec)) {
    const counted = await countRows(url);
    say(
      `Dataset ${database}: reusing the loaded ${previous!.users} users x ${previous!.attributes} attributes x ${previous!.days} days ending ${previous!.endDate} (--reuse-data); ${counted.values.toLocaleString('en')} values`,
    );
    return { database, spec: previous!, reused: true, ...counted, databaseBytes: counted.bytes, seconds: undefined, copyRate: undefined };
  }
  say(
    `Dataset ${database}: ${spec.users} users x ${spec.attributes} attributes x ${spec.days} days ending ${spec.endDate} (seed ${spec.seed}), fresh database`,
  );
  const t0 = performance.now();
  const schema = await timed('  schema (migrations, catalogue)', async () => {
    await freshDatabase(server, database);
    const knex = createKnex(url, { pool: { min: 0, max: 2 } });
    try {
      await migrateLatest(knex);
      await seedCatalogue(knex);
    } finally {
      await knex.destroy();
    }
  });
  const rows = await timed(`  ${spec.users} users and ${spec.users * spec.attributes} attributes`, () => createRows(url, spec));
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  let copySeconds: number;
  let indexSeconds: number;
  let vacuumSeconds: number;
  let values: number;
  try {
    await client.query("set maintenance_work_mem = '1GB'");
    await client.query('set synchronous_commit = off');
    const found = await valueIndexes(client);
    await dropValueIndexes(client, found);
    const copy = await timed('  values: generate and COPY', () => copyValues(client, spec, rows.result));
    values = copy.result;
    copySeconds = copy.seconds;
    indexSeconds = (await timed('  rebuild keys and indexes of attribute_values', () => rebuildValueIndexes(client, found))).seconds;
    vacuumSeconds = (await timed('  vacuum and analyse', () => client.query('vacuum (analyze)'))).seconds;
  } finally {
    await client.end();
  }
  await recordSpec(server, database, spec);
  const total = (performance.now() - t0) / 1000;
  const counted = await countRows(url);
  say(
    `Dataset loaded: ${values.toLocaleString('en')} values in ${total.toFixed(0)} s (COPY ${Math.round(values / copySeconds).toLocaleString('en')} values/s); database ${(counted.bytes / 2 ** 30).toFixed(2)} GiB`,
  );
  return {
    database,
    spec,
    reused: false,
    users: counted.users,
    attributes: counted.attributes,
    values,
    seconds: { schema: schema.seconds, rows: rows.seconds, copy: copySeconds, indexes: indexSeconds, vacuum: vacuumSeconds, total },
    copyRate: values / copySeconds,
    databaseBytes: counted.bytes,
  };
}

/**
 * Issue 30, item 6: the service connected to its embedded PostgreSQL as the superuser, so a hole
 * in the service reached the whole cluster (`COPY … TO PROGRAM` runs shell commands). Now it
 * connects as the role `daybook`, which owns its database and is no superuser (src/db/service-role.ts);
 * a cluster made by the earlier layout (everything owned by the superuser) is handed over on start,
 * data kept. Through the service's own pool, as `npm start` opens it (src/database.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Knex } from 'knex';
import { loadConfig } from '../../src/config';
import { openDatabase, type OpenDatabase } from '../../src/database';
import { startEmbeddedPostgres } from '../../src/db/embedded';
import { createKnex } from '../../src/db/knex';
import { MIGRATIONS } from '../../src/db/migrations';
import { migrateLatest } from '../../src/db/migrate';
import { seedCatalogue } from '../../src/db/seed-catalogue';
import { databaseUrl, freePort, withAdmin } from '../support/clusters';
import { serviceDataDir } from '../support/process';

const dataDirs: string[] = [];
let opened: OpenDatabase | undefined;
afterEach(async () => {
  await opened?.close();
  opened = undefined;
});
afterAll(() => {
  for (const dir of dataDirs) {
    const cluster = path.join(dir, 'postgres');
    // As root the cluster lives elsewhere, linked from DATA_DIR (src/db/cluster-folder.ts).
    if (fs.lstatSync(cluster, { throwIfNoEntry: false })?.isSymbolicLink())
      fs.rmSync(path.resolve(dir, fs.readlinkSync(cluster)), { recursive: true, force: true });
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

async function embeddedConfig() {
  const dataDir = serviceDataDir('daybook-role-');
  dataDirs.push(dataDir);
  return loadConfig({ DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(await freePort()), LOG_LEVEL: 'silent' });
}

/** Who the service's pool is, as PostgreSQL sees it. */
async function connectedRole(db: Knex): Promise<{ role: string; superuser: boolean }> {
  const { rows } = await db.raw('select current_user as role, rolsuper as superuser from pg_roles where rolname = current_user');
  return rows[0];
}

/** What a superuser could do and the service's role must not: run a program on the database's machine. */
async function runsPrograms(db: Knex): Promise<boolean> {
  try {
    await db.raw("copy (select 1) to program 'true'");
    return true;
  } catch (error) {
    expect((error as Error).message).toMatch(/permission denied|must be superuser|pg_execute_server_program/);
    return false;
  }
}

test('a fresh embedded start migrates and serves through a role that owns its database and is no superuser', async () => {
  const config = await embeddedConfig();
  opened = await openDatabase(config);
  expect(await connectedRole(opened.db)).toEqual({ role: 'daybook', superuser: false });
  expect(await runsPrograms(opened.db)).toBe(false);
  expect(Number((await opened.db('knex_migrations').count({ n: '*' }))[0].n)).toBe(MIGRATIONS.length);
  // pg-boss makes its schema on start: the role may create schemas in its database.
  await opened.db.raw('create schema probe; drop schema probe');
  const password = fs.readFileSync(path.join(config.dataDir, 'postgres.service-password'), 'utf8').trim();
  expect(fs.statSync(path.join(config.dataDir, 'postgres.service-password')).mode & 0o777).toBe(0o600);
  expect(new URL(opened.embedded!.url).password).toBe(encodeURIComponent(password));
});

test("a cluster of the earlier layout (the superuser's database) is handed over on start, its data kept", async () => {
  const config = await embeddedConfig();
  // The earlier version: the service was the superuser, so it owned every table, sequence,
  // function and (pg-boss's) schema and type.
  const old = await startEmbeddedPostgres({ dir: path.join(config.dataDir, 'postgres'), port: config.embeddedPgPort, database: 'postgres' });
  try {
    await withAdmin(old.adminUrl, (client) => client.query('CREATE DATABASE daybook'));
    const superuserDb = createKnex(databaseUrl(old.adminUrl, 'daybook'), { pool: { min: 0, max: 2 } });
    try {
      await migrateLatest(superuserDb);
      await seedCatalogue(superuserDb);
      await superuserDb.raw(`
        create schema pgboss;
        create type pgboss.job_state as enum ('created', 'completed');
        create table pgboss.job (id serial primary key, state pgboss.job_state not null);
        create function pgboss.created() returns bigint language sql as $$ select count(*) from pgboss.job where state = 'created' $$;
        create view pgboss.waiting as select id from pgboss.job where state = 'created';
        create sequence pgboss.free_numbers;
        insert into pgboss.job (state) values ('created');
        insert into users (username, first_name) values ('kept', 'Kept');
      `);
    } finally {
      await superuserDb.destroy();
    }
  } finally {
    await old.stop();
  }

  opened = await openDatabase(config);
  const { db } = opened;
  expect(await connectedRole(db)).toEqual({ role: 'daybook', superuser: false });
  expect(await runsPrograms(db)).toBe(false);
  expect(await db('users').where({ username: 'kept' }).select('first_name')).toEqual([{ first_name: 'Kept' }]);
  // Everything is the role's now: it writes, alters and calls what the superuser made.
  await db('users').insert({ username: 'new' });
  await db.raw("insert into pgboss.job (state) values ('created'); select nextval('pgboss.free_numbers')");
  expect(Number((await db.raw('select pgboss.created() as n')).rows[0].n)).toBe(2);
  expect((await db.raw('select count(*)::int as n from pgboss.waiting')).rows[0].n).toBe(2);
  await db.raw("alter type pgboss.job_state add value 'failed'; alter table pgboss.job add column note text");
  const { rows } = await db.raw(`
    select count(*)::int as n from (
      select relowner as owner, relnamespace as ns from pg_class
      union all select proowner, pronamespace from pg_proc
      union all select typowner, typnamespace from pg_type
      union all select nspowner, oid from pg_namespace
    ) o join pg_namespace n on n.oid = o.ns
    where o.owner = 'postgres'::regrole and n.nspname not like 'pg\\_%' and n.nspname <> 'information_schema'`);
  expect(rows[0].n).toBe(0);
});

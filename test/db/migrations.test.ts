/**
 * The schema against a real PostgreSQL: migrations from an empty database, up and down, the
 * catalogue seed, and the demo loader. Uses its own empty database on the worker's cluster (not
 * the migrated template the API tests clone).
 */
import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { GROUPS } from '../../src/db/catalogue-groups';
import { TEMPLATES } from '../../src/db/catalogue-templates';
import { loadDemoData } from '../../src/demo/demo-data';
import { createKnex } from '../../src/db/knex';
import { MIGRATION_CONFIG, migrateLatest, migrateRollbackAll } from '../../src/db/migrate';
import { MIGRATIONS } from '../../src/db/migrations';
import { seedCatalogue } from '../../src/db/seed-catalogue';
import { databaseUrl, withAdmin, workerAdminUrl } from '../support/clusters';

const database = `daybook_test_schema_${crypto.randomBytes(4).toString('hex')}`;
let url: string;
let knex: Knex;

beforeAll(async () => {
  await withAdmin(workerAdminUrl(), (client) => client.query(`CREATE DATABASE "${database}"`));
  url = databaseUrl(workerAdminUrl(), database);
  knex = createKnex(url, { pool: { min: 0, max: 4 } });
});

afterAll(async () => {
  await knex?.destroy();
  await withAdmin(workerAdminUrl(), (client) => client.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`));
});

/** The tables the initial migration creates (later migrations may add more). */
const INITIAL_TABLES = [
  'attribute_services',
  'attribute_values',
  'attributes',
  'authorisation_codes',
  'averages',
  'correlations',
  'groups',
  'insights',
  'oauth_clients',
  'sessions',
  'templates',
  'tokens',
  'users',
  'value_changes',
];

const count = async (table: string, where: Record<string, unknown> = {}) =>
  Number((await knex(table).where(where).count<{ count: number }[]>({ count: '*' }))[0].count);

const userTables = async () =>
  (await knex.raw(`select tablename from pg_tables where schemaname = 'public' and tablename not like 'knex_%' order by 1`)).rows.map(
    (r: { tablename: string }) => r.tablename,
  );

describe('migrations', () => {
  test('several instances migrating an empty database at once all succeed, and again is a no-op', async () => {
    const others = [createKnex(url, { pool: { min: 0, max: 2 } }), createKnex(url, { pool: { min: 0, max: 2 } })];
    try {
      await Promise.all([migrateLatest(knex), ...others.map(migrateLatest)]);
    } finally {
      await Promise.all(others.map((k) => k.destroy()));
    }
    await migrateLatest(knex);
    expect(await count('knex_migrations')).toBe(MIGRATIONS.length);
    expect(await userTables()).toEqual(expect.arrayContaining(INITIAL_TABLES));
  });

  test('the catalogue seed is idempotent and writes groups, templates and the built-in services', async () => {
    await seedCatalogue(knex);
    await seedCatalogue(knex);
    expect(await count('groups')).toBe(GROUPS.length);
    expect(await count('templates')).toBe(TEMPLATES.length);
    const services = await knex('oauth_clients').where({ builtin: true }).orderBy('client_id').select('client_id', 'name', 'secret_hash');
    expect(services).toEqual([
      { client_id: 'daybook', name: 'Daybook', secret_hash: null },
      { client_id: 'daybook-demo', name: 'Daybook demo data', secret_hash: null },
    ]);
  });

  test('loads a year of 60 demo attributes, twice without failing, with dates as strings and ids as numbers', async () => {
    const [user] = await knex('users').insert({ username: 'Demo' }).returning<{ id: number }[]>('id');
    expect(typeof user.id).toBe('number');
    const opts = { seed: 1, days: 365, attributes: 60, endDate: '2026-11-21' };
    const first = await loadDemoData(knex, user.id, opts);
    const second = await loadDemoData(knex, user.id, opts);
    expect(first.attributes).toBe(60);
    expect(second).toEqual(first);
    expect(first.values).toBeGreaterThan(60 * 365 * 0.7);
    expect(await count('attributes', { user_id: user.id })).toBe(60);
    expect(await count('attribute_values', { user_id: user.id })).toBe(first.values);
    expect(await count('attribute_services', { user_id: user.id })).toBe(60);
    expect(await count('value_changes', { user_id: user.id })).toBe(365);

    const row = await knex('attribute_values as v')
      .join('attributes as a', function () {
        this.on('a.user_id', 'v.user_id').andOn('a.id', 'v.attribute_id');
      })
      .where({ 'a.user_id': user.id, 'a.name': 'mood_note' })
      .first('v.date', 'v.value_num', 'v.value_text', 'a.owner_client_pk');
    expect(row.date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(row.value_num).toBeNull();
    expect(typeof row.value_text).toBe('string');
    const demo = await knex('oauth_clients').where({ client_id: 'daybook-demo' }).first('id');
    expect(row.owner_client_pk).toBe(demo.id);
  });

  test('user names are unique whatever their case', async () => {
    await expect(knex('users').insert({ username: 'dEMO' })).rejects.toThrow(/users_username_lower_key/);
  });

  test('a value row must hold a number or a text', async () => {
    const attribute = await knex('attributes').first('user_id', 'id');
    await expect(knex('attribute_values').insert({ user_id: attribute.user_id, attribute_id: attribute.id, date: '2020-01-01' })).rejects.toThrow(
      /attribute_values_value_present/,
    );
  });

  test('weekly sets stored with a weekday null get the overall median there, and the weekdays refuse null after', async () => {
    const attribute = await knex('attributes').first('user_id', 'id');
    const average = { user_id: attribute.user_id, attribute_id: attribute.id, date: '2026-11-16', overall: 8000 };
    await knex.migrate.down({ ...MIGRATION_CONFIG, name: '20261123180001_average_weekdays' });
    try {
      await knex('averages').insert({ ...average, monday: 7000, tuesday: null, wednesday: null, thursday: 7500, friday: null, saturday: 9000, sunday: null });
    } finally {
      await migrateLatest(knex);
    }
    expect(
      await knex('averages')
        .where({ user_id: attribute.user_id, date: '2026-11-16' })
        .first('monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'),
    ).toEqual({
      monday: 7000,
      tuesday: 8000,
      wednesday: 8000,
      thursday: 7500,
      friday: 8000,
      saturday: 9000,
      sunday: 8000,
    });
    await expect(knex('averages').insert({ ...average, date: '2026-11-23', monday: null })).rejects.toThrow(/not-null/);
    await knex('averages').where({ user_id: attribute.user_id }).delete();
  });

  test('insights stored before they recorded their source days get the day they were found as of back from their type and key', async () => {
    const attribute = await knex('attributes').first('user_id', 'id');
    await knex.migrate.down({ ...MIGRATION_CONFIG, name: '20261126193001_insight_as_of' });
    const stored = (type_name: string, key: string, target_date: string | null) => ({
      user_id: attribute.user_id,
      attribute_id: attribute.id,
      type_name,
      period: 30,
      priority: 1,
      target_date,
      created: new Date('2026-11-19T07:00:00Z'),
      html: '<p>an insight</p>',
      text: 'an insight',
      dedupe_key: `${type_name}:${attribute.id}:${key}`,
    });
    try {
      await knex('insights').insert([
        stored('today_below_weekday', '2026-11-19', '2026-11-19'),
        stored('record_high', '2026-11-18', '2026-11-18'),
        stored('average_streak', '2026-11-10', '2026-11-18'),
        stored('week_high', '2026-11-09', null),
        stored('month_summary', '2026-10', null),
        stored('some_old_type', 'x', null),
      ]);
    } finally {
      await migrateLatest(knex);
    }
    const rows = await knex('insights')
      .where({ user_id: attribute.user_id })
      .select('type_name', knex.raw('as_of::text as as_of'), knex.raw('source_from::text as source_from'))
      .orderBy('id');
    expect(rows).toEqual([
      { type_name: 'today_below_weekday', as_of: '2026-11-19', source_from: '2025-11-17' },
      { type_name: 'record_high', as_of: '2026-11-19', source_from: '2025-11-17' },
      { type_name: 'average_streak', as_of: '2026-11-19', source_from: '2025-11-17' },
      { type_name: 'week_high', as_of: '2026-11-16', source_from: '2025-11-14' },
      { type_name: 'month_summary', as_of: '2026-11-01', source_from: '2025-10-30' },
      { type_name: 'some_old_type', as_of: '2026-11-19', source_from: '2025-11-17' },
    ]);
    await knex('insights').where({ user_id: attribute.user_id }).delete();
  });

  test("deleting a user removes all of the user's rows", async () => {
    const user = await knex('users').where({ username: 'Demo' }).first('id');
    await knex('users').where({ id: user.id }).delete();
    expect(await count('attributes')).toBe(0);
    expect(await count('attribute_values')).toBe(0);
    expect(await count('value_changes')).toBe(0);
  });

  test('every down runs to an empty schema, and up again rebuilds it', async () => {
    await migrateRollbackAll(knex);
    expect(await userTables()).toEqual([]);
    expect(await count('knex_migrations')).toBe(0);
    await migrateLatest(knex);
    await seedCatalogue(knex);
    expect(await userTables()).toEqual(expect.arrayContaining(INITIAL_TABLES));
    expect(await count('templates')).toBe(TEMPLATES.length);
  });
});

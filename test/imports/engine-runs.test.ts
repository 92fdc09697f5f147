/**
 * The import engine over real PostgreSQL (docs/imports.md): dry run, keep and replace, a second
 * identical import, values the write rules refuse, custom tags and their text, and the fixed
 * number of statements per batch.
 */
import { startTestApp, type TestApp } from '../support/app';
import { makeClient, makeUser } from '../support/fixtures';
import type { User } from '../../src/domain/identity/users';
import { createImport, findImport, runImport } from '../../src/domain/imports/engine';
import { defaultMapping } from '../../src/domain/imports/default-mapping';
import { openImportFile } from '../../src/domain/imports/open';
import type { ImportOptions, ImportReport } from '../../src/domain/imports/types';
import { setValuesByHand, trackByHand } from '../../src/domain/tracking/manual-tracking';
import { days, exportText, writeImportFile, type ExportedAttribute } from './import-files';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

const NOW = new Date('2026-11-26T12:00:00Z');

async function importFile(
  user: User,
  file: string,
  options: Partial<ImportOptions> & { batchSize?: number; derived?: number[] } = {},
): Promise<{ id: number; report: ImportReport }> {
  const reader = await openImportFile(file);
  const mapping = options.mapping ?? (await defaultMapping(app.db, user.id, reader));
  const record = await createImport(app.db, {
    userId: user.id,
    filePath: file,
    options: { mapping, existing: options.existing ?? 'keep', dryRun: options.dryRun ?? false },
    batchSize: options.batchSize,
    now: NOW,
  });
  const report = await runImport(app.db, record.id, reader, {
    enqueueDerive: async (userId) => options.derived?.push(userId),
    now: () => NOW,
  });
  return { id: record.id, report };
}

async function stored(user: User): Promise<Array<{ name: string; date: string; value: number | string }>> {
  const rows = await app
    .db('attribute_values as v')
    .join('attributes as a', function on() {
      this.on('a.user_id', 'v.user_id').andOn('a.id', 'v.attribute_id');
    })
    .where('v.user_id', user.id)
    .orderBy(['a.name', 'v.date'])
    .select('a.name', app.db.raw('v.date::text as date'), 'v.value_num', 'v.value_text');
  return rows.map((r) => ({ name: r.name, date: r.date, value: r.value_text ?? r.value_num }));
}

const MOOD_AND_STEPS: ExportedAttribute[] = [
  { name: 'mood', label: 'Mood', template: 'mood', group: 'mood', value_type: 8, values: days('2026-01-01', 30).map((d, i) => [d, (i % 9) + 1]) },
  { name: 'steps', label: 'Steps', template: 'steps', group: 'activity', value_type: 0, values: days('2026-01-01', 30).map((d, i) => [d, 1000 + i]) },
];

test('a dry run reports what would be added and writes nothing; the real run writes it, records the changed days and queues one derive', async () => {
  const { user } = await makeUser(app);
  const file = writeImportFile(exportText(MOOD_AND_STEPS));
  const derived: number[] = [];

  const dry = await importFile(user, file, { dryRun: true, batchSize: 7, derived });
  expect(dry.report).toMatchObject({ format: 'daybook-json', dryRun: true, counts: { added: 60, changed: 0, unchanged: 0, kept: 0, refused: 0 }, batches: 9 });
  expect(dry.report.created).toEqual(['mood', 'steps']);
  expect(dry.report.columns.mood).toEqual({ added: 30, changed: 0, unchanged: 0, kept: 0, refused: 0 });
  expect(await stored(user)).toEqual([]);
  expect(await app.db('attributes').where({ user_id: user.id })).toEqual([]);
  expect(derived).toEqual([]);

  const real = await importFile(user, file, { batchSize: 7, derived });
  expect(real.report).toMatchObject({ dryRun: false, counts: { added: 60, refused: 0 }, batches: 9, firstDate: '2026-01-01', lastDate: '2026-01-30' });
  expect(await stored(user)).toHaveLength(60);
  expect(await app.db('value_changes').where({ user_id: user.id }).count({ n: '*' })).toEqual([{ n: 30 }]);
  expect(derived).toEqual([user.id]);
  // Created as the pages create what a person tracks: Daybook's own, manual.
  const attributes = await app
    .db('attributes as a')
    .join('oauth_clients as o', 'o.id', 'a.owner_client_pk')
    .where('a.user_id', user.id)
    .orderBy('a.name')
    .select('a.name', 'a.manual', 'o.client_id');
  expect(attributes).toEqual([
    { name: 'mood', manual: true, client_id: 'daybook' },
    { name: 'steps', manual: true, client_id: 'daybook' },
  ]);
  expect(await findImport(app.db, user.id, real.id)).toMatchObject({ state: 'done', batches: 9, report: real.report });
});

test('a second identical import changes nothing: every day unchanged, no write, no derive', async () => {
  const { user } = await makeUser(app);
  const file = writeImportFile(exportText(MOOD_AND_STEPS));
  await importFile(user, file);
  const before = await app.db('attribute_values').where({ user_id: user.id }).max({ at: 'updated_at' });
  await app.db('value_changes').where({ user_id: user.id }).delete();
  const derived: number[] = [];
  const again = await importFile(user, file, { derived });
  expect(again.report.counts).toEqual({ added: 0, changed: 0, unchanged: 60, kept: 0, refused: 0 });
  expect(again.report.created).toEqual([]);
  expect(await app.db('attribute_values').where({ user_id: user.id }).max({ at: 'updated_at' })).toEqual(before);
  expect(await app.db('value_changes').where({ user_id: user.id })).toEqual([]);
  expect(derived).toEqual([]);
});

test('days that already differ are kept by default and replaced on request; an app-owned attribute keeps its days even then', async () => {
  const { user } = await makeUser(app);
  const person = { id: user.id, timezone: 'UTC' };
  await trackByHand(app.db, person, { template: 'mood' }, NOW);
  await setValuesByHand(app.db, person, [{ name: 'mood', date: '2026-01-01', value: 9 }], NOW);
  // Steps belong to an app the person connected.
  const { client } = await makeClient(app, user);
  await app.db('attributes').insert({
    user_id: user.id,
    name: 'steps',
    label: 'Steps',
    template_name: 'steps',
    group_name: 'activity',
    value_type: 0,
    priority: 1,
    owner_client_pk: client.id,
  });
  const steps = await app.db('attributes').where({ user_id: user.id, name: 'steps' }).first('id');
  await app.db('attribute_values').insert({ user_id: user.id, attribute_id: steps.id, date: '2026-01-02', value_num: 55 });

  const file = writeImportFile(exportText(MOOD_AND_STEPS));
  const dryKeep = await importFile(user, file, { dryRun: true });
  expect(dryKeep.report.columns.mood).toEqual({ added: 29, changed: 0, unchanged: 0, kept: 1, refused: 0 });
  const dryReplace = await importFile(user, file, { dryRun: true, existing: 'replace' });
  expect(dryReplace.report.columns.mood).toEqual({ added: 29, changed: 1, unchanged: 0, kept: 0, refused: 0 });
  expect(dryReplace.report.columns.steps).toEqual({ added: 29, changed: 0, unchanged: 0, kept: 1, refused: 0 });

  const kept = await importFile(user, file);
  expect(kept.report.counts).toEqual({ added: 58, changed: 0, unchanged: 0, kept: 2, refused: 0 });
  expect((await stored(user)).filter((v) => v.date === '2026-01-01' && v.name === 'mood')).toEqual([{ name: 'mood', date: '2026-01-01', value: 9 }]);

  const replaced = await importFile(user, file, { existing: 'replace' });
  expect(replaced.report.counts).toEqual({ added: 0, changed: 1, unchanged: 58, kept: 1, refused: 0 });
  const after = await stored(user);
  expect(after.find((v) => v.name === 'mood' && v.date === '2026-01-01')!.value).toBe(1);
  expect(after.find((v) => v.name === 'steps' && v.date === '2026-01-02')!.value).toBe(55);
  // The app still owns steps.
  expect(await app.db('attributes').where({ user_id: user.id, name: 'steps' }).first('owner_client_pk')).toEqual({ owner_client_pk: client.id });
});

test('a value of the wrong type is refused with where and why, and the others are imported', async () => {
  const { user } = await makeUser(app);
  const file = writeImportFile(
    exportText([
      {
        name: 'mood',
        label: 'Mood',
        template: 'mood',
        group: 'mood',
        value_type: 8,
        values: [
          ['2026-02-01', 5],
          ['2026-02-02', 'great'],
          ['2026-02-03', 12],
          ['2026-02-04', 7],
        ],
      },
    ]),
  );
  const { report } = await importFile(user, file);
  expect(report.counts).toEqual({ added: 2, changed: 0, unchanged: 0, kept: 0, refused: 2 });
  expect(report.problems).toEqual([
    { where: 'attribute 1 (mood), value 2 (2026-02-02)', column: 'mood', message: expect.stringContaining('"great" is not a value') },
    { where: 'attribute 1 (mood), value 3 (2026-02-03)', column: 'mood', message: 'Attribute mood is an integer from 1 to 9.' },
  ]);
  expect((await stored(user)).map((v) => v.date)).toEqual(['2026-02-01', '2026-02-04']);
});

test('custom tags are imported as tags, and each day gets its custom text rebuilt from them', async () => {
  const { user } = await makeUser(app);
  const file = writeImportFile(
    exportText([
      { name: 'custom', label: 'Custom tags', template: 'custom', group: 'custom', value_type: 2, priority: 1, values: [['2026-03-01', 'stale text']] },
      {
        name: 'went_running',
        label: 'went running',
        group: 'custom',
        value_type: 0,
        priority: 2,
        values: [
          ['2026-03-01', 1],
          ['2026-03-02', 0],
        ],
      },
      {
        name: 'coffee',
        label: 'coffee',
        group: 'custom',
        value_type: 0,
        priority: 3,
        values: [
          ['2026-03-01', 1],
          ['2026-03-02', 1],
        ],
      },
    ]),
  );
  const { report } = await importFile(user, file, { batchSize: 2 });
  expect(report.counts).toMatchObject({ added: 4, refused: 0 });
  expect(await stored(user)).toEqual([
    { name: 'coffee', date: '2026-03-01', value: 1 },
    { name: 'coffee', date: '2026-03-02', value: 1 },
    { name: 'custom', date: '2026-03-01', value: 'coffee, went running' },
    { name: 'custom', date: '2026-03-02', value: 'coffee' },
    { name: 'went_running', date: '2026-03-01', value: 1 },
    { name: 'went_running', date: '2026-03-02', value: 0 },
  ]);
  expect(await app.db('attributes').where({ user_id: user.id, name: 'coffee' }).first('priority', 'group_name', 'value_type')).toEqual({
    priority: 3,
    group_name: 'custom',
    value_type: 0,
  });
});

test('a batch takes the same number of statements whatever its length', async () => {
  const statementsFor = async (count: number): Promise<number> => {
    const { user } = await makeUser(app);
    const file = writeImportFile(exportText([{ ...MOOD_AND_STEPS[1], values: days('2025-01-01', count).map((d, i) => [d, i]) }]));
    const reader = await openImportFile(file);
    const record = await createImport(app.db, {
      userId: user.id,
      options: { mapping: await defaultMapping(app.db, user.id, reader), existing: 'keep', dryRun: false },
      batchSize: count,
      now: NOW,
    });
    let statements = 0;
    const listen = () => statements++;
    // One batch of `count` values (the attribute created before it).
    await app
      .db('attributes')
      .insert({ user_id: user.id, name: 'steps', label: 'Steps', template_name: 'steps', group_name: 'activity', value_type: 0, priority: 1 });
    app.db.on('query', listen);
    await runImport(app.db, record.id, reader, { now: () => NOW });
    app.db.off('query', listen);
    return statements;
  };
  expect(await statementsFor(500)).toBe(await statementsFor(5));
});

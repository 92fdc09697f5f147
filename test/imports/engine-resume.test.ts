/**
 * Safe to stop (docs/imports.md, "Runs, batches and resuming"): a fault half-way keeps every
 * value before it and says where it stopped; running the import again continues after the last
 * applied batch, never applying one twice. Files that are no export are refused, changing nothing.
 */
import { writeFileSync } from 'node:fs';
import { startTestApp, type TestApp } from '../support/app';
import { makeUser } from '../support/fixtures';
import { createImport, findImport, runImport } from '../../src/domain/imports/engine';
import { defaultMapping } from '../../src/domain/imports/default-mapping';
import { openImportFile } from '../../src/domain/imports/open';
import { ImportFault } from '../../src/domain/imports/types';
import { days, exportText, writeImportFile, type ExportedAttribute } from './import-files';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

const FIRST_RUN = new Date('2026-11-26T12:00:00Z');
const SECOND_RUN = new Date('2026-11-26T13:00:00Z');

const ATTRIBUTES: ExportedAttribute[] = [
  { name: 'mood', label: 'Mood', template: 'mood', group: 'mood', value_type: 0, values: days('2026-01-01', 30).map((d, i) => [d, (i % 9) + 1]) },
  { name: 'steps', label: 'Steps', template: 'steps', group: 'activity', value_type: 0, values: days('2026-01-01', 30).map((d, i) => [d, 1000 + i]) },
];

async function valuesByUpdate(userId: number): Promise<Record<string, number>> {
  const rows: Array<{ updated_at: Date; n: string | number }> = await app
    .db('attribute_values')
    .where({ user_id: userId })
    .groupBy('updated_at')
    .select('updated_at', app.db.raw('count(*) as n'));
  return Object.fromEntries(rows.map((r) => [r.updated_at.toISOString(), Number(r.n)]));
}

/** A real import (keep, Daybook's proposed mapping) of `file` for the person, in batches of `batchSize`, made at FIRST_RUN; and the file opened. */
async function realImport(userId: number, file: string, batchSize: number) {
  const reader = await openImportFile(file);
  const mapping = await defaultMapping(app.db, userId, reader);
  const record = await createImport(app.db, { userId, filePath: file, options: { mapping, existing: 'keep', dryRun: false }, batchSize, now: FIRST_RUN });
  return { reader, record };
}

test('a bad date half-way keeps every value before it; the fixed file continues right after them', async () => {
  const { user } = await makeUser(app);
  const full = exportText(ATTRIBUTES);
  const file = writeImportFile(full.replace('{"date":"2026-01-20","value":1019}', '{"date":"2026-01-32","value":1019}'));
  const { reader, record } = await realImport(user.id, file, 10);

  const stopped = await runImport(app.db, record.id, reader, { now: () => FIRST_RUN });
  // 30 + 19 values come before the bad date: 4 batches of 10 and a last one of the 9 after them, all applied.
  expect(stopped.fault).toEqual({ where: 'attribute 2 (steps), value 20', message: '"2026-01-32" is not a date YYYY-MM-DD.' });
  expect(stopped).toMatchObject({ batches: 5, values: 49, counts: { added: 49 } });
  expect(await findImport(app.db, user.id, record.id)).toMatchObject({ state: 'stopped', batches: 5, report: stopped });
  expect(await valuesByUpdate(user.id)).toEqual({ [FIRST_RUN.toISOString()]: 49 });

  writeFileSync(file, full);
  const done = await runImport(app.db, record.id, await openImportFile(file), { now: () => SECOND_RUN });
  expect(done.fault).toBeUndefined();
  // The 49 values of the first run are skipped, not applied again: the 11 after them are 2 batches.
  expect(done).toMatchObject({ batches: 7, values: 60, counts: { added: 60, unchanged: 0, refused: 0 }, created: ['mood', 'steps'] });
  expect(await valuesByUpdate(user.id)).toEqual({ [FIRST_RUN.toISOString()]: 49, [SECOND_RUN.toISOString()]: 11 });
  expect(await findImport(app.db, user.id, record.id)).toMatchObject({ state: 'done', batches: 7 });
});

test('a file cut short stops at the end with every value before the break kept', async () => {
  const { user } = await makeUser(app);
  const full = exportText(ATTRIBUTES);
  // Cut inside the steps values: the reader hands over whole attributes, so mood's 30 values come
  // before the break, all applied: 4 batches of 7 and a last one of 2.
  const file = writeImportFile(full.slice(0, full.indexOf('"2026-01-20"', full.indexOf('"steps"'))));
  const { reader, record } = await realImport(user.id, file, 7);
  const stopped = await runImport(app.db, record.id, reader, { now: () => FIRST_RUN });
  expect(stopped.fault).toEqual({ where: 'the end of the file', message: expect.stringContaining('The file ends before its JSON does') });
  expect(stopped).toMatchObject({ batches: 5, values: 30, counts: { added: 30 } });
  expect(await valuesByUpdate(user.id)).toEqual({ [FIRST_RUN.toISOString()]: 30 });
});

test('a run that dies between batches continues after its last checkpoint', async () => {
  const { user } = await makeUser(app);
  const file = writeImportFile(exportText(ATTRIBUTES));
  const { reader, record } = await realImport(user.id, file, 10);
  const crash = new Error('the process was killed');
  await expect(
    runImport(app.db, record.id, reader, {
      now: () => FIRST_RUN,
      onBatch: (report) => {
        if (report.batches === 2) throw crash;
      },
    }),
  ).rejects.toBe(crash);
  expect(await findImport(app.db, user.id, record.id)).toMatchObject({ state: 'running', batches: 2 });

  const done = await runImport(app.db, record.id, await openImportFile(file), { now: () => SECOND_RUN });
  expect(done).toMatchObject({ batches: 6, counts: { added: 60 } });
  expect(await valuesByUpdate(user.id)).toEqual({ [FIRST_RUN.toISOString()]: 20, [SECOND_RUN.toISOString()]: 40 });
});

test('files that are no export are refused with where and why', async () => {
  const refused = async (content: string | Buffer) => {
    const error = await openImportFile(writeImportFile(content)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ImportFault);
    return { where: (error as ImportFault).where, message: (error as ImportFault).message };
  };
  expect(await refused('')).toEqual({ where: 'the start of the file', message: 'The file is empty.' });
  expect(await refused(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 1, 2, 3]))).toMatchObject({
    message: expect.stringContaining('not a file Daybook can import'),
  });
  expect(await refused('{"name": "something else", "items": []}')).toMatchObject({ message: expect.stringContaining('not a Daybook export') });
  expect(await refused('{"exported_at": "2026-11-26", "attributes": [{"name": ')).toEqual({
    where: 'the end of the file',
    message: expect.stringContaining('The file ends before its JSON does'),
  });
});

/**
 * `npm run admin -- import` as operators run it (compiled, docs/imports.md "The operator's
 * command"): the report as JSON on stdout, exit 0 when the file went through, 3 when a fault
 * stopped it, 2 for bad arguments; run again, it continues or finds every day unchanged.
 */
import path from 'node:path';
import { startTestApp, type TestApp } from '../support/app';
import { runAdmin } from '../support/admin-cli';
import { makeUser } from '../support/fixtures';
import { days, exportText, writeImportFile } from './import-files';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

const admin = (...args: string[]) => runAdmin(app, args);

const EXPORT = exportText([
  { name: 'steps', label: 'Steps', template: 'steps', group: 'activity', value_type: 0, values: days('2026-05-01', 25).map((d, i) => [d, 5000 + i]) },
  { name: 'mood', label: 'Mood', template: 'mood', group: 'mood', value_type: 0, values: days('2026-05-01', 25).map((d, i) => [d, (i % 9) + 1]) },
]);

const storedCount = async (userId: number) => Number((await app.db('attribute_values').where({ user_id: userId }).count({ n: '*' }))[0].n);

test('a dry run prints what would happen and writes nothing; the import writes it; the same import again changes nothing', async () => {
  const { user } = await makeUser(app);
  const file = writeImportFile(EXPORT);

  const dry = await admin('import', '--username', user.username, '--file', file, '--dry-run');
  expect(dry.code).toBe(0);
  expect(JSON.parse(dry.stdout)).toMatchObject({ format: 'daybook-json', dryRun: true, counts: { added: 50, refused: 0 }, created: ['mood', 'steps'] });
  expect(await storedCount(user.id)).toBe(0);

  const real = await admin('import', '--username', user.username, '--file', file, '--batch-size', '20');
  expect(real.code).toBe(0);
  expect(JSON.parse(real.stdout)).toMatchObject({ dryRun: false, counts: { added: 50 }, batches: 3, firstDate: '2026-05-01', lastDate: '2026-05-25' });
  expect(real.stderr).toContain('Importing');
  expect(await storedCount(user.id)).toBe(50);

  const again = await admin('import', '--username', user.username, '--file', file, '--replace');
  expect(JSON.parse(again.stdout)).toMatchObject({ counts: { added: 0, changed: 0, unchanged: 50 } });
});

test('a fault in the file exits 3 with where it stopped; the fixed file run again continues the same import', async () => {
  const { user } = await makeUser(app);
  const file = writeImportFile(EXPORT.replace('{"date":"2026-05-10","value":1}', '{"date":"10/05/2026","value":1}'));
  const stopped = await admin('import', '--username', user.username, '--file', file, '--batch-size', '10');
  expect(stopped.code).toBe(3);
  expect(JSON.parse(stopped.stdout)).toMatchObject({
    // The 25 steps and the 9 mood values before the fault: 3 batches of 10 and one of 4.
    batches: 4,
    counts: { added: 34 },
    fault: { where: 'attribute 2 (mood), value 10', message: '"10/05/2026" is not a date YYYY-MM-DD.' },
  });

  writeImportFile(EXPORT, path.basename(file));
  const continued = await admin('import', '--username', user.username, '--file', file, '--batch-size', '10');
  expect(continued.code).toBe(0);
  expect(JSON.parse(continued.stdout)).toMatchObject({ batches: 6, counts: { added: 50, unchanged: 0 } });
  expect(await app.db('imports').where({ user_id: user.id }).select('state')).toEqual([{ state: 'done' }]);
});

test('bad arguments exit 2 with a sentence', async () => {
  const { user } = await makeUser(app);
  expect(await admin('import', '--username', user.username)).toMatchObject({ code: 2, stderr: '--file is required.\n' });
  expect(await admin('import', '--username', user.username, '--file', '/nonexistent/export.json')).toMatchObject({
    code: 2,
    stderr: 'There is no file /nonexistent/export.json.\n',
  });
  expect(await admin('import', '--username', 'nobody_here', '--file', writeImportFile(EXPORT))).toMatchObject({
    code: 2,
    stderr: 'No user named nobody_here.\n',
  });
});

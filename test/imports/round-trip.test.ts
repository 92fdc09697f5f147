/**
 * Daybook's own export imports into another account and gives the same attributes (labels,
 * groups, value types, custom tags) and the same values, day by day, as read over the API
 * (docs/imports.md, "Daybook's exports"), from its JSON and from its CSV.
 */
import { startTestApp, type TestApp } from '../support/app';
import { makeSession, makeUser } from '../support/fixtures';
import { PAGE } from '../support/web';
import type { User } from '../../src/domain/identity/users';
import { createImport, runImport } from '../../src/domain/imports/engine';
import { defaultMapping } from '../../src/domain/imports/default-mapping';
import { openImportFile } from '../../src/domain/imports/open';
import { setValuesByHand, trackByHand, type ValueByHand } from '../../src/domain/tracking/manual-tracking';
import { days, writeImportFile } from './import-files';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
}, 120000);
afterAll(async () => {
  await app.close();
}, 120000);

const NOW = new Date('2026-11-26T12:00:00Z');

/** Account A: templates, a custom attribute, a mood note and custom tags, over 40 days. */
async function personWithHistory(): Promise<{ user: User; simpleToken: string }> {
  const made = await makeUser(app, { timezone: 'UTC' });
  const person = { id: made.user.id, timezone: 'UTC' };
  for (const template of ['mood', 'steps', 'weight', 'mood_note']) expect(await trackByHand(app.db, person, { template }, NOW)).toMatchObject({ ok: true });
  expect(await trackByHand(app.db, person, { label: 'Coffee cups', group: 'food', valueType: 1 }, NOW)).toMatchObject({ ok: true });
  expect(await trackByHand(app.db, person, { label: 'went running', group: 'custom', valueType: 0 }, NOW)).toMatchObject({ ok: true });
  expect(await trackByHand(app.db, person, { label: 'saw friends', group: 'custom', valueType: 0 }, NOW)).toMatchObject({ ok: true });
  for (const [i, date] of days('2026-09-01', 40).entries()) {
    const values: ValueByHand[] = [
      { name: 'mood', date, value: (i % 9) + 1 },
      { name: 'steps', date, value: 4000 + i * 37 },
      { name: 'weight', date, value: 70 + i / 10 },
      { name: 'coffee_cups', date, value: (i % 4) * 0.5 },
    ];
    if (i % 3 === 0) values.push({ name: 'mood_note', date, value: `Day ${i}, "quoted", with a comma` });
    if (i % 2 === 0) values.push({ name: 'went_running', date, value: 1 });
    if (i % 5 === 0) values.push({ name: 'saw_friends', date, value: 1 });
    const results = await setValuesByHand(app.db, person, values, NOW);
    expect(results.every((r) => r.ok)).toBe(true);
  }
  return { user: made.user, simpleToken: made.simpleToken };
}

/** The account's attributes and every value of each, as the API answers them. */
async function readOverApi(simpleToken: string): Promise<{ attributes: unknown[]; values: Record<string, unknown[]> }> {
  const listed = await app.get('/api/2/attributes/?limit=100', { token: simpleToken });
  expect(listed.status).toBe(200);
  const values: Record<string, unknown[]> = {};
  for (const attribute of listed.body.results as Array<{ name: string }>) {
    const res = await app.get(`/api/2/attributes/values/?attribute=${attribute.name}&limit=100&date_max=2026-12-31`, { token: simpleToken });
    expect(res.status).toBe(200);
    values[attribute.name] = res.body.results;
  }
  return { attributes: listed.body.results, values };
}

async function importInto(user: User, file: string): Promise<void> {
  const reader = await openImportFile(file);
  const mapping = await defaultMapping(app.db, user.id, reader);
  const record = await createImport(app.db, { userId: user.id, filePath: file, options: { mapping, existing: 'keep', dryRun: false }, now: NOW });
  const report = await runImport(app.db, record.id, reader, { now: () => NOW });
  expect(report.fault).toBeUndefined();
  expect(report.counts.refused).toBe(0);
}

test.each([
  ['JSON', '/settings/account/export/data.json', 'round-trip.json'],
  ['CSV', '/settings/account/export/values.csv', 'round-trip.csv'],
])(
  "account A's %s export, imported into account B, gives B the same attributes and values",
  async (_format, exportPath, fileName) => {
    const a = await personWithHistory();
    const exported = await app.get(exportPath, { ...PAGE, session: await makeSession(app, a.user) });
    expect(exported.status).toBe(200);
    const file = writeImportFile(exported.text, fileName);

    const b = await makeUser(app, { timezone: 'UTC' });
    await importInto(b.user, file);
    const fromA = await readOverApi(a.simpleToken);
    const fromB = await readOverApi(b.simpleToken);
    expect(fromB.attributes).toEqual(fromA.attributes);
    expect(Object.keys(fromB.values).sort()).toEqual(['coffee_cups', 'custom', 'mood', 'mood_note', 'saw_friends', 'steps', 'weight', 'went_running']);
    expect(fromB.values).toEqual(fromA.values);
  },
  120000,
);

/**
 * Daybook's own values download (/settings/account/export/values.csv) reads back as the export it
 * is: each attribute a column keyed by its name, with its label, its group (the download writes the
 * group's label), its template and value type, custom tags as tags, and every value as written,
 * the spreadsheet guard on text taken off again (docs/imports-csv.md, "Daybook's own export").
 */
import { startTestApp, type TestApp } from '../support/app';
import { makeSession, makeUser } from '../support/fixtures';
import { addAttribute, addValues } from '../support/seed';
import { PAGE } from '../support/web';
import { VALUE_TYPES } from '../../src/db/catalogue-value-types';
import { csvFile, readCsv, removeCsvFiles, triples } from './csv-files';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  removeCsvFiles();
  await app.close();
});

const NOTES = ['he said "hi", then\r\nleft', '=HYPERLINK("https://evil.example/","click")', '+1', ' -2, @me'];

test("a person's values download reads back with names as keys, labels, groups, templates, value types and the values as stored", async () => {
  const { user } = await makeUser(app, { timezone: 'UTC' });
  const session = await makeSession(app, user);
  const steps = await addAttribute(app, user.id, { name: 'steps' });
  await addValues(app, user.id, steps, { '2026-10-01': -5, '2026-10-02': 7000 });
  const note = await addAttribute(app, user.id, { name: 'mood_note' });
  await addValues(app, user.id, note, Object.fromEntries(NOTES.map((text, i) => [`2026-10-0${i + 1}`, text])));
  const bedtime = await addAttribute(app, user.id, { name: 'sleep_start', label: 'Bedtime' });
  await addValues(app, user.id, bedtime, { '2026-10-01': 690 });
  const tag = await addAttribute(app, user.id, { name: 'went_swimming', template: null, label: 'Went swimming', group: 'custom', value_type: 0, priority: 2 });
  await addValues(app, user.id, tag, { '2026-10-02': 1 });
  const ratio = await addAttribute(app, user.id, {
    name: 'focus_ratio',
    template: null,
    label: 'Focus, as a ratio',
    group: 'productivity',
    value_type: 1,
    priority: 3,
  });
  await addValues(app, user.id, ratio, { '2026-10-01': 0.5, '2026-10-02': 1 });

  const res = await app.get('/settings/account/export/values.csv', { ...PAGE, session });
  expect(res.status).toBe(200);
  const read = await readCsv(csvFile(res.text));

  expect(read.format).toBe('daybook-csv');
  expect(read.fault).toBeUndefined();
  expect(read.columns).toEqual([
    { key: 'steps', name: 'steps', label: 'Steps', group: 'activity', template: 'steps', valueType: VALUE_TYPES.integer },
    { key: 'mood_note', name: 'mood_note', label: 'Mood note', group: 'mood', template: 'mood_note', valueType: VALUE_TYPES.string },
    { key: 'sleep_start', name: 'sleep_start', label: 'Bedtime', group: 'sleep', template: 'sleep_start', valueType: VALUE_TYPES.timeFromMidday },
    // A custom-group integer used as 1 is a tag: the priority the download leaves out comes back.
    { key: 'went_swimming', name: 'went_swimming', label: 'Went swimming', group: 'custom', valueType: VALUE_TYPES.integer, priority: 2 },
    { key: 'focus_ratio', name: 'focus_ratio', label: 'Focus, as a ratio', group: 'productivity', valueType: VALUE_TYPES.float },
  ]);
  expect(triples(read.values)).toEqual([
    ['steps', '2026-10-01', '-5'],
    ['steps', '2026-10-02', '7000'],
    // Text exactly as stored: the download's apostrophes before = + - @ are gone again.
    ...NOTES.map((text, i): [string, string, string] => ['mood_note', `2026-10-0${i + 1}`, text]),
    ['sleep_start', '2026-10-01', '690'],
    ['went_swimming', '2026-10-02', '1'],
    ['focus_ratio', '2026-10-01', '0.5'],
    ['focus_ratio', '2026-10-02', '1'],
  ]);
  const stored = await app.db('attribute_values').where({ user_id: user.id }).count({ n: '*' }).first();
  expect(read.values).toHaveLength(Number(stored!.n));
});

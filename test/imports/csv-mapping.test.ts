/**
 * The mapping an import proposes for a file's columns (docs/imports-csv.md, "The proposed
 * mapping"), against the person's real attributes in Postgres: their own attribute by name, then by
 * label, case-insensitively; else a catalogue template by name or label; else a new custom
 * attribute with the inferred value type; a target taken once is not proposed again.
 */
import { startTestApp, type TestApp } from '../support/app';
import { makeUser } from '../support/fixtures';
import { addAttribute } from '../support/seed';
import { proposeMapping } from '../../src/domain/imports/mapping';
import { VALUE_TYPES } from '../../src/db/catalogue-value-types';
import { csvFile, readCsv, removeCsvFiles } from './csv-files';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  removeCsvFiles();
  await app.close();
});

test("a wide file's columns map to the person's attributes, then templates, then new custom attributes", async () => {
  const { user } = await makeUser(app);
  await addAttribute(app, user.id, { name: 'steps' });
  await addAttribute(app, user.id, { name: 'reading_min', template: null, label: 'Reading time', group: 'media', value_type: VALUE_TYPES.period });
  await addAttribute(app, user.id, { name: 'coffees', label: 'Cups of coffee' });
  const read = await readCsv(
    csvFile(
      'date,STEPS,reading time,coffees,Body fat,weight,Gym?,Fed the cat,Empty\n' +
        '2024-01-01,5000,45,2,0.21,70.5,yes,1,\n' +
        '2024-01-02,6000,30,3,0.2,70.1,no,0,\n',
    ),
  );
  expect(await proposeMapping(app.db, user.id, read.columns)).toEqual({
    STEPS: { kind: 'attribute', name: 'steps' }, // by name, whatever the case
    'reading time': { kind: 'attribute', name: 'reading_min' }, // by label
    coffees: { kind: 'attribute', name: 'coffees' }, // by name, though its label differs
    'Body fat': { kind: 'template', template: 'body_fat' }, // a template by label
    weight: { kind: 'template', template: 'weight' }, // a template by name
    'Gym?': { kind: 'new', label: 'Gym?', group: 'custom', valueType: VALUE_TYPES.boolean },
    'Fed the cat': { kind: 'new', label: 'Fed the cat', group: 'custom', valueType: VALUE_TYPES.boolean },
    Empty: { kind: 'skip' }, // no value and nothing it could be
  });
});

test("another person's attributes are never proposed", async () => {
  const { user: other } = await makeUser(app);
  await addAttribute(app, other.id, { name: 'guitar_min', template: null, label: 'Guitar practice', group: 'custom', value_type: VALUE_TYPES.period });
  const { user } = await makeUser(app);
  const read = await readCsv(csvFile('date,attribute,value\n2024-01-01,Guitar practice,1:30\n2024-01-02,guitar practice,25:00\n'));
  expect(await proposeMapping(app.db, user.id, read.columns)).toEqual({
    'Guitar practice': { kind: 'new', label: 'Guitar practice', group: 'custom', valueType: VALUE_TYPES.period },
  });
});

test('an attribute or template one column took is not proposed for a second; that column falls through to the next rule', async () => {
  const { user } = await makeUser(app);
  await addAttribute(app, user.id, { name: 'mood' });
  // "mood" takes the person's mood by name; "Mood" (its label) then finds no free attribute or template and is new.
  const read = await readCsv(csvFile('date,attribute,value\n2024-01-01,mood,7\n2024-01-01,Steps,5\n2024-01-01,steps,6\n'));
  // Long-form attributes are one column whatever their case ("Steps" and "steps" here), so a day given twice is the reader's fault.
  expect(read.fault?.message).toMatch(/^A second value for Steps on 2024-01-01/);
  const wide = await readCsv(csvFile('date,mood,Mood score,Steps,steps_total\n2024-01-01,7,6,5,5\n'));
  const mapping = await proposeMapping(app.db, user.id, [
    ...wide.columns,
    // A column named as the person's mood by its label, after the mood column took it.
    { key: 'Mood (again)', label: 'mood', valueType: VALUE_TYPES.scale },
  ]);
  expect(mapping).toEqual({
    mood: { kind: 'attribute', name: 'mood' },
    'Mood score': { kind: 'new', label: 'Mood score', group: 'custom', valueType: VALUE_TYPES.integer },
    Steps: { kind: 'template', template: 'steps' },
    steps_total: { kind: 'new', label: 'steps_total', group: 'custom', valueType: VALUE_TYPES.integer },
    'Mood (again)': { kind: 'new', label: 'mood', group: 'custom', valueType: VALUE_TYPES.scale },
  });
});

test("Daybook's own export maps to the same attributes for the same person, and to templates or new attributes in their groups for another", async () => {
  const { user } = await makeUser(app);
  await addAttribute(app, user.id, { name: 'steps' });
  await addAttribute(app, user.id, { name: 'focus_ratio', template: null, label: 'Focus ratio', group: 'productivity', value_type: VALUE_TYPES.float });
  await addAttribute(app, user.id, { name: 'went_swimming', template: null, label: 'Went swimming', group: 'custom', value_type: 0, priority: 2 });
  const file = csvFile(
    'date,attribute,label,group,value\r\n' +
      '2026-10-01,steps,"Steps","Activity",5000\r\n' +
      '2026-10-01,focus_ratio,"Focus ratio","Productivity",0.5\r\n' +
      '2026-10-01,went_swimming,"Went swimming","Custom tags",1\r\n' +
      '2026-10-01,sleep_start,"Bedtime","Sleep",690\r\n',
  );
  const read = await readCsv(file);
  expect(await proposeMapping(app.db, user.id, read.columns)).toEqual({
    steps: { kind: 'attribute', name: 'steps' },
    focus_ratio: { kind: 'attribute', name: 'focus_ratio' },
    went_swimming: { kind: 'attribute', name: 'went_swimming' },
    sleep_start: { kind: 'template', template: 'sleep_start' }, // the template the name says, though the label is the person's own
  });
  const { user: newcomer } = await makeUser(app);
  expect(await proposeMapping(app.db, newcomer.id, read.columns)).toEqual({
    steps: { kind: 'template', template: 'steps' },
    focus_ratio: { kind: 'new', label: 'Focus ratio', group: 'productivity', valueType: VALUE_TYPES.float },
    went_swimming: { kind: 'new', label: 'Went swimming', group: 'custom', valueType: VALUE_TYPES.integer },
    sleep_start: { kind: 'template', template: 'sleep_start' },
  });
});

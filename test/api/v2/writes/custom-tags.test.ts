/** Custom tags and the day's `custom` text kept in step with them (docs/decisions.md, "Custom tags"). */
import { startTestApp, type TestApp } from '../../../support/app';
import { loadUserData } from '../../../../src/analytics/load-user-data';
import { valueOn, writer, type Writer } from './setup';

let app: TestApp;
let w: Writer;
beforeAll(async () => {
  app = await startTestApp();
  w = await writer(app, ['custom_read', 'custom_write']);
  const labels = ['Went running', 'Ate out', 'Saw friends', 'Headache'];
  await app.post('/api/2/attributes/create/', { bearer: w.a, json: labels.map((label) => ({ label, group: 'custom', value_type: 0 })) });
});
afterAll(async () => {
  await app.close();
});

const update = (json: unknown[]) => app.post('/api/2/attributes/update/', { bearer: w.a, json });

test('using tags on a day writes the custom text: their names with spaces, joined by ", " in write order', async () => {
  await update([{ name: 'saw_friends', date: '2026-11-01', value: 1 }]);
  await update([
    { name: 'went_running', date: '2026-11-01', value: 1 },
    { name: 'headache', date: '2026-11-01', value: 0 },
  ]);
  expect(await valueOn(app, w, 'custom', '2026-11-01')).toBe('saw friends, went running');
});

test('a tag set back to 0 leaves the text; the last one leaves an empty text, never null', async () => {
  await update([{ name: 'saw_friends', date: '2026-11-01', value: 0 }]);
  expect(await valueOn(app, w, 'custom', '2026-11-01')).toBe('went running');
  await update([{ name: 'went_running', date: '2026-11-01', value: 0 }]);
  expect(await valueOn(app, w, 'custom', '2026-11-01')).toBe('');
});

test("a day's tags are the custom attributes with priority 2 or more and value 1; the text is not the source of truth", async () => {
  await update([
    { name: 'ate_out', date: '2026-11-02', value: 1 },
    { name: 'headache', date: '2026-11-02', value: 1 },
  ]);
  const tags = await app
    .db('attribute_values as v')
    .join('attributes as a', 'a.id', 'v.attribute_id')
    .where({ 'v.user_id': w.user.id, 'v.date': '2026-11-02', 'a.group_name': 'custom', 'v.value_num': 1 })
    .where('a.priority', '>=', 2)
    .orderBy('a.name')
    .pluck('a.name');
  expect(tags).toEqual(['ate_out', 'headache']);
  expect(await valueOn(app, w, 'custom', '2026-11-02')).toBe('ate out, headache');
});

test('the text drops the oldest tags until it fits 250 characters', async () => {
  const labels = Array.from({ length: 12 }, (_, i) => `A rather long tag name number ${String(i).padStart(2, '0')}`); // 32 characters each
  const created = await app.post('/api/2/attributes/create/', { bearer: w.a, json: labels.map((label) => ({ label, group: 'custom', value_type: 0 })) });
  const names: string[] = created.body.success.map((s: { name: string }) => s.name);
  for (const name of names) await update([{ name, date: '2026-11-03', value: 1 }]);
  const text = (await valueOn(app, w, 'custom', '2026-11-03')) as string;
  expect(text.length).toBeLessThanOrEqual(250);
  expect(text.endsWith('a rather long tag name number 11')).toBe(true); // the newest is kept
  expect(text).not.toContain('number 00'); // the oldest went first
  expect(text.split(', ')).toHaveLength(7); // 7 x 32 + 6 x 2 = 236 fits; 8 would be 270
});

test('a boolean of the custom group is no tag, for the writes and for the statistics alike (one definition)', async () => {
  const created = await app.post('/api/2/attributes/create/', {
    bearer: w.a,
    json: [
      { label: 'Took vitamins', group: 'custom', value_type: 7 },
      { label: 'Long walk', group: 'custom', value_type: 0 },
    ],
  });
  expect(created.status).toBe(200);
  await update([
    { name: 'took_vitamins', date: '2026-11-04', value: 1 },
    { name: 'long_walk', date: '2026-11-04', value: 1 },
  ]);
  expect(await valueOn(app, w, 'custom', '2026-11-04')).toBe('long walk');
  const data = await loadUserData(app.db, w.user.id, '2026-11-01', '2026-11-04');
  const tagOf = (name: string) => data.attributes.find((a) => a.name === name)?.isTag;
  expect(tagOf('took_vitamins')).toBe(false);
  expect(tagOf('long_walk')).toBe(true);
});

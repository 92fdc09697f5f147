/** Labels in any script (issue 31, item 3): the label is kept, the name is an ASCII spelling or `custom_<n>`. */
import { startTestApp, type TestApp } from '../../../support/app';
import { writer, type Writer } from './setup';

let app: TestApp;
let w: Writer;
beforeAll(async () => {
  app = await startTestApp();
  w = await writer(app, ['food_write', 'food_read', 'custom_write', 'custom_read']);
});
afterAll(async () => {
  await app.close();
});

const create = (json: unknown[]) => app.post('/api/2/attributes/create/', { bearer: w.a, json });
const names = (res: { body: { success: Array<{ name: string }> } }) => res.body.success.map((s) => s.name);

test('a label without Latin letters is created under a custom_<n> name and keeps its label', async () => {
  const res = await create([{ label: '日本語', group: 'food', value_type: 0 }]);
  expect(res.status).toBe(200);
  const [name] = names(res);
  expect(name).toMatch(/^custom_[0-9]+$/);
  expect(res.body.success[0]).toEqual({ label: '日本語', group: 'food', value_type: 0, name, priority: 5, manual: true });

  const listed = await app.get(`/api/2/attributes/?attributes=${name}`, { bearer: w.a });
  expect(listed.body.results).toEqual([expect.objectContaining({ name, label: '日本語', template: null })]);
  const written = await app.post('/api/2/attributes/update/', { bearer: w.a, json: [{ name, date: '2026-11-20', value: 3 }] });
  expect(written.status).toBe(200);
});

test('the same label again (also with other spaces or punctuation around it) has the same name, so it fails already_exists as any taken name', async () => {
  const first = await app.get('/api/2/attributes/?groups=food', { bearer: w.a });
  const name = (first.body.results as Array<{ name: string; label: string }>).find((a) => a.label === '日本語')?.name;
  const res = await create([
    { label: '日本語', group: 'food', value_type: 0 },
    { label: ' 日本語! ', group: 'food', value_type: 0 },
  ]);
  expect(res.status).toBe(202);
  expect(res.body.failed).toEqual([
    { label: '日本語', group: 'food', value_type: 0, error: `Attribute ${name} already exists.`, error_code: 'already_exists' },
    { label: ' 日本語! ', group: 'food', value_type: 0, error: `Attribute ${name} already exists.`, error_code: 'already_exists' },
  ]);
});

test('Greek, Cyrillic and Latin letters without a decomposition are spelled out; a label mixing in other letters gets its own custom name', async () => {
  const res = await create([
    { label: 'Кофе с молоком', group: 'food', value_type: 0 },
    { label: 'Ψωμί', group: 'food', value_type: 0 },
    { label: 'Straße', group: 'food', value_type: 0 },
    { label: 'Tee 茶', group: 'food', value_type: 0 },
    { label: 'Tee 紅茶', group: 'food', value_type: 0 },
    { label: 'Чай', group: 'custom', value_type: 0 },
  ]);
  expect(res.status).toBe(200);
  const [coffee, bread, street, tea, blackTea, tag] = names(res);
  expect([coffee, bread, street, tag]).toEqual(['kofe_s_molokom', 'psomi', 'strasse', 'chai']);
  expect(tea).toMatch(/^custom_[0-9]+$/);
  expect(blackTea).toMatch(/^custom_[0-9]+$/);
  expect(tea).not.toBe(blackTea);
});

test('a label with no letter or digit in any script is refused with a sentence', async () => {
  const res = await create([{ label: '☕ — !', group: 'food', value_type: 0 }]);
  expect(res.status).toBe(202);
  expect(res.body.failed[0]).toMatchObject({
    error: 'Item 0: the label needs at least one letter or digit (in any script).',
    error_code: 'validation',
  });
});

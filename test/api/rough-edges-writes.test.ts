/** Issue 31's write rough edges (items 1, 2, 4, 5): custom text length, batch order, tag values, the create echo. */
import { startTestApp, type TestApp } from '../support/app';
import { acquire, valueOn, writer, type Writer } from './v2/writes/setup';

let app: TestApp;
let w: Writer;
beforeAll(async () => {
  app = await startTestApp();
  w = await writer(app, ['custom_read', 'custom_write']);
  await acquire(app, w.a, ['custom']);
  await app.post('/api/2/attributes/create/', { bearer: w.a, json: ['Ate out', 'Saw friends'].map((label) => ({ label, group: 'custom', value_type: 0 })) });
});
afterAll(async () => {
  await app.close();
});

const update = (json: unknown[]) => app.post('/api/2/attributes/update/', { bearer: w.a, json });

test('a custom text over 250 characters is kept to 250 by dropping whole tags from the start', async () => {
  const tags = Array.from({ length: 10 }, (_, i) => `a tag of about thirty characters ${i}`); // 34 characters each
  const res = await update([{ name: 'custom', date: '2026-11-15', value: tags.join(', ') }]);
  expect(res.status).toBe(200);
  const stored = (await valueOn(app, w, 'custom', '2026-11-15')) as string;
  expect(stored.length).toBeLessThanOrEqual(250);
  expect(stored).toBe(tags.slice(-7).join(', ')); // 7 whole tags fit (7*34 + 6*2 = 250)
});

test('a custom text of one 300-character word is cut at 250', async () => {
  await update([{ name: 'custom', date: '2026-11-16', value: 'x'.repeat(300) }]);
  expect(await valueOn(app, w, 'custom', '2026-11-16')).toBe('x'.repeat(250));
});

test('a tag then a custom text in one batch keeps the text, as two requests would', async () => {
  const res = await update([
    { name: 'ate_out', date: '2026-11-23', value: 1 },
    { name: 'custom', date: '2026-11-23', value: 'after tag' },
  ]);
  expect(res.status).toBe(200);
  expect(await valueOn(app, w, 'custom', '2026-11-23')).toBe('after tag');
  // The other order: the tag written last rebuilds the text from the day's tags.
  await update([
    { name: 'custom', date: '2026-11-24', value: 'before tag' },
    { name: 'saw_friends', date: '2026-11-24', value: 1 },
  ]);
  expect(await valueOn(app, w, 'custom', '2026-11-24')).toBe('saw friends');
});

test.each([2, -1])('a custom tag refuses %p with a validation error and writes nothing', async (value) => {
  const res = await update([
    { name: 'ate_out', date: '2026-11-20', value },
    { name: 'saw_friends', date: '2026-11-20', value: 1 },
  ]);
  expect(res.status).toBe(202);
  expect(res.body.failed).toEqual([expect.objectContaining({ name: 'ate_out', error_code: 'validation', error: expect.stringContaining('0 otherwise') })]);
  expect(await valueOn(app, w, 'ate_out', '2026-11-20')).toBeNull();
  expect(await valueOn(app, w, 'saw_friends', '2026-11-20')).toBe(1);
});

test('an increment taking a custom tag past 1 fails with a validation error', async () => {
  await update([{ name: 'saw_friends', date: '2026-11-21', value: 1 }]);
  const res = await app.post('/api/2/attributes/increment/', { bearer: w.a, json: [{ name: 'saw_friends', date: '2026-11-21', value: 1 }] });
  expect(res.status).toBe(202);
  expect(res.body.failed[0].error_code).toBe('validation');
  expect(await valueOn(app, w, 'saw_friends', '2026-11-21')).toBe(1);
});

test('the create answer echoes the priority stored, not the one sent', async () => {
  const res = await app.post('/api/2/attributes/create/', {
    bearer: w.a,
    json: [
      { label: 'Cups of green tea', group: 'custom', value_type: 3, priority: 4 },
      { label: 'Went swimming', group: 'custom', value_type: 0 },
    ],
  });
  expect(res.status).toBe(200);
  const stored = await app
    .db('attributes')
    .where({ user_id: w.user.id })
    .whereIn('name', ['cups_of_green_tea', 'went_swimming'])
    .orderBy('name')
    .select('name', 'priority');
  expect(stored).toEqual([
    { name: 'cups_of_green_tea', priority: 5 },
    { name: 'went_swimming', priority: 2 },
  ]);
  expect(res.body.success).toEqual([
    expect.objectContaining({ name: 'cups_of_green_tea', priority: 5, manual: true }),
    expect.objectContaining({ name: 'went_swimming', priority: 2, manual: true }),
  ]);
});

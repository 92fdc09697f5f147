/**
 * The write statement passes its values as array literals Daybook writes itself (src/db/sql.ts,
 * `arrayText`): texts with quotes, backslashes, commas, braces, NULL-looking words and non-ASCII
 * characters reach PostgreSQL unchanged, as stored values and as the attribute names a batch names.
 */
import { startTestApp, type TestApp } from '../../../support/app';
import { acquire, valueOn, writer, type Writer } from './setup';

let app: TestApp;
let w: Writer;
beforeAll(async () => {
  app = await startTestApp();
  w = await writer(app);
  await acquire(app, w.a, ['steps', 'location', 'mood_note']);
});
afterAll(async () => {
  await app.close();
});

const AWKWARD_TEXTS = ['say "hi"', 'back\\slash', '\\"', 'a,b', '{braces}', '}', 'NULL', 'null', '', '  spaced  ', "it's", 'ünïcødé 日本 🎉'];

test('string values of one batch are stored and answered exactly as sent', async () => {
  const items = AWKWARD_TEXTS.flatMap((text, i) => [
    { name: 'location', date: `2026-10-${String(i + 1).padStart(2, '0')}`, value: text },
    { name: 'mood_note', date: `2026-10-${String(i + 1).padStart(2, '0')}`, value: `${text}|${text}` },
  ]);
  const res = await app.post('/api/2/attributes/update/', { bearer: w.a, json: items });
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ success: items, failed: [] });
  for (const item of items) expect([item.name, item.date, await valueOn(app, w, item.name, item.date)]).toEqual([item.name, item.date, item.value]);
});

test('names with such characters reach the database as sent: each fails alone as not found, the rest is written', async () => {
  const odd = AWKWARD_TEXTS.filter((text) => text !== '');
  const items = [{ name: 'steps', date: '2026-10-20', value: 4321 }, ...odd.map((name) => ({ name, date: '2026-10-20', value: 1 }))];
  const res = await app.post('/api/2/attributes/update/', { bearer: w.a, json: items });
  expect(res.status).toBe(202);
  expect(res.body.success).toEqual([items[0]]);
  expect(res.body.failed).toEqual(
    odd.map((name) => ({ name, date: '2026-10-20', value: 1, error: `There is no attribute named ${name}.`, error_code: 'not_found' })),
  );
  expect(await valueOn(app, w, 'steps', '2026-10-20')).toBe(4321);
});

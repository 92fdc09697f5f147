/**
 * Tracking by hand writes through the batch write path (docs/batch-writes.md, "Tracking by hand"):
 * a person's day typed on a page is one batch, answered value by value in the order given.
 */
import { startTestApp, type TestApp } from '../support/app';
import { makeUser } from '../support/fixtures';
import { setValuesByHand, trackByHand } from '../../src/domain/tracking/manual-tracking';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

test('a day of several values is one batch: each answered in order, a refused one changes nothing, the others are stored', async () => {
  const { user } = await makeUser(app, { timezone: 'UTC' });
  const person = { id: user.id, timezone: 'UTC' };
  const now = new Date('2026-11-20T12:00:00Z');
  for (const template of ['mood', 'steps', 'water']) expect(await trackByHand(app.db, person, { template }, now)).toMatchObject({ ok: true });
  const statements: string[] = [];
  const listen = (query: { sql: string }) => statements.push(query.sql);
  app.db.on('query', listen);
  const results = await setValuesByHand(
    app.db,
    person,
    [
      { name: 'mood', date: '2026-11-20', value: 7 },
      { name: 'steps', date: '2026-11-20', value: 12.5 }, // steps are whole numbers
      { name: 'water', date: '2026-11-20', value: 1500 },
    ],
    now,
  );
  app.db.off('query', listen);
  expect(results).toEqual([
    { ok: true, name: 'mood' },
    { ok: false, problem: 'Attribute steps takes an integer value; 12.5 is not one.' },
    { ok: true, name: 'water' },
  ]);
  const stored = await app
    .db('attribute_values as v')
    .join('attributes as a', 'a.id', 'v.attribute_id')
    .where({ 'v.user_id': user.id })
    .orderBy('a.name')
    .select('a.name', 'v.value_num');
  expect(stored).toEqual([
    { name: 'mood', value_num: 7 },
    { name: 'water', value_num: 1500 },
  ]);
  // Daybook's service, the attributes' read and the write: one statement writes the whole day.
  expect(statements.filter((sql) => /^\s*(insert|with)/i.test(sql))).toHaveLength(1);
});

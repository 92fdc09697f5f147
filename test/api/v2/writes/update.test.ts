import { startTestApp, type TestApp } from '../../../support/app';
import { makeSession } from '../../../support/fixtures';
import { acquire, valueOn, writer, type Writer } from './setup';

let app: TestApp;
let w: Writer;
beforeAll(async () => {
  app = await startTestApp();
  w = await writer(app);
  await acquire(app, w.a, ['steps', 'weight', 'mood', 'mood_note', 'sleep', 'body_fat', 'sleep_start', 'sleep_end', 'location']);
  await app.post('/api/2/attributes/create/', {
    bearer: w.a,
    json: [
      { label: 'Sauna', group: 'health', value_type: 7 },
      { label: 'Energy level', group: 'health', value_type: 8 },
    ],
  });
});
afterAll(async () => {
  await app.close();
});

const update = (bearer: string, items: unknown[]) => app.post('/api/2/attributes/update/', { bearer, json: items });

test('every item applied answers 200 echoing the items in order, and the values are stored', async () => {
  const items = [
    { name: 'steps', date: '2026-11-01', value: 8412 },
    { name: 'weight', date: '2026-11-01', value: 71.5 },
    { name: 'location', date: '2026-11-01', value: '51.5,-0.12' },
  ];
  const res = await update(w.a, items);
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ success: items, failed: [] });
  expect(await valueOn(app, w, 'steps', '2026-11-01')).toBe(8412);
  expect(await valueOn(app, w, 'weight', '2026-11-01')).toBe(71.5);
  expect(await valueOn(app, w, 'location', '2026-11-01')).toBe('51.5,-0.12');
});

test('an update overwrites the day total', async () => {
  await update(w.a, [{ name: 'steps', date: '2026-11-02', value: 100 }]);
  await update(w.a, [{ name: 'steps', date: '2026-11-02', value: 250 }]);
  expect(await valueOn(app, w, 'steps', '2026-11-02')).toBe(250);
});

test('a missing field fails that item alone with missing_field naming its index and fields; the answer is 202', async () => {
  const res = await update(w.a, [{ name: 'steps', date: '2026-11-03', value: 10 }, { name: 'sleep' }, { name: 'steps', date: '2026-11-04', value: 20 }]);
  expect(res.status).toBe(202);
  expect(res.body.success).toEqual([
    { name: 'steps', date: '2026-11-03', value: 10 },
    { name: 'steps', date: '2026-11-04', value: 20 },
  ]);
  expect(res.body.failed).toEqual([{ name: 'sleep', error: 'Item 1 is missing required fields: date, value.', error_code: 'missing_field' }]);
  expect(await valueOn(app, w, 'steps', '2026-11-04')).toBe(20);
});

test('a value is never set back to null', async () => {
  await update(w.a, [{ name: 'steps', date: '2026-11-05', value: 500 }]);
  const res = await update(w.a, [{ name: 'steps', date: '2026-11-05', value: null }]);
  expect(res.status).toBe(202);
  expect(res.body.failed[0].error_code).toBe('validation');
  expect(res.body.failed[0].error).toMatch(/cannot be null/);
  expect(await valueOn(app, w, 'steps', '2026-11-05')).toBe(500);
});

describe('values are checked by the attribute value type and the ranges the spec states', () => {
  const accepted: Array<[string, unknown]> = [
    ['steps', 0],
    ['steps', 12000],
    ['weight', 70],
    ['weight', 70.25],
    ['location', 'home'],
    ['sleep', 420],
    ['sleep_end', 430],
    ['sleep_start', -30],
    ['body_fat', 0],
    ['body_fat', 0.215],
    ['body_fat', 1],
    ['sauna', 0],
    ['sauna', 1],
    ['energy_level', 1],
    ['energy_level', 9],
    ['mood', 1],
    ['mood', 9],
    ['mood_note', 'x'.repeat(1000)],
    ['mood_note', '🙂'.repeat(1000)],
  ];
  /** Test titles show long strings by their length. */
  const shown = (value: unknown) => (typeof value === 'string' && value.length > 40 ? `a string of ${[...value].length} characters` : JSON.stringify(value));
  const refused: Array<[string, unknown, RegExp]> = [
    ['steps', 1.5, /integer/],
    ['steps', '8000', /integer/],
    ['steps', true, /integer/],
    ['weight', 'heavy', /number/],
    ['location', 12, /string/],
    ['sleep', 7.5, /integer/],
    ['body_fat', 1.01, /0\.0 to 1\.0/],
    ['body_fat', -0.1, /0\.0 to 1\.0/],
    ['sauna', 2, /0 or 1/],
    ['sauna', true, /integer/],
    ['energy_level', 0, /1 to 9/],
    ['energy_level', 10, /1 to 9/],
    ['mood', 0, /1 to 9/],
    ['mood', 10, /1 to 9/],
    ['mood', 5.5, /integer/],
    ['mood_note', 'x'.repeat(1001), /1000 characters/],
    ['steps', { n: 1 }, /integer/],
    ['steps', [1], /integer/],
  ];

  test.each(accepted.map(([name, value]) => ({ name, value, label: shown(value) })))('$name accepts $label', async ({ name, value }) => {
    const res = await update(w.a, [{ name, date: '2026-10-01', value }]);
    expect([res.status, res.body.failed]).toEqual([200, []]);
    expect(await valueOn(app, w, name, '2026-10-01')).toEqual(value);
  });

  test.each(refused.map(([name, value, message]) => ({ name, value, message, label: shown(value) })))(
    '$name refuses $label with validation',
    async ({ name, value, message }) => {
      const before = await valueOn(app, w, name, '2026-10-02');
      const res = await update(w.a, [{ name, date: '2026-10-02', value }]);
      expect(res.status).toBe(202);
      expect(res.body.failed[0]).toMatchObject({ name, error_code: 'validation' });
      expect(res.body.failed[0].error).toMatch(message);
      expect(await valueOn(app, w, name, '2026-10-02')).toEqual(before);
    },
  );
});

test.each([
  ['2026-02-30', 'validation'],
  ['2026-13-01', 'validation'],
  ['21-11-2026', 'validation'],
  ['yesterday', 'validation'],
  [20261101, 'invalid_type'],
])('date %j fails with %s', async (date, code) => {
  const res = await update(w.a, [{ name: 'steps', date, value: 1 }]);
  expect(res.body.failed[0].error_code).toBe(code);
});

test('a name that is not a string is invalid_type; an unknown name is not_found', async () => {
  const res = await update(w.a, [
    { name: 42, date: '2026-11-01', value: 1 },
    { name: 'no_such_attribute', date: '2026-11-01', value: 1 },
  ]);
  expect(res.body.failed.map((f: { error_code: string }) => f.error_code)).toEqual(['invalid_type', 'not_found']);
});

test('an attribute owned by another service fails with unauthorised and keeps its value', async () => {
  await update(w.a, [{ name: 'steps', date: '2026-11-06', value: 900 }]);
  const res = await update(w.b, [{ name: 'steps', date: '2026-11-06', value: 1 }]);
  expect(res.status).toBe(202);
  expect(res.body.failed[0]).toMatchObject({ error_code: 'unauthorised' });
  expect(await valueOn(app, w, 'steps', '2026-11-06')).toBe(900);
});

test('a token without the group write scope fails with forbidden_scope', async () => {
  const readOnly = await writer(app, ['activity_read', 'activity_write', 'mood_read']);
  await acquire(app, readOnly.a, ['steps']);
  await app.db('attributes').where({ user_id: readOnly.user.id, name: 'steps' }).update({ group_name: 'mood' }); // the group may change
  const res = await update(readOnly.a, [{ name: 'steps', date: '2026-11-01', value: 1 }]);
  expect(res.body.failed[0].error_code).toBe('forbidden_scope');
  expect(res.body.failed[0].error).toMatch(/mood_write/);
});

test('a simple token or a browser session gets 403: writing is for OAuth2 clients only', async () => {
  const viaToken = await app.post('/api/2/attributes/update/', { token: w.simpleToken, json: [{ name: 'steps', date: '2026-11-01', value: 1 }] });
  expect(viaToken.status).toBe(403);
  expect(viaToken.body.detail).toMatch(/OAuth2 clients only/);
  const viaSession = await app.post('/api/2/attributes/update/', { session: await makeSession(app, w.user), json: [] });
  expect(viaSession.status).toBe(403);
});

test('36 items are refused with 400 and nothing is written', async () => {
  const items = Array.from({ length: 36 }, (_, i) => ({ name: 'steps', date: `2026-09-${String((i % 28) + 1).padStart(2, '0')}`, value: 7 }));
  const res = await update(w.a, items);
  expect(res.status).toBe(400);
  expect(await valueOn(app, w, 'steps', '2026-09-01')).toBeNull();
  const ok = await update(w.a, items.slice(0, 35));
  expect(ok.status).toBe(200);
});

test('every committed write records the changed day for the derived-data jobs, in the same transaction', async () => {
  await update(w.a, [
    { name: 'steps', date: '2026-08-15', value: 3 },
    { name: 'steps', date: '2026-08-16', value: 'x' },
  ]);
  const changed = await app.db('value_changes').where({ user_id: w.user.id }).whereIn('date', ['2026-08-15', '2026-08-16']).pluck('date');
  expect(changed).toEqual(['2026-08-15']);
});

test("another user is never touched: a name is looked up among the caller's own attributes", async () => {
  const other = await writer(app);
  await acquire(app, other.a, ['steps']);
  await update(other.a, [{ name: 'steps', date: '2026-11-07', value: 4242 }]);
  expect(await valueOn(app, w, 'steps', '2026-11-07')).toBeNull();
  expect(await valueOn(app, other, 'steps', '2026-11-07')).toBe(4242);
});

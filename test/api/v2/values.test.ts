import { startTestApp, type TestApp } from '../../support/app';
import { makeClient, makeToken, makeUser } from '../../support/fixtures';
import { addAttribute, addValues, countQueries } from '../../support/seed';
import { addDays } from '../../../src/domain/time';
import type { User } from '../../../src/domain/identity/users';

let app: TestApp;
let person: User;
let token: string;

const NOW = new Date('2026-11-22T12:00:00Z');
const dates = (body: { results: Array<{ date: string }> }) => body.results.map((r) => r.date);

/** 150 days of steps ending 2026-11-22, every third day missing, plus one future-dated value. */
const STEPS: Record<string, number> = {};
for (let i = 0; i < 150; i++) if (i % 3 !== 2) STEPS[addDays('2026-11-22', -i)] = 1000 + i;
STEPS['2026-11-25'] = 77;
const STORED_UP_TO_TODAY = Object.keys(STEPS)
  .filter((d) => d <= '2026-11-22')
  .sort()
  .reverse();

beforeAll(async () => {
  app = await startTestApp();
  app.setNow(NOW);
  const made = await makeUser(app, { timezone: 'UTC' });
  person = made.user;
  token = made.simpleToken;
  await addValues(app, person.id, await addAttribute(app, person.id, { name: 'steps' }), STEPS);
  await addValues(app, person.id, await addAttribute(app, person.id, { name: 'weight' }), { '2026-11-22': 71.4, '2026-11-20': 72 });
  await addValues(app, person.id, await addAttribute(app, person.id, { name: 'mood_note' }), { '2026-11-22': '42' });
  await addValues(app, person.id, await addAttribute(app, person.id, { name: 'floors', active: false }), { '2026-11-22': 3 });
  await addValues(app, person.id, await addAttribute(app, person.id, { name: 'headache', template: null, group: 'symptoms', value_type: 7, manual: true }), {
    '2026-11-22': 0,
    '2026-11-21': 1,
  });
});
afterAll(async () => {
  app.setNow(undefined);
  await app.close();
});

describe('GET /api/2/attributes/values/', () => {
  test('lists one attribute’s stored values newest first; days without data are not padded and count counts stored values', async () => {
    const res = await app.get('/api/2/attributes/values/?attribute=steps', { token });
    expect(res.status).toBe(200);
    expect(res.body.count).toBe(STORED_UP_TO_TODAY.length);
    expect(res.body.results).toHaveLength(20);
    expect(res.body.results.slice(0, 3)).toEqual([
      { date: '2026-11-22', value: 1000 },
      { date: '2026-11-21', value: 1001 },
      { date: '2026-11-19', value: 1003 },
    ]);
    expect(dates(res.body)).toEqual(STORED_UP_TO_TODAY.slice(0, 20));
  });

  test('date_max defaults to the person’s today and is inclusive when given', async () => {
    expect(dates((await app.get('/api/2/attributes/values/?attribute=steps&limit=1', { token })).body)).toEqual(['2026-11-22']);
    const future = await app.get('/api/2/attributes/values/?attribute=steps&limit=2&date_max=2026-12-31', { token });
    expect(future.body.results).toEqual([
      { date: '2026-11-25', value: 77 },
      { date: '2026-11-22', value: 1000 },
    ]);
    const inclusive = await app.get('/api/2/attributes/values/?attribute=steps&limit=2&date_max=2026-11-19', { token });
    expect(dates(inclusive.body)).toEqual(['2026-11-19', '2026-11-18']);
    expect(inclusive.body.count).toBe(STORED_UP_TO_TODAY.filter((d) => d <= '2026-11-19').length);
    const before = await app.get('/api/2/attributes/values/?attribute=steps&date_max=2000-01-01', { token });
    expect(before.body).toEqual({ count: 0, next: null, previous: null, results: [] });
  });

  test('values are typed by the attribute’s value type', async () => {
    expect((await app.get('/api/2/attributes/values/?attribute=weight', { token })).body.results).toEqual([
      { date: '2026-11-22', value: 71.4 },
      { date: '2026-11-20', value: 72 },
    ]);
    const note = await app.get('/api/2/attributes/values/?attribute=mood_note', { token });
    expect(note.body.results).toEqual([{ date: '2026-11-22', value: '42' }]);
    expect(note.text).toContain('"value":"42"');
    expect((await app.get('/api/2/attributes/values/?attribute=headache', { token })).body.results).toEqual([
      { date: '2026-11-22', value: 0 },
      { date: '2026-11-21', value: 1 },
    ]);
  });

  test('each value is written as JavaScript writes it, the values PostgreSQL spells otherwise too', async () => {
    // Stored as a write under another value type, or by hand: the answer types them by the attribute's type.
    const store = async (name: string, value_type: number, stored: Array<[string, unknown, string | null]>) => {
      const attribute = await addAttribute(app, person.id, { name, template: null, value_type });
      const rows = stored.map(([date, num, text]) => ({ user_id: person.id, attribute_id: attribute.id, date, value_num: num, value_text: text }));
      await app.db('attribute_values').insert(rows);
    };
    const float = (text: string) => app.db.raw('?::float8', [text]);
    await store('odd_floats', 1, [
      ['2026-11-22', 0.00001, null],
      ['2026-11-21', 0.0001, null],
      ['2026-11-20', 123456789012345.6, null],
      ['2026-11-19', 1e15, null],
      ['2026-11-18', 1e21, null],
      ['2026-11-17', float('-0'), null],
      ['2026-11-16', float('NaN'), null],
      ['2026-11-15', float('-Infinity'), null],
      ['2026-11-14', 0.1 + 0.2, null],
      ['2026-11-13', 5e-324, null],
      ['2026-11-12', null, '3.5'],
      ['2026-11-11', -71.25, null],
      ['2026-11-10', 999999999999999.9, null],
    ]);
    await store('odd_integers', 0, [
      ['2026-11-22', 2.5, null],
      ['2026-11-21', -2.5, null],
      ['2026-11-20', 1e16, null],
      ['2026-11-19', -0.2, null],
      ['2026-11-18', -7, null],
      ['2026-11-17', null, '12'],
      ['2026-11-16', 1e300, null],
    ]);
    await store('odd_strings', 2, [
      ['2026-11-22', null, 'plain'],
      ['2026-11-21', null, 'say "hi"'],
      ['2026-11-20', null, 'back\\slash'],
      ['2026-11-19', null, 'line\nbreak\ttab\u0001'],
      ['2026-11-18', null, 'ünïcode ✓ 😀 \u007f \u2028'],
      ['2026-11-17', 42, null],
      ['2026-11-16', 1e-7, null],
      ['2026-11-15', float('NaN'), null],
    ]);
    const expected: Record<string, unknown[]> = {
      odd_floats: [0.00001, 0.0001, 123456789012345.6, 1e15, 1e21, 0, null, null, 0.1 + 0.2, 5e-324, 3.5, -71.25, 999999999999999.9],
      odd_integers: [3, -2, 1e16, 0, -7, 12, 1e300],
      odd_strings: ['plain', 'say "hi"', 'back\\slash', 'line\nbreak\ttab\u0001', 'ünïcode ✓ 😀 \u007f \u2028', '42', '1e-7', null],
    };
    for (const [name, values] of Object.entries(expected)) {
      const res = await app.get(`/api/2/attributes/values/?attribute=${name}`, { token });
      const results = values.map((value, i) => ({ date: addDays('2026-11-22', -i), value }));
      expect(res.text).toContain(`"results":${JSON.stringify(results)}}`);
      expect(res.body.count).toBe(values.length);
    }
    // A page of plain values around an odd one keeps its order.
    const middle = await app.get('/api/2/attributes/values/?attribute=odd_floats&limit=3&page=2', { token });
    expect(middle.body.results).toEqual([
      { date: '2026-11-19', value: 1e15 },
      { date: '2026-11-18', value: 1e21 },
      { date: '2026-11-17', value: 0 },
    ]);
  });

  test('an inactive attribute’s values are still listed when it is named', async () => {
    expect((await app.get('/api/2/attributes/values/?attribute=floors', { token })).body.results).toEqual([{ date: '2026-11-22', value: 3 }]);
  });

  test('pages: limit at most 100, next and previous keep the other parameters, past the end is 404', async () => {
    const total = STORED_UP_TO_TODAY.length; // 100
    const first = await app.get('/api/2/attributes/values/?attribute=steps&limit=40&date_max=2026-11-22', { token });
    expect(first.body.count).toBe(total);
    expect(first.body.previous).toBeNull();
    expect(Object.fromEntries(new URL(first.body.next).searchParams)).toEqual({ attribute: 'steps', limit: '40', date_max: '2026-11-22', page: '2' });
    const last = await app.get('/api/2/attributes/values/?attribute=steps&limit=40&date_max=2026-11-22&page=3', { token });
    expect(dates(last.body)).toEqual(STORED_UP_TO_TODAY.slice(80));
    expect(last.body.next).toBeNull();
    expect(new URL(last.body.previous).searchParams.get('page')).toBe('2');
    expect((await app.get('/api/2/attributes/values/?attribute=steps&limit=40&date_max=2026-11-22&page=4', { token })).status).toBe(404);

    const clamped = await app.get('/api/2/attributes/values/?attribute=steps&limit=101&date_max=2026-12-31', { token });
    expect(clamped.body.count).toBe(total + 1);
    expect(clamped.body.results).toHaveLength(100);
    const rest = await app.get('/api/2/attributes/values/?attribute=steps&limit=101&date_max=2026-12-31&page=2', { token });
    expect(rest.body.results).toEqual([{ date: STORED_UP_TO_TODAY[total - 1], value: STEPS[STORED_UP_TO_TODAY[total - 1]] }]);
  });

  test('a page’s links keep the other parameters in the order sent, then page; the answer is JSON and varies by encoding', async () => {
    const res = await app.get('/api/2/attributes/values/?page=2&attribute=steps&limit=40&date_max=2026-11-22', { token });
    for (const [link, page] of [
      [res.body.next, 3],
      [res.body.previous, 1],
    ] as const) {
      const url = new URL(link);
      expect(url.pathname).toBe('/api/2/attributes/values/');
      expect(url.search).toBe(`?attribute=steps&limit=40&date_max=2026-11-22&page=${page}`);
    }
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('vary')).toBe('Accept-Encoding');
  });

  test('walking every page lists each stored value exactly once', async () => {
    const seen: string[] = [];
    for (let page = 1; page <= 8; page++)
      seen.push(...dates((await app.get(`/api/2/attributes/values/?attribute=steps&limit=13&page=${page}`, { token })).body));
    expect(seen).toEqual(STORED_UP_TO_TODAY);
  });

  test('an unknown attribute is an empty list, and a later page of it is 404', async () => {
    const res = await app.get('/api/2/attributes/values/?attribute=teleportations', { token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ count: 0, next: null, previous: null, results: [] });
    expect((await app.get('/api/2/attributes/values/?attribute=teleportations&page=2', { token })).status).toBe(404);
  });

  test('an attribute outside the token’s scopes is an empty list; manual_read shows manual attributes', async () => {
    const { client } = await makeClient(app, person);
    const moodOnly = await makeToken(app, person, client, ['mood_read']);
    expect((await app.get('/api/2/attributes/values/?attribute=steps', { bearer: moodOnly.access_token })).body.count).toBe(0);
    expect((await app.get('/api/2/attributes/values/?attribute=mood_note', { bearer: moodOnly.access_token })).body.count).toBe(1);
    expect((await app.get('/api/2/attributes/values/?attribute=headache', { bearer: moodOnly.access_token })).body.count).toBe(0);
    const manual = await makeToken(app, person, client, ['manual_read']);
    expect((await app.get('/api/2/attributes/values/?attribute=headache', { bearer: manual.access_token })).body.count).toBe(2);
    expect((await app.get('/api/2/attributes/values/?attribute=weight', { bearer: manual.access_token })).body.count).toBe(0);
  });

  test('another person’s values of the same attribute name are never visible', async () => {
    const other = await makeUser(app, { timezone: 'UTC' });
    await addValues(app, other.user.id, await addAttribute(app, other.user.id, { name: 'steps' }), { '2026-11-22': 5 });
    expect((await app.get('/api/2/attributes/values/?attribute=steps', { token: other.simpleToken })).body.results).toEqual([{ date: '2026-11-22', value: 5 }]);
    expect((await app.get('/api/2/attributes/values/?attribute=steps&limit=1', { token })).body.results).toEqual([{ date: '2026-11-22', value: 1000 }]);
    expect((await app.get('/api/2/attributes/values/?attribute=weight', { token: other.simpleToken })).body.count).toBe(0);
  });

  test('is one query whatever the page size', async () => {
    const small = await countQueries(app, () => app.get('/api/2/attributes/values/?attribute=steps&limit=1&date_max=2026-11-22', { token }), /attribute/);
    const large = await countQueries(app, () => app.get('/api/2/attributes/values/?attribute=steps&limit=100&date_max=2026-11-22', { token }), /attribute/);
    expect(large.result.body.results).toHaveLength(100);
    expect(small.queries).toBe(1);
    expect(large.queries).toBe(1);
  });

  test.each([
    ['', 'attribute'],
    ['attribute=', 'attribute'],
    ['attribute=steps&date_max=2026-02-30', 'date_max'],
    ['attribute=steps&date_max=2026-2-3', 'date_max'],
    ['attribute=steps&date_max=0000-12-31', 'date_max'],
    ['attribute=steps&limit=0', 'limit'],
    ['attribute=steps&limit=many', 'limit'],
    ['attribute=steps&page=0', 'page'],
  ])('?%s is 400 naming %s', async (query, name) => {
    const res = await app.get(`/api/2/attributes/values/?${query}`, { token });
    expect(res.status).toBe(400);
    expect(res.body.detail).toEqual(expect.stringContaining(name));
    expect(res.body.errors).toEqual([expect.objectContaining({ in: 'query', name })]);
  });
});

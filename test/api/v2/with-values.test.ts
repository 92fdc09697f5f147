import { startTestApp, type TestApp } from '../../support/app';
import { makeUser } from '../../support/fixtures';
import { addAttribute, addAttributes, addValues, countQueries, type SeededAttribute } from '../../support/seed';
import type { User } from '../../../src/domain/identity/users';

let app: TestApp;
let person: User;
let token: string;
const seeded: Record<string, SeededAttribute> = {};

const NOW = new Date('2026-11-22T12:00:00Z'); // 2026-11-22 in UTC
const names = (body: { results: Array<{ name: string }> }) => body.results.map((r) => r.name);
const valuesOf = (body: { results: Array<{ name: string; values: unknown[] }> }, name: string) => body.results.find((r) => r.name === name)?.values;

beforeAll(async () => {
  app = await startTestApp();
  app.setNow(NOW);
  const made = await makeUser(app, { timezone: 'UTC' });
  person = made.user;
  token = made.simpleToken;
  // One attribute per value type, plus inactive, low-priority, manual and custom ones.
  const list = await addAttributes(app, person.id, [
    { name: 'steps' }, // 0 integer
    { name: 'steps_distance' }, // 1 float
    { name: 'mood_note' }, // 2 string
    { name: 'sleep' }, // 3 period
    { name: 'sleep_end' }, // 4 time of day from midnight
    { name: 'body_fat' }, // 5 percentage
    { name: 'sleep_start' }, // 6 time of day from midday
    { name: 'took_vitamins', template: null, group: 'health', value_type: 7, priority: 8, manual: true }, // 7 boolean
    { name: 'mood', value_type: 8, manual: true }, // 8 scale
    { name: 'floors', active: false },
    { name: 'sodium' }, // priority 10
    { name: 'went_running', template: null, group: 'custom', value_type: 0, priority: 2, manual: true },
  ]);
  for (const attribute of list) seeded[attribute.name] = attribute;
  await addValues(app, person.id, seeded.steps, { '2026-11-22': 8412, '2026-11-20': 10233, '2026-11-15': 1, '2026-11-23': 99 });
  await addValues(app, person.id, seeded.steps_distance, { '2026-11-22': 6.25, '2026-11-21': 7 });
  await addValues(app, person.id, seeded.mood_note, { '2026-11-22': 'A "good" day, really' });
  await addValues(app, person.id, seeded.sleep, { '2026-11-22': 452 });
  await addValues(app, person.id, seeded.sleep_end, { '2026-11-22': 410 });
  await addValues(app, person.id, seeded.body_fat, { '2026-11-22': 0.215 });
  await addValues(app, person.id, seeded.sleep_start, { '2026-11-22': 640 });
  await addValues(app, person.id, seeded.took_vitamins, { '2026-11-22': 1, '2026-11-21': 0 });
  await addValues(app, person.id, seeded.mood, { '2026-11-22': 7 });
  await addValues(app, person.id, seeded.floors, { '2026-11-22': 12 });
  await addValues(app, person.id, seeded.sodium, { '2026-11-22': 1500.5 });
});
// A test that moves the clock gets the file's clock back, even when one of its assertions fails.
afterEach(() => {
  app.setNow(NOW);
});
afterAll(async () => {
  app.setNow(undefined);
  await app.close();
});

describe('GET /api/2/attributes/with-values/', () => {
  test('each attribute carries one value per day for `days` days ending at date_max, newest first, null without data', async () => {
    const res = await app.get('/api/2/attributes/with-values/?attributes=steps&days=4&date_max=2026-11-22', { token });
    expect(res.status).toBe(200);
    expect(res.body.results[0].values).toEqual([
      { date: '2026-11-22', value: 8412 },
      { date: '2026-11-21', value: null },
      { date: '2026-11-20', value: 10233 },
      { date: '2026-11-19', value: null },
    ]);
  });

  test('days defaults to 1 and date_max to the person’s today', async () => {
    const res = await app.get('/api/2/attributes/with-values/?attributes=steps', { token });
    expect(res.body.results[0].values).toEqual([{ date: '2026-11-22', value: 8412 }]);
    const past = await app.get('/api/2/attributes/with-values/?attributes=steps&date_max=2026-11-15', { token });
    expect(past.body.results[0].values).toEqual([{ date: '2026-11-15', value: 1 }]);
  });

  test('date_max is inclusive and the window can cross months and leap days', async () => {
    const res = await app.get('/api/2/attributes/with-values/?attributes=steps&days=3&date_max=2024-03-01', { token });
    expect(res.body.results[0].values.map((v: { date: string }) => v.date)).toEqual(['2024-03-01', '2024-02-29', '2024-02-28']);
    const later = await app.get('/api/2/attributes/with-values/?attributes=steps&days=2&date_max=2026-11-23', { token });
    expect(later.body.results[0].values).toEqual([
      { date: '2026-11-23', value: 99 },
      { date: '2026-11-22', value: 8412 },
    ]);
  });

  test('values are typed by value type: integers, floats as numbers, strings, boolean 0/1, minutes as integers', async () => {
    const res = await app.get('/api/2/attributes/with-values/?limit=100', { token });
    const today = (name: string) => valuesOf(res.body, name)?.[0];
    expect(today('steps')).toEqual({ date: '2026-11-22', value: 8412 });
    expect(today('steps_distance')).toEqual({ date: '2026-11-22', value: 6.25 });
    expect(today('mood_note')).toEqual({ date: '2026-11-22', value: 'A "good" day, really' });
    expect(today('sleep')).toEqual({ date: '2026-11-22', value: 452 });
    expect(today('sleep_end')).toEqual({ date: '2026-11-22', value: 410 });
    expect(today('body_fat')).toEqual({ date: '2026-11-22', value: 0.215 });
    expect(today('sleep_start')).toEqual({ date: '2026-11-22', value: 640 });
    expect(today('took_vitamins')).toEqual({ date: '2026-11-22', value: 1 });
    expect(today('mood')).toEqual({ date: '2026-11-22', value: 7 });
    // On the wire: numbers are JSON numbers, never strings.
    expect(res.text).toContain('"value":6.25');
    expect(res.text).toContain('"value":0.215');
    expect(res.text).toContain('"value":8412');
    const twoDays = await app.get('/api/2/attributes/with-values/?attributes=took_vitamins,steps_distance&days=2', { token });
    expect(valuesOf(twoDays.body, 'took_vitamins')).toEqual([
      { date: '2026-11-22', value: 1 },
      { date: '2026-11-21', value: 0 },
    ]);
    expect(valuesOf(twoDays.body, 'steps_distance')).toEqual([
      { date: '2026-11-22', value: 6.25 },
      { date: '2026-11-21', value: 7 },
    ]);
  });

  test('attributes have no available_services here', async () => {
    const res = await app.get('/api/2/attributes/with-values/', { token });
    for (const attribute of res.body.results) expect(attribute).not.toHaveProperty('available_services');
  });

  test('inactive and low-priority attributes are left out unless named in attributes or templates', async () => {
    const all = await app.get('/api/2/attributes/with-values/?limit=100', { token });
    expect(names(all.body)).not.toContain('floors');
    expect(names(all.body)).not.toContain('sodium');
    expect(all.body.count).toBe(10);
    const named = await app.get('/api/2/attributes/with-values/?attributes=floors,sodium', { token });
    expect(names(named.body)).toEqual(['floors', 'sodium']);
    expect(valuesOf(named.body, 'sodium')).toEqual([{ date: '2026-11-22', value: 1500.5 }]);
    expect(names((await app.get('/api/2/attributes/with-values/?templates=floors,sodium', { token })).body)).toEqual(['floors', 'sodium']);
  });

  test('templates keeps the attributes made from those templates; attributes without a template never match', async () => {
    const res = await app.get('/api/2/attributes/with-values/?templates=sleep,mood,went_running', { token });
    expect(names(res.body)).toEqual(['mood', 'sleep']);
  });

  test('attributes together with templates is 400 with a clear detail', async () => {
    const res = await app.get('/api/2/attributes/with-values/?attributes=steps&templates=steps', { token });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: 'Use either attributes or templates, not both.' });
  });

  test('manual is three-state: true only manual, false no manual, absent both', async () => {
    expect(names((await app.get('/api/2/attributes/with-values/?manual=true', { token })).body)).toEqual(['mood', 'took_vitamins', 'went_running']);
    const noManual = names((await app.get('/api/2/attributes/with-values/?manual=false', { token })).body);
    expect(noManual).toEqual(['steps', 'steps_distance', 'mood_note', 'sleep', 'sleep_start', 'sleep_end', 'body_fat']);
    expect((await app.get('/api/2/attributes/with-values/', { token })).body.count).toBe(10);
  });

  test('groups filters, alone and with manual and attributes', async () => {
    expect(names((await app.get('/api/2/attributes/with-values/?groups=sleep', { token })).body)).toEqual(['sleep', 'sleep_start', 'sleep_end']);
    expect(names((await app.get('/api/2/attributes/with-values/?groups=health,mood&manual=true', { token })).body)).toEqual(['mood', 'took_vitamins']);
    expect(names((await app.get('/api/2/attributes/with-values/?groups=health&attributes=steps,body_fat', { token })).body)).toEqual(['body_fat']);
    expect((await app.get('/api/2/attributes/with-values/?groups=astrology', { token })).body).toEqual({ count: 0, next: null, previous: null, results: [] });
  });

  test('days=31 is the maximum: 32 and 0 are 400 with the error body', async () => {
    const max = await app.get('/api/2/attributes/with-values/?attributes=steps&days=31', { token });
    expect(max.status).toBe(200);
    expect(max.body.results[0].values).toHaveLength(31);
    expect(max.body.results[0].values[30].date).toBe('2026-10-23');
    for (const days of ['32', '0', '-3', 'seven', '1.5']) {
      const res = await app.get(`/api/2/attributes/with-values/?days=${days}`, { token });
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual([expect.objectContaining({ in: 'query', name: 'days' })]);
    }
    expect((await app.get('/api/2/attributes/with-values/?days=32', { token })).body.detail).toBe('Invalid query parameter days: must be <= 31.');
  });

  test.each(['2026-02-30', '2026-13-01', '2026-11-31', '26-11-22', '2026/11/22', 'today', '0000-01-01'])('date_max=%s is 400 naming date_max', async (date) => {
    const res = await app.get(`/api/2/attributes/with-values/?date_max=${date}`, { token });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([expect.objectContaining({ in: 'query', name: 'date_max' })]);
  });

  test('the earliest dates are fine: the window stops at 0001-01-01', async () => {
    const res = await app.get('/api/2/attributes/with-values/?attributes=steps&date_max=0001-01-02&days=5', { token });
    expect(res.status).toBe(200);
    expect(res.body.results[0].values).toEqual([
      { date: '0001-01-02', value: null },
      { date: '0001-01-01', value: null },
    ]);
  });

  test('another person’s values never appear', async () => {
    const other = await makeUser(app, { timezone: 'UTC' });
    const theirSteps = await addAttribute(app, other.user.id, { name: 'steps' });
    await addValues(app, other.user.id, theirSteps, { '2026-11-22': 5 });
    const theirs = await app.get('/api/2/attributes/with-values/', { token: other.simpleToken });
    expect(theirs.body.results).toEqual([expect.objectContaining({ name: 'steps', values: [{ date: '2026-11-22', value: 5 }] })]);
    expect(valuesOf((await app.get('/api/2/attributes/with-values/?attributes=steps', { token })).body, 'steps')).toEqual([
      { date: '2026-11-22', value: 8412 },
    ]);
  });

  test('is one query for the list whatever the page size and the number of days', async () => {
    const small = await countQueries(app, () => app.get('/api/2/attributes/with-values/?limit=1&days=1&date_max=2026-11-22', { token }), /attribute/);
    const large = await countQueries(app, () => app.get('/api/2/attributes/with-values/?limit=100&days=31&date_max=2026-11-22', { token }), /attribute/);
    expect(large.result.body.results).toHaveLength(10);
    expect(small.queries).toBe(1);
    expect(large.queries).toBe(1);
    // Without date_max, today comes from the time zone the token's lookup already read: no other query.
    const today = await countQueries(
      app,
      () => app.get('/api/2/attributes/with-values/?limit=100&days=31', { token }),
      /attribute|^select "timezone" from "users"/,
    );
    expect(today.result.body.results).toHaveLength(10);
    expect(today.queries).toBe(1);
  });
});

describe('today in the person’s time zone', () => {
  test('a person in UTC+14 and one in UTC-11 each get their own local date by default', async () => {
    app.setNow(new Date('2026-11-22T11:30:00Z')); // 2026-11-23 01:30 in Kiritimati, 2026-11-22 00:30 in Niue
    try {
      for (const [timezone, today] of [
        ['Pacific/Kiritimati', '2026-11-23'],
        ['Pacific/Niue', '2026-11-22'],
      ]) {
        const made = await makeUser(app, { timezone });
        const steps = await addAttribute(app, made.user.id, { name: 'steps' });
        await addValues(app, made.user.id, steps, { '2026-11-21': 21, '2026-11-22': 22, '2026-11-23': 23 });
        const res = await app.get('/api/2/attributes/with-values/?days=2', { token: made.simpleToken });
        expect(res.body.results[0].values[0].date).toBe(today);
        expect(res.body.results[0].values[0].value).toBe(Number(today.slice(-2)));
        const values = await app.get('/api/2/attributes/values/?attribute=steps', { token: made.simpleToken });
        expect(values.body.results[0]).toEqual({ date: today, value: Number(today.slice(-2)) });
      }
    } finally {
      app.setNow(NOW);
    }
  });
});

describe('paging /api/2/attributes/with-values/', () => {
  let pagedToken: string;
  beforeAll(async () => {
    const made = await makeUser(app, { timezone: 'UTC' });
    pagedToken = made.simpleToken;
    await app.db('attributes').insert(
      Array.from({ length: 105 }, (_, i) => ({
        user_id: made.user.id,
        name: `tag${String(i).padStart(3, '0')}`,
        label: `tag ${i}`,
        template_name: null,
        group_name: 'custom',
        value_type: 0,
        priority: 2,
        manual: true,
      })),
    );
  });

  test('a limit over 100 is treated as 100; next keeps days and date_max', async () => {
    const res = await app.get('/api/2/attributes/with-values/?limit=500&days=3&date_max=2026-11-01', { token: pagedToken });
    expect(res.body.count).toBe(105);
    expect(res.body.results).toHaveLength(100);
    expect(res.body.results[99].values).toHaveLength(3);
    expect(Object.fromEntries(new URL(res.body.next).searchParams)).toEqual({ limit: '500', days: '3', date_max: '2026-11-01', page: '2' });
    const last = await app.get('/api/2/attributes/with-values/?limit=500&days=3&date_max=2026-11-01&page=2', { token: pagedToken });
    expect(names(last.body)).toEqual(['tag100', 'tag101', 'tag102', 'tag103', 'tag104']);
    expect(last.body.next).toBeNull();
    expect((await app.get('/api/2/attributes/with-values/?limit=500&page=3', { token: pagedToken })).status).toBe(404);
  });

  test('page 1 of an empty result is 200 with count 0; a later page is 404', async () => {
    const { simpleToken } = await makeUser(app);
    expect((await app.get('/api/2/attributes/with-values/', { token: simpleToken })).body).toEqual({ count: 0, next: null, previous: null, results: [] });
    const past = await app.get('/api/2/attributes/with-values/?page=2', { token: simpleToken });
    expect(past.status).toBe(404);
    expect(past.body).toEqual({ detail: 'Invalid page.' });
  });
});

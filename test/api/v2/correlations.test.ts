/**
 * GET /api/2/correlations/ and /api/2/correlations/combo/ over HTTP, on the demo generator's data
 * with only its planted relationships (rhythms off), derived by the same function the jobs run.
 */
import { startTestApp, type TestApp } from '../../support/app';
import { makeClient, makeToken, makeUser } from '../../support/fixtures';
import { loadDemoData, PLANTED_RELATIONSHIPS } from '../../../src/demo/demo-data';
import { deriveUser } from '../../../src/analytics/derive';
import type { User } from '../../../src/domain/identity/users';

let app: TestApp;
let person: User;
let token: string;

const NOW = new Date('2026-11-20T12:00:00Z'); // a Friday; the week's Monday is 2026-11-16
const WEEK = '2026-11-16';
const TEMPLATES = [
  'steps',
  'active_energy',
  'sleep',
  'mood',
  'coffees',
  'alcoholic_drinks',
  'sleep_awakenings',
  'weather_temp_max',
  'weather_temp_min',
  'water',
  'tracks',
  'weight',
  'workouts',
  'mood_note',
];

interface Correlation {
  date: string;
  attribute: string;
  attribute2: string;
  offset: number;
  value: number;
  p: number;
  stars: number;
  [field: string]: unknown;
}

const isPlanted = (c: Correlation) =>
  PLANTED_RELATIONSHIPS.some(
    (p) =>
      p.offset === c.offset &&
      ((p.attribute === c.attribute && p.attribute2 === c.attribute2) || (p.offset === 0 && p.attribute === c.attribute2 && p.attribute2 === c.attribute)),
  );

async function all(path: string, auth: { token?: string; bearer?: string }): Promise<Correlation[]> {
  const res = await app.get(`${path}${path.includes('?') ? '&' : '?'}limit=100`, auth);
  expect(res.status).toBe(200);
  expect(res.body.count).toBe(res.body.results.length);
  return res.body.results;
}

async function bearer(scopes: string[]): Promise<{ bearer: string }> {
  const { client } = await makeClient(app, person, `Reader ${scopes.join(' ')}`);
  return { bearer: (await makeToken(app, person, client, scopes)).access_token };
}

beforeAll(async () => {
  app = await startTestApp();
  app.setNow(NOW);
  const made = await makeUser(app, { timezone: 'UTC' });
  person = made.user;
  token = made.simpleToken;
  await loadDemoData(app.db, person.id, { seed: 7, days: 372, endDate: '2026-11-20', attributes: TEMPLATES, rhythms: false });
  await deriveUser(app.db, person.id, { now: NOW });
});
afterAll(async () => {
  app.setNow(undefined);
  await app.close();
});

describe('GET /api/2/correlations/', () => {
  test('finds every relationship the demo generator planted, with its direction and offset, and none it did not at p < 0.001 beyond chance', async () => {
    const results = await all('/api/2/correlations/', { token });
    for (const planted of PLANTED_RELATIONSHIPS) {
      const found = results.find(
        (c) => isPlanted(c) && [c.attribute, c.attribute2].includes(planted.attribute) && [c.attribute, c.attribute2].includes(planted.attribute2),
      );
      expect(found).toBeDefined();
      expect(Math.sign(found!.value)).toBe(planted.direction === 'positive' ? 1 : -1);
      expect(found!.stars).toBe(5);
    }
    // 13 numeric attributes: 78 pairs x 3 tests; chance gives p < 0.001 about 0.23 times (at most 2 at 99.9%).
    expect(results.filter((c) => !isPlanted(c) && c.p < 0.001).length).toBeLessThanOrEqual(2);
    expect(results.every((c) => c.attribute !== 'mood_note' && c.attribute2 !== 'mood_note')).toBe(true);
  });

  test('each correlation has every field of the spec, as docs/decisions.md fills them, strongest first', async () => {
    const results = await all('/api/2/correlations/', { token });
    const coffee = results.find((c) => c.attribute === 'coffees' && c.attribute2 === 'sleep' && c.offset === -1)!;
    expect(coffee).toEqual({
      date: WEEK,
      period: expect.any(Number),
      offset: -1,
      attribute: 'coffees',
      attribute2: 'sleep',
      value: expect.any(Number),
      p: expect.any(Number),
      percentage: Math.abs(coffee.value) * 100,
      stars: 5,
      second_person: 'you spend less time asleep on days after you drink more coffee.',
      second_person_elements: ['you spend less time asleep', 'on days after', 'you drink more coffee'],
      attribute_category: null,
      strength_description: expect.stringMatching(/go together$/),
      stars_description: 'Certain to be related',
      description: null,
      occurrence: null,
      rating: null,
    });
    expect(coffee.period).toBeGreaterThan(300);
    expect(coffee.period).toBeLessThanOrEqual(365);
    const strengths = results.map((c) => Math.abs(c.value));
    expect(strengths).toEqual([...strengths].sort((a, b) => b - a));
  });

  test('strong, confident and attribute filters', async () => {
    const strong = await all('/api/2/correlations/?strong=1', { token });
    expect(strong.length).toBeGreaterThan(0);
    expect(strong.every((c) => Math.abs(c.value) >= 0.4)).toBe(true);
    const confident = await all('/api/2/correlations/?confident=true', { token });
    expect(confident.length).toBeGreaterThanOrEqual(PLANTED_RELATIONSHIPS.length);
    expect(confident.every((c) => c.stars === 5)).toBe(true);
    const sleep = await all('/api/2/correlations/?attribute=sleep', { token });
    expect(sleep.length).toBeGreaterThanOrEqual(2);
    expect(sleep.every((c) => c.attribute === 'sleep' || c.attribute2 === 'sleep')).toBe(true);
    expect(await all('/api/2/correlations/?attribute=nothing_like_this', { token })).toEqual([]);
  });

  test('limited to read scopes: a correlation shows when one of its attributes is readable', async () => {
    const moodOnly = await all('/api/2/correlations/', await bearer(['mood_read']));
    expect(moodOnly.length).toBeGreaterThan(0);
    expect(moodOnly.every((c) => c.attribute === 'mood' || c.attribute2 === 'mood')).toBe(true);
    expect(moodOnly.some((c) => [c.attribute, c.attribute2].sort().join() === 'mood,sleep')).toBe(true);
    expect(await all('/api/2/correlations/', await bearer(['finance_read', 'custom_read']))).toEqual([]);
  });

  test('the attribute filter keeps exactly the correlations of the unfiltered list that name it, whichever side is readable', async () => {
    const moodReader = await bearer(['mood_read']);
    const visible = await all('/api/2/correlations/', moodReader);
    const involving = (name: string) => visible.filter((c) => c.attribute === name || c.attribute2 === name);
    // sleep is outside mood_read, but its correlations with mood are listed, so the filter shows them.
    expect(involving('sleep').length).toBeGreaterThan(0);
    for (const name of ['sleep', 'mood', 'coffees']) {
      expect(await all(`/api/2/correlations/?attribute=${name}`, moodReader)).toEqual(involving(name));
    }
    // A name whose correlations are all hidden (no readable partner) matches nothing.
    expect(await all('/api/2/correlations/?attribute=weather_temp_max', moodReader)).toEqual(involving('weather_temp_max'));
    expect(await all('/api/2/correlations/?attribute=steps', await bearer(['finance_read']))).toEqual([]);
  });

  test('paged: limit, next, and 404 past the end', async () => {
    const first = await app.get('/api/2/correlations/?limit=2', { token });
    expect(first.body.results).toHaveLength(2);
    expect(first.body.next).toMatch(/[?&]page=2/);
    const past = await app.get('/api/2/correlations/?limit=2&page=999', { token });
    expect(past.status).toBe(404);
    expect(past.body).toEqual({ detail: 'Invalid page.' });
  });
});

describe('GET /api/2/correlations/combo/', () => {
  test('takes the two attributes in either order and answers the same correlation', async () => {
    const a = await app.get('/api/2/correlations/combo/?attribute=mood&attribute2=sleep', { token });
    const b = await app.get('/api/2/correlations/combo/?attribute=sleep&attribute2=mood', { token });
    expect(a.status).toBe(200);
    expect(b.body).toEqual(a.body);
    expect([a.body.attribute, a.body.attribute2].sort()).toEqual(['mood', 'sleep']);
    expect(a.body.offset).toBe(0);
  });

  test('of several offsets, the strongest', async () => {
    const res = await app.get('/api/2/correlations/combo/?attribute=sleep&attribute2=coffees', { token });
    expect(res.status).toBe(200);
    const listed = (await all('/api/2/correlations/', { token })).filter((c) => [c.attribute, c.attribute2].sort().join() === 'coffees,sleep');
    expect(Math.abs(res.body.value)).toBe(Math.max(...listed.map((c) => Math.abs(c.value))));
  });

  test('404 with the error body when there is none, or when neither attribute is readable', async () => {
    const none = await app.get('/api/2/correlations/combo/?attribute=water&attribute2=nothing_like_this', { token });
    expect(none.status).toBe(404);
    expect(none.body).toEqual({ detail: 'No correlation has been found between water and nothing_like_this.' });
    const hidden = await app.get('/api/2/correlations/combo/?attribute=mood&attribute2=sleep', await bearer(['activity_read']));
    expect(hidden.status).toBe(404);
    const oneVisible = await app.get('/api/2/correlations/combo/?attribute=mood&attribute2=sleep', await bearer(['sleep_read']));
    expect(oneVisible.status).toBe(200);
  });

  test('both parameters are required', async () => {
    const res = await app.get('/api/2/correlations/combo/?attribute=mood', { token });
    expect(res.status).toBe(400);
  });
});

describe('weekly sets', () => {
  test('a later week replaces nothing: the list shows the newest week, past weeks stay stored', async () => {
    const other = await makeUser(app, { timezone: 'UTC' });
    await loadDemoData(app.db, other.user.id, { seed: 8, days: 372, endDate: '2026-11-20', attributes: ['steps', 'active_energy', 'water'], rhythms: false });
    await deriveUser(app.db, other.user.id, { now: NOW });
    await deriveUser(app.db, other.user.id, { now: new Date('2026-11-24T09:00:00Z') });
    const listed = await all('/api/2/correlations/', { token: other.simpleToken });
    expect(listed.length).toBeGreaterThan(0);
    expect(new Set(listed.map((c) => c.date))).toEqual(new Set(['2026-11-23']));
    const stored = await app.db('correlations').where({ user_id: other.user.id }).distinct('date').orderBy('date');
    expect(stored.map((r: { date: string }) => r.date)).toEqual(['2026-11-16', '2026-11-23']);
    // Running the same week again replaces that week's set, without duplicates.
    await deriveUser(app.db, other.user.id, { now: new Date('2026-11-25T09:00:00Z') });
    expect((await all('/api/2/correlations/', { token: other.simpleToken })).length).toBe(listed.length);
  });

  test('someone without a derived week has an empty list', async () => {
    const fresh = await makeUser(app);
    expect(await all('/api/2/correlations/', { token: fresh.simpleToken })).toEqual([]);
  });
});

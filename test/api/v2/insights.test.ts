/**
 * GET /api/2/insights/ over HTTP: insights generated from the person's data by the insight run the
 * jobs use, once each, filtered by the local day they were created on, priority and scopes.
 */
import { startTestApp, type TestApp } from '../../support/app';
import { makeClient, makeToken, makeUser } from '../../support/fixtures';
import { addAttribute, addValues } from '../../support/seed';
import { generateInsights } from '../../../src/analytics/derive';
import { addDays } from '../../../src/domain/time';
import type { User } from '../../../src/domain/identity/users';

let app: TestApp;
let person: User;
let token: string;

const NOW = new Date('2026-11-18T10:00:00Z'); // Wednesday
const TODAY = '2026-11-18';

interface Insight {
  created: string;
  target_date: string | null;
  type: { name: string; period: number; priority: number; attribute: { name: string } };
  html: string;
  text: string;
}

/** 400 days up to today of `value(daysAgo)`. */
function days(value: (daysAgo: number) => number | undefined): Record<string, number> {
  const out: Record<string, number> = {};
  for (let ago = 0; ago < 400; ago++) {
    const v = value(ago);
    if (v !== undefined) out[addDays(TODAY, -ago)] = v;
  }
  return out;
}

async function list(query: string, auth: { token?: string; bearer?: string } = { token }): Promise<Insight[]> {
  const res = await app.get(`/api/2/insights/?limit=100${query}`, auth);
  expect(res.status).toBe(200);
  return res.body.results;
}

async function seedPerson(timezone: string): Promise<{ user: User; simpleToken: string }> {
  const made = await makeUser(app, { timezone });
  // Steps: 8000 a day, a record 12,000 yesterday, 10,600 so far today.
  const steps = await addAttribute(app, made.user.id, { name: 'steps' });
  await addValues(
    app,
    made.user.id,
    steps,
    days((ago) => (ago === 0 ? 10600 : ago === 1 ? 12000 : 8000)),
  );
  // Water: 2,200 ml a day in October, 2,000 otherwise.
  const water = await addAttribute(app, made.user.id, { name: 'water' });
  await addValues(
    app,
    made.user.id,
    water,
    days((ago) => {
      const date = addDays(TODAY, -ago);
      return date.startsWith('2026-10') ? 2200 : 2000;
    }),
  );
  return made;
}

beforeAll(async () => {
  app = await startTestApp();
  const made = await seedPerson('UTC');
  person = made.user;
  token = made.simpleToken;
  await generateInsights(app.db, person.id, { now: NOW });
});
afterAll(async () => {
  await app.close();
});

describe('GET /api/2/insights/', () => {
  test('lists the insights the data meets, newest first, with the spec fields', async () => {
    const insights = await list('');
    expect(insights.map((i) => `${i.type.name}:${i.type.attribute.name}`).sort()).toEqual([
      'month_summary:water',
      'record_high:steps',
      'today_above_weekday:steps',
    ]);
    const record = insights.find((i) => i.type.name === 'record_high')!;
    expect(record).toEqual({
      created: '2026-11-18T10:00:00Z',
      target_date: '2026-11-17',
      type: {
        name: 'record_high',
        period: 365,
        priority: 2,
        attribute: {
          name: 'steps',
          label: 'Steps',
          group: { name: 'activity', label: 'Activity', priority: 1 },
          priority: 1,
          value_type: 0,
          value_type_description: 'Integer',
        },
      },
      html: '<p>Steps yesterday: <strong>12,000</strong>, your highest in a year.</p>',
      text: 'Steps yesterday: 12,000, your highest in a year.',
    });
    const month = insights.find((i) => i.type.name === 'month_summary')!;
    expect(month).toMatchObject({ target_date: null, type: { priority: 4 } });
    expect(month.text).toBe('October 2026: Water averaged 2,200 ml a day, 10% more than in September 2026 (2,000 ml).');
    expect(insights.find((i) => i.type.name === 'today_above_weekday')).toMatchObject({ target_date: TODAY, type: { priority: 1 } });
  });

  test('each insight is generated once: rerunning the job (the same day, or after more writes) adds no duplicate', async () => {
    const before = await list('');
    await generateInsights(app.db, person.id, { now: new Date('2026-11-18T15:00:00Z') });
    await generateInsights(app.db, person.id, { now: new Date('2026-11-18T15:00:00Z') });
    const after = await list('');
    expect(after).toEqual(before);
  });

  test('priority keeps one level', async () => {
    expect((await list('&priority=2')).map((i) => i.type.name)).toEqual(['record_high']);
    expect((await list('&priority=4')).map((i) => i.type.name)).toEqual(['month_summary']);
    expect(await list('&priority=3')).toEqual([]);
    expect((await app.get('/api/2/insights/?priority=5', { token })).status).toBe(400);
  });

  test('date_min and date_max bound the local day the insight was created on', async () => {
    expect(await list('&date_max=2026-11-17')).toEqual([]);
    expect((await list('&date_min=2026-11-18&date_max=2026-11-18')).length).toBe(3);
    expect(await list('&date_min=2026-11-19')).toEqual([]);
    // 10:00 UTC is already 2026-11-19 in Kiritimati (UTC+14).
    const east = await seedPerson('Pacific/Kiritimati');
    await generateInsights(app.db, east.user.id, { now: new Date('2026-11-17T20:00:00Z') });
    const local = await list('&date_min=2026-11-18&date_max=2026-11-18', { token: east.simpleToken });
    expect(local.length).toBeGreaterThan(0);
    expect(local.every((i) => i.created === '2026-11-17T20:00:00Z')).toBe(true);
    expect(await list('&date_max=2026-11-17', { token: east.simpleToken })).toEqual([]);
  });

  test('scoped: only insights about attributes the token may read', async () => {
    const { client } = await makeClient(app, person);
    const food = (await makeToken(app, person, client, ['food_read'])).access_token;
    expect((await list('', { bearer: food })).map((i) => i.type.attribute.name)).toEqual(['water']);
    const none = (await makeToken(app, person, client, ['weather_read'])).access_token;
    expect(await list('', { bearer: none })).toEqual([]);
  });

  test('paged, with a 404 past the end', async () => {
    const first = await app.get('/api/2/insights/?limit=2', { token });
    expect(first.body.count).toBe(3);
    expect(first.body.results).toHaveLength(2);
    expect(first.body.next).toMatch(/page=2/);
    expect((await app.get('/api/2/insights/?limit=2&page=3', { token })).status).toBe(404);
  });
});

/**
 * The v1 insight lists over HTTP: the same insights version 2 lists (the same domain function), in
 * version 1's shape with value, value2 and comment, per attribute, limited to the caller's own data.
 */
import { startTestApp, type TestApp } from '../../support/app';
import { makeClient, makeToken, makeUser } from '../../support/fixtures';
import { addAttribute, addAttributes, addValues, type SeededAttribute } from '../../support/seed';
import { generateInsights } from '../../../src/analytics/derive';
import { addDays } from '../../../src/domain/time';
import type { User } from '../../../src/domain/identity/users';
import type { OAuthClient } from '../../../src/domain/apps-and-grants/clients';

let app: TestApp;
let person: User;
let token: string;
let other: User;
let client: OAuthClient;

const LAST = '2026-11-21';
const STEPS_INSIGHTS = 110;

interface V1Insight {
  created: string;
  target_date: string | null;
  type: { name: string; attribute: { name: string } };
  value: string | null;
  value2: string | null;
  comment: string | null;
}
const dates = (results: V1Insight[]) => results.map((i) => i.created.slice(0, 10));

/** Stores one insight created at 06:00:12.345 UTC on `day` (milliseconds included, as the jobs write them). */
async function addInsight(
  userId: number,
  attribute: SeededAttribute,
  day: string,
  fields: { type?: string; value?: string | null; value2?: string | null; comment?: string | null } = {},
): Promise<void> {
  const type = fields.type ?? `${attribute.name}_best_day_month`;
  await app.db('insights').insert({
    user_id: userId,
    type_name: type,
    period: 30,
    priority: 4,
    attribute_id: attribute.id,
    target_date: addDays(day, -1),
    created: new Date(`${day}T06:00:12.345Z`),
    html: `<p>${attribute.name} on ${day}</p>`,
    text: `${attribute.name} on ${day}`,
    value: fields.value === undefined ? `${day.slice(-2)}00` : fields.value,
    value2: fields.value2 === undefined ? '9120' : fields.value2,
    comment: fields.comment ?? null,
    dedupe_key: `${type}:${attribute.id}:${day}`,
  });
}

async function tokenFor(scopes: string[]): Promise<string> {
  return (await makeToken(app, person, client, scopes)).access_token;
}

beforeAll(async () => {
  app = await startTestApp();
  app.setNow(new Date('2026-11-22T12:00:00Z'));
  const made = await makeUser(app, { timezone: 'UTC' });
  person = made.user;
  token = made.simpleToken;
  other = (await makeUser(app)).user;
  client = (await makeClient(app, person, 'Insight Reader')).client;
  const [steps, mood, sleep] = await addAttributes(app, person.id, [{ name: 'steps' }, { name: 'mood', manual: true }, { name: 'sleep' }]);
  for (let ago = 0; ago < STEPS_INSIGHTS; ago++) await addInsight(person.id, steps, addDays(LAST, -ago));
  await addInsight(person.id, mood, '2026-11-20', { type: 'mood_note', value: null, value2: null, comment: 'A calm week.' });
  for (const day of ['2026-11-19', '2026-11-12', '2026-11-05']) await addInsight(person.id, sleep, day);
  const [theirSteps] = await addAttributes(app, other.id, [{ name: 'steps' }]);
  await addInsight(other.id, theirSteps, LAST, { value: '55555' });
});
afterAll(async () => {
  app.setNow(undefined);
  await app.close();
});

describe('GET /api/1/users/:username/insights/', () => {
  test('a paged list of the caller’s insights, newest first, 20 per page by default', async () => {
    const res = await app.get('/api/1/users/$self/insights/', { token });
    expect(res.status).toBe(200);
    expect(res.body.count).toBe(STEPS_INSIGHTS + 4);
    expect(res.body.results).toHaveLength(20);
    expect(dates(res.body.results).slice(0, 4)).toEqual(['2026-11-21', '2026-11-20', '2026-11-20', '2026-11-19']);
    expect(new URL(res.body.next).pathname).toBe('/api/1/users/$self/insights/');
  });

  test('each insight is the v1 object: value, value2 and comment, and no value type fields on type.attribute', async () => {
    const res = await app.get('/api/1/users/$self/insights/?limit=1', { token });
    expect(res.body.results[0]).toEqual({
      created: '2026-11-21T06:00:12Z',
      target_date: '2026-11-20',
      type: {
        name: 'steps_best_day_month',
        period: 30,
        priority: 4,
        attribute: { name: 'steps', label: 'Steps', group: { name: 'activity', label: 'Activity', priority: 1 }, priority: 1 },
      },
      html: '<p>steps on 2026-11-21</p>',
      text: 'steps on 2026-11-21',
      value: '2100',
      value2: '9120',
      comment: null,
    });
    const mood = (await app.get('/api/1/users/$self/insights/?date_min=2026-11-20&date_max=2026-11-20', { token })).body.results.find(
      (i: V1Insight) => i.type.attribute.name === 'mood',
    );
    expect(mood).toMatchObject({ value: null, value2: null, comment: 'A calm week.' });
  });

  test('limit is at most 100 per page; page walks on; a page past the end is 404', async () => {
    const first = await app.get('/api/1/users/$self/insights/?limit=1000', { token });
    expect(first.body.results).toHaveLength(100);
    const second = await app.get('/api/1/users/$self/insights/?limit=100&page=2', { token });
    expect(second.body.results).toHaveLength(14);
    expect(second.body.next).toBeNull();
    expect((await app.get('/api/1/users/$self/insights/?limit=100&page=3', { token })).status).toBe(404);
  });

  test('date_min and date_max bound the day the insight was created, inclusive', async () => {
    const res = await app.get('/api/1/users/$self/insights/?date_min=2026-11-19&date_max=2026-11-20', { token });
    expect(res.body.results.map((i: V1Insight) => `${i.created.slice(0, 10)}:${i.type.attribute.name}`)).toEqual([
      // Insights created at the same time: the one stored last first.
      '2026-11-20:mood',
      '2026-11-20:steps',
      '2026-11-19:sleep',
      '2026-11-19:steps',
    ]);
    expect(res.body.count).toBe(4);
  });

  test('only insights about attributes the token may read; `read` reads them all', async () => {
    const sleep = await app.get('/api/1/users/$self/insights/', { bearer: await tokenFor(['sleep_read']) });
    expect(sleep.body.count).toBe(3);
    const manual = await app.get('/api/1/users/$self/insights/', { bearer: await tokenFor(['manual_read']) });
    expect(manual.body.results.map((i: V1Insight) => i.type.attribute.name)).toEqual(['mood']);
    const read = await app.get('/api/1/users/$self/insights/', { bearer: await tokenFor(['read']) });
    expect(read.body.count).toBe(STEPS_INSIGHTS + 4);
  });

  test('another user, existing or not, is 403 and nothing of theirs is shown', async () => {
    for (const name of [other.username, 'nobody_at_all']) {
      const res = await app.get(`/api/1/users/${name}/insights/`, { token });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ detail: 'You can only read your own data: use $self or your own user name.' });
      expect(res.text).not.toContain('55555');
    }
    expect((await app.get(`/api/1/users/${person.username.toUpperCase()}/insights/?limit=1`, { token })).status).toBe(200);
  });
});

describe('GET /api/1/users/:username/insights/attribute/:attribute/', () => {
  test('only the insights about the named attribute, newest first', async () => {
    const res = await app.get('/api/1/users/$self/insights/attribute/sleep/', { token });
    expect(res.status).toBe(200);
    expect(res.body.count).toBe(3);
    expect(dates(res.body.results)).toEqual(['2026-11-19', '2026-11-12', '2026-11-05']);
    expect(res.body.results.every((i: V1Insight) => i.type.attribute.name === 'sleep' && i.value !== null)).toBe(true);
  });

  test('paged over the attribute’s insights alone: limit (at most 100), page, next and previous', async () => {
    const first = await app.get('/api/1/users/$self/insights/attribute/steps/?limit=500', { token });
    expect(first.body.count).toBe(STEPS_INSIGHTS);
    expect(first.body.results).toHaveLength(100);
    expect(first.body.results.every((i: V1Insight) => i.type.attribute.name === 'steps')).toBe(true);
    const second = await app.get('/api/1/users/$self/insights/attribute/steps/?limit=100&page=2', { token });
    expect(dates(second.body.results)).toEqual(Array.from({ length: 10 }, (_, i) => addDays(LAST, -100 - i)));
    expect(second.body.next).toBeNull();
    expect(new URL(second.body.previous).searchParams.get('page')).toBe('1');
    expect((await app.get('/api/1/users/$self/insights/attribute/steps/?limit=100&page=3', { token })).status).toBe(404);
  });

  test('date_min and date_max apply', async () => {
    const res = await app.get('/api/1/users/$self/insights/attribute/sleep/?date_min=2026-11-06&date_max=2026-11-19', { token });
    expect(dates(res.body.results)).toEqual(['2026-11-19', '2026-11-12']);
  });

  test('an unknown attribute, or one the token may not read, is an empty page', async () => {
    const empty = { count: 0, next: null, previous: null, results: [] };
    expect((await app.get('/api/1/users/$self/insights/attribute/nothing/', { token })).body).toEqual(empty);
    expect((await app.get('/api/1/users/$self/insights/attribute/sleep/', { bearer: await tokenFor(['activity_read']) })).body).toEqual(empty);
  });

  test('another user is 403', async () => {
    const res = await app.get(`/api/1/users/${other.username}/insights/attribute/steps/`, { token });
    expect(res.status).toBe(403);
    expect(res.text).not.toContain('55555');
  });
});

describe('insights from the insight jobs', () => {
  test('v1 lists the same insights as v2, with the value and value2 the jobs stored', async () => {
    const made = await makeUser(app, { timezone: 'UTC' });
    const steps = await addAttribute(app, made.user.id, { name: 'steps' });
    const today = '2026-11-18';
    const values: Record<string, number> = {};
    for (let ago = 0; ago < 400; ago++) values[addDays(today, -ago)] = ago === 0 ? 10600 : ago === 1 ? 12000 : 8000;
    await addValues(app, made.user.id, steps, values);
    await generateInsights(app.db, made.user.id, { now: new Date('2026-11-18T10:00:00Z') });

    const v1 = await app.get('/api/1/users/$self/insights/attribute/steps/', { token: made.simpleToken });
    const v2 = await app.get('/api/2/insights/', { token: made.simpleToken });
    expect(v1.body.count).toBeGreaterThan(0);
    expect(v1.body.count).toBe(v2.body.count);
    const stored = await app
      .db('insights')
      .where({ user_id: made.user.id })
      .orderBy([
        { column: 'created', order: 'desc' },
        { column: 'id', order: 'desc' },
      ])
      .select('value', 'value2', 'comment');
    expect(v1.body.results.map((i: V1Insight) => ({ value: i.value, value2: i.value2, comment: i.comment }))).toEqual(stored);
    expect(stored.some((row: { value: string | null }) => row.value !== null)).toBe(true);
    for (const [index, insight] of v1.body.results.entries()) {
      const { value_type: _t, value_type_description: _d, ...attribute } = v2.body.results[index].type.attribute;
      expect(insight).toMatchObject({
        created: v2.body.results[index].created,
        text: v2.body.results[index].text,
        type: { ...v2.body.results[index].type, attribute },
      });
    }
  });
});

/**
 * GET /api/2/averages/ over HTTP: weekly sets of medians computed by the derive, historical sets
 * kept, filters, paging and scopes.
 */
import { startTestApp, type TestApp } from '../../support/app';
import { makeClient, makeToken, makeUser } from '../../support/fixtures';
import { addAttribute, addValues } from '../../support/seed';
import { deriveUser } from '../../../src/analytics/derive';
import { addDays } from '../../../src/domain/time';
import type { User } from '../../../src/domain/identity/users';

let app: TestApp;
let person: User;
let token: string;

// Weeks dated Monday 2026-11-09 and Monday 2026-11-16 (derived on the Friday of each week).
const FIRST_RUN = new Date('2026-11-13T12:00:00Z');
const SECOND_RUN = new Date('2026-11-20T12:00:00Z');

/** steps on the 90 days up to 2026-11-20: 1000 + days before 2026-11-15 (so the values are known). */
const STEPS: Record<string, number> = {};
for (let i = 0; i < 90; i++) STEPS[addDays('2026-11-20', -i)] = 1000 + i;

beforeAll(async () => {
  app = await startTestApp();
  const made = await makeUser(app, { timezone: 'UTC' });
  person = made.user;
  token = made.simpleToken;
  await addValues(app, person.id, await addAttribute(app, person.id, { name: 'steps' }), STEPS);
  // Weight only on Mondays and Tuesdays of the window before 2026-11-16.
  const weight: Record<string, number> = {};
  for (let i = 1; i <= 60; i++) {
    const date = addDays('2026-11-16', -i);
    const day = new Date(`${date}T00:00:00Z`).getUTCDay();
    if (day === 1) weight[date] = 70 + i / 10;
    if (day === 2) weight[date] = 80;
  }
  await addValues(app, person.id, await addAttribute(app, person.id, { name: 'weight' }), weight);
  await addValues(app, person.id, await addAttribute(app, person.id, { name: 'mood_note' }), { '2026-11-10': 'fine' });
  await addValues(app, person.id, await addAttribute(app, person.id, { name: 'mood' }), { '2026-11-10': 6, '2026-11-11': 7 });
  await deriveUser(app.db, person.id, { now: FIRST_RUN });
  await deriveUser(app.db, person.id, { now: SECOND_RUN });
});
afterAll(async () => {
  await app.close();
});

describe('GET /api/2/averages/', () => {
  test('without parameters: the most recent set of every readable numeric attribute, in list order', async () => {
    const res = await app.get('/api/2/averages/', { token });
    expect(res.status).toBe(200);
    expect(res.body.results.map((a: { attribute: string; date: string }) => [a.attribute, a.date])).toEqual([
      ['steps', '2026-11-16'],
      ['mood', '2026-11-16'],
      ['weight', '2026-11-16'],
    ]);
  });

  test('the most recent set is one week’s: an attribute without data in the newest window is absent, not shown with an old median', async () => {
    // Coffees were tracked only in the summer: the derive of the week of 2026-08-10 gave them a set.
    const coffees = await addAttribute(app, person.id, { name: 'coffees' });
    await addValues(app, person.id, coffees, { '2026-08-03': 2, '2026-08-04': 3, '2026-08-05': 2 });
    await deriveUser(app.db, person.id, { now: new Date('2026-08-14T12:00:00Z') });
    try {
      const latest = await app.get('/api/2/averages/', { token });
      expect(latest.body.results.map((a: { attribute: string }) => a.attribute)).toEqual(['steps', 'mood', 'weight']);
      expect(new Set(latest.body.results.map((a: { date: string }) => a.date))).toEqual(new Set(['2026-11-16']));
      // Named, it is still not part of the newest set; its history is there with include_historical.
      expect((await app.get('/api/2/averages/?attributes=coffees', { token })).body.count).toBe(0);
      const history = await app.get('/api/2/averages/?attributes=coffees&include_historical=1', { token });
      expect(history.body.results).toEqual([
        { attribute: 'coffees', date: '2026-08-10', overall: 2, monday: 2, tuesday: 3, wednesday: 2, thursday: 2, friday: 2, saturday: 2, sunday: 2 },
      ]);
      // date_max picks the newest set up to it: the summer week, one date again.
      const august = await app.get('/api/2/averages/?date_max=2026-08-31', { token });
      expect(new Set(august.body.results.map((a: { date: string }) => a.date))).toEqual(new Set(['2026-08-10']));
      expect(august.body.results.map((a: { attribute: string }) => a.attribute)).toContain('coffees');
    } finally {
      await app.db('averages').where({ user_id: person.id, date: '2026-08-10' }).delete();
      await app.db('correlations').where({ user_id: person.id, date: '2026-08-10' }).delete();
      await app.db('derived_weeks').where({ user_id: person.id, date: '2026-08-10' }).delete();
      await app.db('attributes').where({ user_id: person.id, id: coffees.id }).delete();
    }
  });

  test('a week whose computation found no data is the most recent set, and empty', async () => {
    await app.db('derived_weeks').insert({ user_id: person.id, date: '2027-03-01', attributes: 0, tests: 0, published: 0, averages: 0, duration_ms: 1 });
    try {
      expect((await app.get('/api/2/averages/', { token })).body).toEqual({ count: 0, next: null, previous: null, results: [] });
    } finally {
      await app.db('derived_weeks').where({ user_id: person.id, date: '2027-03-01' }).delete();
    }
  });

  test('overall and weekday medians over the 60 days before the set date', async () => {
    const res = await app.get('/api/2/averages/?attributes=steps', { token });
    // Window 2026-09-17 .. 2026-11-15: steps 1005 (2026-11-15) .. 1064 (2026-09-17), median (1034 + 1035) / 2.
    const [steps] = res.body.results;
    expect(steps.overall).toBe(1034.5);
    // Sundays 2026-11-15, 11-08, ... : 1005, 1012, ..., 1061 (9 values) -> 1033.
    expect(steps.sunday).toBe(1033);
    // Mondays 2026-11-09 .. 2026-09-21: 1011 .. 1060 (8 values) -> (1032 + 1039) / 2.
    expect(steps.monday).toBe(1035.5);
    const weight = (await app.get('/api/2/averages/?attributes=weight', { token })).body.results[0];
    expect(weight.tuesday).toBe(80);
    expect(typeof weight.monday).toBe('number');
    // Weight has no Wednesday or Sunday in the window: those weekdays get the overall median.
    expect(typeof weight.overall).toBe('number');
    for (const day of ['wednesday', 'thursday', 'friday', 'saturday', 'sunday']) expect([day, weight[day]]).toEqual([day, weight.overall]);
  });

  test('include_historical with attributes: several sets per attribute, newest first', async () => {
    const res = await app.get('/api/2/averages/?attributes=steps&include_historical=1', { token });
    expect(res.body.results.map((a: { date: string }) => a.date)).toEqual(['2026-11-16', '2026-11-09']);
    // The earlier set's window ends 2026-11-08: steps 1012 .. 1071, median 1041.5.
    expect(res.body.results[1].overall).toBe(1041.5);
  });

  test('date_min and date_max bound the sets; groups and attributes filter', async () => {
    const older = await app.get('/api/2/averages/?date_max=2026-11-15', { token });
    expect(older.body.results.map((a: { attribute: string; date: string }) => `${a.attribute}@${a.date}`)).toEqual(['steps@2026-11-09', 'weight@2026-11-09']);
    const window = await app.get('/api/2/averages/?include_historical=true&date_min=2026-11-10&date_max=2026-11-30', { token });
    expect(window.body.results.every((a: { date: string }) => a.date === '2026-11-16')).toBe(true);
    const health = await app.get('/api/2/averages/?groups=health,activity', { token });
    expect(health.body.results.map((a: { attribute: string }) => a.attribute)).toEqual(['steps', 'weight']);
    expect((await app.get('/api/2/averages/?attributes=mood_note', { token })).body).toMatchObject({ count: 0, results: [] });
    expect((await app.get('/api/2/averages/?groups=nonsense', { token })).body.count).toBe(0);
  });

  test('scopes hide what the token cannot read', async () => {
    const { client } = await makeClient(app, person);
    const moodOnly = (await makeToken(app, person, client, ['mood_read'])).access_token;
    const res = await app.get('/api/2/averages/?include_historical=1', { bearer: moodOnly });
    // Mood has data only from 2026-11-10: the week of 2026-11-09 (window ending 11-08) has no set for it.
    expect(res.body.results.map((a: { attribute: string }) => a.attribute)).toEqual(['mood']);
    expect((await app.get('/api/2/averages/?attributes=steps', { bearer: moodOnly })).body.count).toBe(0);
  });

  test('paged, with a 404 past the end; year 0000 is a 400', async () => {
    const first = await app.get('/api/2/averages/?include_historical=1&limit=4', { token });
    expect(first.body.count).toBe(5);
    expect(first.body.results).toHaveLength(4);
    const second = await app.get(new URL(first.body.next).pathname + new URL(first.body.next).search, { token });
    expect(second.body.results).toHaveLength(1);
    expect(second.body.next).toBeNull();
    expect((await app.get('/api/2/averages/?page=3&limit=4', { token })).status).toBe(404);
    expect((await app.get('/api/2/averages/?date_min=0000-01-01', { token })).status).toBe(400);
  });
});

/**
 * One form per day (/data, POST /data/day): everything a person tracks by hand is entered on one
 * form and saved with one request, through the same write rules as any app; what cannot be read
 * comes back as typed, with nothing written. Tracking something new offers kinds in people's
 * words and marks what is already tracked.
 */
import { startTestApp, type TestApp } from '../support/app';
import { makeClient, makeSession, makeToken, makeUser } from '../support/fixtures';
import { PAGE, sessionCsrf } from '../support/web';
import { addDays, localDate } from '../../src/domain/time';
import { READ_SCOPES } from '../../src/domain/apps-and-grants/scopes';
import type { User } from '../../src/domain/identity/users';

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

interface Person {
  user: User;
  session: string;
  reader: string;
  today: string;
}

async function person(): Promise<Person> {
  const { user } = await makeUser(app, { timezone: 'UTC' });
  const session = await makeSession(app, user);
  const { client } = await makeClient(app, user, 'Reader');
  const reader = (await makeToken(app, user, client, [...READ_SCOPES])).access_token;
  return { user, session, reader, today: localDate(new Date(), 'UTC') };
}

async function track(p: Person, form: Record<string, string>) {
  const res = await app.post('/data/track', { ...PAGE, session: p.session, form: { csrf_token: await sessionCsrf(app, p.session, '/data'), ...form } });
  expect([form, res.status]).toEqual([form, 303]);
}

async function saveDay(p: Person, values: Record<string, string>, date = p.today) {
  return app.post('/data/day', { ...PAGE, session: p.session, form: { csrf_token: await sessionCsrf(app, p.session, '/data'), date, ...values } });
}

/** The API's values of a day, by attribute name. */
async function apiDay(p: Person, date = p.today): Promise<Record<string, unknown>> {
  const res = await app.get(`/api/2/attributes/with-values/?date_max=${date}&days=1&limit=100`, { bearer: p.reader });
  expect(res.status).toBe(200);
  const day: Record<string, unknown> = {};
  for (const attribute of res.body.results as Array<{ name: string; values: Array<{ value: unknown }> }>)
    day[attribute.name] = attribute.values[0]?.value ?? null;
  return day;
}

/** Six things tracked by hand, one of each kind a person enters. */
async function sixThings(p: Person): Promise<void> {
  await track(p, { kind: 'template', template: 'mood' });
  await track(p, { kind: 'template', template: 'sleep' });
  await track(p, { kind: 'template', template: 'sleep_start' });
  await track(p, { kind: 'template', template: 'weight' });
  await track(p, { kind: 'template', template: 'mood_note' });
  await track(p, { kind: 'custom', label: 'Went swimming', group: 'workouts', value_kind: 'tag' });
}

test('the whole day is one form: six things saved with one POST, and the values are what the API returns and the page shows', async () => {
  const p = await person();
  await sixThings(p);
  const page = await app.get('/data', { ...PAGE, session: p.session });
  // One form, one Save button for the day, every field in it.
  expect(page.text.match(/<form method="post" action="\/data\/day"/g)).toHaveLength(1);
  expect(page.text.match(/<div class="savebar"><button type="submit">/g)).toHaveLength(1);
  // The full day form (the quick entry above it posts to the same address: test/web/week.test.ts).
  const start = page.text.indexOf('action="/data/day" class="day"');
  const form = page.text.slice(start, page.text.indexOf('</form>', start));
  expect([...form.matchAll(/<input type="radio" name="v:mood" value="(\d)"/g)].map((m) => m[1])).toEqual(['1', '2', '3', '4', '5', '6', '7', '8', '9']);
  expect(form).toContain('<input type="checkbox" name="v:went_swimming" value="1">');
  expect(form).toMatch(/<input type="text" id="v:sleep" name="v:sleep" value="" inputmode="text" placeholder="h:mm"/);
  expect(form).toMatch(/<input type="text" id="v:sleep_start" name="v:sleep_start" value="" inputmode="text" placeholder="HH:MM"/);
  expect(form).toMatch(/<input type="text" id="v:weight" name="v:weight" value="" inputmode="decimal"[^>]*><span class="unit">kg<\/span>/);
  expect(form).toContain('<textarea id="v:mood_note" name="v:mood_note"');

  const saved = await saveDay(p, {
    'v:mood': '7',
    'v:sleep': '7:45',
    'v:sleep_start': '23:10',
    'v:weight': '71,5',
    'v:mood_note': 'a good swim',
    'v:went_swimming': '1',
  });
  expect(saved.status).toBe(303);
  expect(saved.headers.get('location')).toBe(`/data?date=${p.today}&notice=saved`);
  expect(await apiDay(p)).toMatchObject({
    mood: 7,
    sleep: 465,
    sleep_start: 670,
    weight: 71.5,
    mood_note: 'a good swim',
    went_swimming: 1,
    custom: 'went swimming',
  });
  // Six values written in one transaction (Postgres' now() is the transaction's start: one time for all six),
  // and the day recorded for the derived data like any app's write.
  const rows = await app.db('attribute_values').where({ user_id: p.user.id, date: p.today }).select('updated_at');
  // Seven rows: the six, and the day's custom tags text that the tag keeps (the spec's `custom`).
  expect(rows).toHaveLength(7);
  expect(new Set(rows.map((r) => (r.updated_at as Date).toISOString())).size).toBe(1);
  expect(await app.db('value_changes').where({ user_id: p.user.id, date: p.today })).toHaveLength(1);

  const after = await app.get(`/data?date=${p.today}&notice=saved`, { ...PAGE, session: p.session });
  expect(after.text).toContain('<p class="notice" role="status">Saved.</p>');
  const shown = (name: string) =>
    /<div class="value" data-date="[^"]+">([^<]*)<\/div>/.exec(after.text.slice(after.text.indexOf(`<li id="attribute-${name}"`)))?.[1];
  expect(['mood', 'sleep', 'sleep_start', 'weight', 'went_swimming'].map(shown)).toEqual(['7', '7 h 45 min', '23:10', '71.5', '1']);
  // The form shows the day back as it is typed: the choice made, h:mm, HH:MM, the number, the ticked tag.
  expect(after.text).toContain('<input type="radio" name="v:mood" value="7" checked>');
  expect(after.text).toContain('name="v:sleep" value="7:45"');
  expect(after.text).toContain('name="v:sleep_start" value="23:10"');
  expect(after.text).toContain('name="v:weight" value="71.5"');
  expect(after.text).toContain('<input type="checkbox" name="v:went_swimming" value="1" checked>');
});

test('an empty field keeps the day’s value; unticking a tag records that it did not happen; saving again unchanged writes nothing', async () => {
  const p = await person();
  await sixThings(p);
  expect((await saveDay(p, { 'v:mood': '4', 'v:weight': '70', 'v:went_swimming': '1' })).status).toBe(303);
  const stamps = async () =>
    (await app.db('attribute_values').where({ user_id: p.user.id }).orderBy('attribute_id').select('attribute_id', 'updated_at')).map(
      (r) => `${r.attribute_id} ${(r.updated_at as Date).toISOString()}`,
    );
  const before = await stamps();
  // Same values again: nothing to write.
  expect((await saveDay(p, { 'v:mood': '4', 'v:weight': '70', 'v:went_swimming': '1' })).status).toBe(303);
  expect(await stamps()).toEqual(before);
  // Weight left empty, tag unticked.
  expect((await saveDay(p, { 'v:mood': '5', 'v:weight': '' })).status).toBe(303);
  expect(await apiDay(p)).toMatchObject({ mood: 5, weight: 70, went_swimming: 0 });
  // Another day is its own form.
  const yesterday = addDays(p.today, -1);
  expect((await saveDay(p, { 'v:mood': '2' }, yesterday)).status).toBe(303);
  expect(await apiDay(p, yesterday)).toMatchObject({ mood: 2, weight: null });
  expect(await apiDay(p)).toMatchObject({ mood: 5 });
});

test('what cannot be read comes back as typed, naming the problem, and nothing of the day is written', async () => {
  const p = await person();
  await sixThings(p);
  const before = await apiDay(p);
  const res = await saveDay(p, { 'v:mood': '6', 'v:sleep': 'lots', 'v:sleep_start': '25:00', 'v:weight': '70' });
  expect(res.status).toBe(400);
  expect(res.text).toContain('Nothing was saved');
  expect(res.text).toContain('Time asleep: &quot;lots&quot; is not a duration: type hours and minutes as h:mm, e.g. 7:30 (or minutes, e.g. 45).');
  expect(res.text).toContain('Bedtime: &quot;25:00&quot; is not a time of day');
  // Shown back exactly as typed, the good fields too.
  expect(res.text).toContain('name="v:sleep" value="lots"');
  expect(res.text).toContain('name="v:sleep_start" value="25:00"');
  expect(res.text).toContain('name="v:weight" value="70"');
  expect(res.text).toContain('<input type="radio" name="v:mood" value="6" checked>');
  expect(await apiDay(p)).toEqual(before);
});

test('a value the write rules refuse is named and kept as typed; the others of the day are saved', async () => {
  const p = await person();
  await sixThings(p);
  const res = await saveDay(p, { 'v:mood': '12', 'v:weight': '72' });
  expect(res.status).toBe(400);
  expect(res.text).toMatch(/Saved 1 value; not saved: Mood: [^<]*9/);
  expect(await apiDay(p)).toMatchObject({ mood: null, weight: 72 });
});

test('the day’s form needs its anti-forgery token and a real day; a field for an attribute an app owns is ignored', async () => {
  const p = await person();
  await sixThings(p);
  const { client } = await makeClient(app, p.user, 'Step Counter');
  const writer = (await makeToken(app, p.user, client, ['activity_write', 'activity_read'])).access_token;
  expect((await app.post('/api/2/attributes/acquire/', { bearer: writer, json: [{ template: 'steps' }] })).status).toBe(200);
  const forged = await app.post('/data/day', { ...PAGE, session: p.session, form: { date: p.today, 'v:mood': '3' } });
  expect(forged.status).toBe(403);
  for (const date of ['', '2026-02-30', 'today']) {
    const res = await saveDay(p, { 'v:mood': '3' }, date);
    expect([date, res.status]).toEqual([date, 400]);
  }
  expect((await saveDay(p, { 'v:steps': '5000', 'v:mood': '3' })).status).toBe(303);
  expect(await apiDay(p)).toMatchObject({ mood: 3, steps: null });
});

test('tracking something new offers kinds in people’s words, makes a tag a custom tag, and marks what is already tracked', async () => {
  const p = await person();
  const page = await app.get('/data/track', { ...PAGE, session: p.session });
  expect([...page.text.matchAll(/<option value="(\w+)">(A [^<]+)<\/option>/g)].map((m) => m[2])).toEqual([
    'A yes/no tag',
    'A count (a whole number)',
    'A number',
    'A duration (hours and minutes)',
    'A time of day',
    'A 1-9 rating',
    'A percentage',
    'A note (text)',
  ]);
  expect(page.text).not.toContain('Scale (1-9 as integer)');
  await track(p, { kind: 'custom', label: 'Meditated', group: 'mood', value_kind: 'tag' });
  await track(p, { kind: 'custom', label: 'Focus', group: 'productivity', value_kind: 'rating' });
  await track(p, { kind: 'custom', label: 'Reading', group: 'media', value_kind: 'duration' });
  const attributes = (await app.get('/api/2/attributes/?limit=100', { bearer: p.reader })).body.results as Array<{
    name: string;
    group: { name: string };
    value_type: number;
  }>;
  expect(attributes.map((a) => [a.name, a.group.name, a.value_type])).toEqual(
    expect.arrayContaining([
      ['meditated', 'custom', 0],
      ['focus', 'productivity', 8],
      ['reading', 'media', 3],
    ]),
  );
  await track(p, { kind: 'template', template: 'mood' });
  const again = await app.get('/data/track', { ...PAGE, session: p.session });
  expect(again.text).toContain('<option value="mood">Mood (tracked by hand)</option>');
  expect(again.text).toContain('<option value="sleep">Time asleep</option>');
  expect(again.text).toMatch(/You track by hand: .*<a href="\/data\/mood">Mood<\/a>/);
  const refused = await app.post('/data/track', {
    ...PAGE,
    session: p.session,
    form: { csrf_token: await sessionCsrf(app, p.session, '/data'), kind: 'custom', label: 'Naps', group: 'sleep', value_kind: 'vibes' },
  });
  expect(refused.status).toBe(400);
  expect(refused.text).toContain('Pick what it is from the list.');
});

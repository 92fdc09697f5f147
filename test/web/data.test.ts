/**
 * Your data (/data) and tracking by hand (/data/track, /data/values): a person sees the day's
 * values with a sparkline of the last 30 days, starts tracking something by hand (Daybook's built-in service becomes its owner, as any
 * app would through acquire or create), enters values as they read them (times, durations, per
 * cent, yes/no), and what they enter is what the API returns. Bad input is a 400 page that names
 * the problem and changes nothing; values of attributes an app owns cannot be entered here.
 */
import { startTestApp, type TestApp } from '../support/app';
import { makeClient, makeSession, makeToken, makeUser } from '../support/fixtures';
import { PAGE, sessionCsrf } from '../support/web';
import { localDate, addDays } from '../../src/domain/time';
import { READ_SCOPES } from '../../src/domain/apps-and-grants/scopes';
import type { User } from '../../src/domain/identity/users';
import type { OAuthClient } from '../../src/domain/apps-and-grants/clients';

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
  /** An app of theirs that reads everything. */
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
  return app.post('/data/track', { ...PAGE, session: p.session, form: { csrf_token: await sessionCsrf(app, p.session, '/data'), ...form } });
}

async function enter(p: Person, name: string, value: string, date = p.today) {
  return app.post('/data/values', { ...PAGE, session: p.session, form: { csrf_token: await sessionCsrf(app, p.session, '/data'), name, date, value } });
}

/** The value the API returns for an attribute on a day (null when none). */
async function apiValue(p: Person, name: string, date = p.today): Promise<unknown> {
  const res = await app.get(`/api/2/attributes/values/?attribute=${name}&date_min=${date}&date_max=${date}`, { bearer: p.reader });
  expect(res.status).toBe(200);
  return (res.body.results as Array<{ date: string; value: unknown }>)[0]?.value ?? null;
}

async function attribute(p: Person, name: string) {
  const res = await app.get(`/api/2/attributes/?attributes=${name}&include_inactive=true`, { bearer: p.reader });
  return res.body.results[0];
}

/** The line of an attribute on the page (its label, source and the day's value; not its field), as text. */
function rowText(html: string, name: string): string {
  const start = html.indexOf(`<li id="attribute-${name}"`);
  if (start < 0) return '';
  const item = html.slice(start, html.indexOf('</li>', start));
  const line = item.includes('<div class="entry') ? item.slice(0, item.indexOf('<div class="entry')) : item;
  return line
    .replace(/<title>[^<]*<\/title>/g, '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The day's value shown for an attribute. */
function dayValueShown(html: string, name: string): string {
  const start = html.indexOf(`<li id="attribute-${name}"`);
  return /<div class="value" data-date="[^"]+">([^]*?)<\/div>/.exec(html.slice(start))?.[1] ?? '';
}

const valuesOf = async (p: Person) =>
  app.db('attribute_values').where({ user_id: p.user.id }).orderBy(['attribute_id', 'date']).select('attribute_id', 'date', 'value_num', 'value_text');

test('logged out, the data pages send the person to log in and back', async () => {
  const res = await app.get('/data?date=2026-11-01', PAGE);
  expect(res.status).toBe(303);
  expect(res.headers.get('location')).toBe(`/login?next=${encodeURIComponent('/data?date=2026-11-01')}`);
  expect((await app.post('/data/values', { ...PAGE, form: { name: 'mood', date: '2026-11-01', value: '5' } })).status).toBe(303);
});

test('a new person is told how to start; the home page and logging in lead here', async () => {
  const p = await person();
  const res = await app.get('/data', { ...PAGE, session: p.session });
  expect(res.status).toBe(200);
  expect(res.text).toContain('Nothing is tracked yet');
  expect(res.text).toContain('<a href="/data/track">track something by hand</a>');
  const home = await app.get('/', { ...PAGE, session: p.session });
  expect(home.headers.get('location')).toBe('/data');
});

test('tracking a template by hand makes Daybook its owner, and a value entered is what the API returns', async () => {
  const p = await person();
  const tracked = await track(p, { kind: 'template', template: 'mood' });
  expect(tracked.status).toBe(303);
  expect(tracked.headers.get('location')).toBe('/data?notice=tracking&attribute=mood#attribute-mood');
  expect(await attribute(p, 'mood')).toMatchObject({ name: 'mood', manual: true, active: true, service: { name: 'daybook', label: 'Daybook' } });

  const saved = await enter(p, 'mood', ' 7 ');
  expect(saved.status).toBe(303);
  expect(saved.headers.get('location')).toBe(`/data?date=${p.today}&notice=saved&attribute=mood`);
  expect(await apiValue(p, 'mood')).toBe(7);
  // Like any write, it is recorded for the derived data.
  expect(await app.db('value_changes').where({ user_id: p.user.id, date: p.today })).toHaveLength(1);

  const page = await app.get(`/data?date=${p.today}&notice=saved&attribute=mood`, { ...PAGE, session: p.session });
  expect(page.text).toContain('Saved Mood.');
  expect(rowText(page.text, 'mood')).toMatch(/^Mood Daybook 7$/);
  // Its entry form shows the day's value.
  // The day's form offers mood as nine choices, the day's one chosen (so does the quick entry above it).
  const dayForm = page.text.slice(page.text.indexOf('<form method="post" action="/data/day" class="day">'));
  expect([...dayForm.matchAll(/<input type="radio" name="v:mood" value="(\d)"( checked)?>/g)].map((m) => m[1] + (m[2] ?? ''))).toEqual([
    '1',
    '2',
    '3',
    '4',
    '5',
    '6',
    '7 checked',
    '8',
    '9',
  ]);
});

test.each([
  ['sleep_start', '23:30', 690, '23:30', '23:30'],
  ['sleep_start', '01:15', 795, '01:15', '01:15'],
  ['sleep_end', '06:45', 405, '06:45', '06:45'],
  ['sleep', '7:30', 450, '7 h 30 min', '7:30'],
  ['sleep', '45', 45, '45 min', '0:45'],
  ['body_fat', '21,5', 0.215, '21.5 %', '21.5'],
  ['steps_distance', '4.2', 4.2, '4.2', '4.2'],
  ['mood_note', '  calm <b>day</b>  ', '  calm <b>day</b>  ', '  calm &lt;b&gt;day&lt;/b&gt;  ', '  calm &lt;b&gt;day&lt;/b&gt;  '],
])('%s typed as %j is stored as %j, shown as %j and offered for editing as %j', async (name, typed, stored, shown, edit) => {
  const p = await person();
  expect((await track(p, { kind: 'template', template: name })).status).toBe(303);
  expect((await enter(p, name, typed)).status).toBe(303);
  expect(await apiValue(p, name)).toBe(stored);
  const page = await app.get('/data', { ...PAGE, session: p.session });
  expect(dayValueShown(page.text, name)).toBe(shown);
  // The entry form offers the value back for editing in the notation it is typed in (a note in a text area).
  const field =
    name === 'mood_note'
      ? new RegExp(`<textarea id="v:${name}" name="v:${name}"[^>]*>([^<]*)</textarea>`).exec(page.text)
      : new RegExp(`<input type="text" id="v:${name}" name="v:${name}" value="([^"]*)"`).exec(page.text);
  expect(field?.[1]).toBe(edit);
});

test('a value the rules refuse, or that is not what the type takes, is a 400 page naming the problem, and nothing changes', async () => {
  const p = await person();
  await track(p, { kind: 'template', template: 'mood' });
  await track(p, { kind: 'template', template: 'sleep_end' });
  await enter(p, 'mood', '6');
  const before = await valuesOf(p);
  const cases: Array<[string, string, RegExp]> = [
    ['mood', '12', /Mood was not saved: Attribute mood is an integer from 1 to 9\./],
    ['mood', 'lots', /Mood was not saved: &quot;lots&quot; is not a number\./],
    ['mood', '6.5', /Mood was not saved: Attribute mood takes an integer value; 6.5 is not one\./],
    ['mood', '', /Mood was not saved: Type a value first\./],
    ['sleep_end', '25:00', /Wake time was not saved: &quot;25:00&quot; is not a time of day/],
  ];
  for (const [name, value, message] of cases) {
    const res = await enter(p, name, value);
    expect([name, value, res.status]).toEqual([name, value, 400]);
    expect(res.text).toMatch(message);
  }
  expect(await valuesOf(p)).toEqual(before);
  expect(await apiValue(p, 'mood')).toBe(6);
});

test("an app's attribute shows its values but no entry form, and a value posted for it is refused; tracking it by hand takes it over", async () => {
  const p = await person();
  const { client } = (await makeClient(app, p.user, 'Step Counter')) as { client: OAuthClient };
  const writer = (await makeToken(app, p.user, client, ['activity_read', 'activity_write'])).access_token;
  expect((await app.post('/api/2/attributes/acquire/', { bearer: writer, json: [{ template: 'steps' }] })).status).toBe(200);
  expect((await app.post('/api/2/attributes/update/', { bearer: writer, json: [{ name: 'steps', date: p.today, value: 8123 }] })).status).toBe(200);

  const page = await app.get('/data', { ...PAGE, session: p.session });
  expect(rowText(page.text, 'steps')).toMatch(/^Steps Step Counter 8123$/);
  expect(page.text).not.toContain('name="v:steps"');
  const refused = await enter(p, 'steps', '9000');
  expect(refused.status).toBe(400);
  expect(refused.text).toContain('Steps was not saved: Attribute steps does not belong to this service');
  expect(await apiValue(p, 'steps')).toBe(8123);

  expect((await track(p, { kind: 'template', template: 'steps' })).status).toBe(303);
  expect((await attribute(p, 'steps')).service).toEqual({ name: 'daybook', label: 'Daybook' });
  expect((await enter(p, 'steps', '9000')).status).toBe(303);
  expect(await apiValue(p, 'steps')).toBe(9000);
  // The app, no longer the owner, cannot write it (the spec's state table).
  const late = await app.post('/api/2/attributes/update/', { bearer: writer, json: [{ name: 'steps', date: p.today, value: 1 }] });
  expect(late.body.failed[0].error_code).toBe('unauthorised');
});

test('something of their own: created with a name from its label; a tag entered by hand updates the day’s custom text', async () => {
  const p = await person();
  const tea = await track(p, { kind: 'custom', label: 'Cups of tea', group: 'food', value_type: '0' });
  expect(tea.headers.get('location')).toBe('/data?notice=tracking&attribute=cups_of_tea#attribute-cups_of_tea');
  expect(await attribute(p, 'cups_of_tea')).toMatchObject({
    label: 'Cups of tea',
    group: { name: 'food' },
    value_type: 0,
    manual: true,
    service: { name: 'daybook' },
  });
  expect((await enter(p, 'cups_of_tea', '3')).status).toBe(303);
  expect(await apiValue(p, 'cups_of_tea')).toBe(3);

  await track(p, { kind: 'custom', label: 'Walked the dog', group: 'custom', value_type: '0' });
  expect((await enter(p, 'walked_the_dog', '1')).status).toBe(303);
  expect(await apiValue(p, 'custom')).toBe('walked the dog');

  await track(p, { kind: 'custom', label: 'Went swimming', group: 'workouts', value_type: '7' });
  expect((await enter(p, 'went_swimming', 'yes')).status).toBe(303);
  expect(await apiValue(p, 'went_swimming')).toBe(1);
  const page = await app.get('/data', { ...PAGE, session: p.session });
  expect(rowText(page.text, 'went_swimming')).toBe('Went swimming Daybook Yes');
});

test('a track form the rules refuse is a 400 page that keeps what was typed, and creates nothing', async () => {
  const p = await person();
  const count = async () => (await app.db('attributes').where({ user_id: p.user.id })).length;
  const before = await count();
  const cases: Array<[Record<string, string>, RegExp]> = [
    [{ kind: 'custom', label: '   ', group: 'food', value_type: '0' }, /Give what you track a name\./],
    [{ kind: 'custom', label: 'Naps', group: 'food', value_type: '9' }, /Pick a kind of value from the list\./],
    [{ kind: 'custom', label: 'Naps', group: 'nonsense', value_type: '3' }, /nonsense/],
    [{ kind: 'template', template: 'no_such_template' }, /There is no template named no_such_template\./],
  ];
  for (const [form, message] of cases) {
    const res = await track(p, form);
    expect([form, res.status]).toEqual([form, 400]);
    expect(res.text).toMatch(message);
  }
  expect((await track(p, { kind: 'custom', label: 'Naps <3', group: 'food', value_type: '9' })).text).toContain('value="Naps &lt;3"');
  expect(await count()).toBe(before);
});

test('a form without its anti-forgery token is refused and changes nothing; another person’s attribute cannot be reached', async () => {
  const p = await person();
  const other = await person();
  await track(other, { kind: 'template', template: 'mood' });
  await track(p, { kind: 'template', template: 'weight' });
  const before = await valuesOf(p);
  const forged = await app.post('/data/values', { ...PAGE, session: p.session, form: { name: 'weight', date: p.today, value: '70' } });
  expect(forged.status).toBe(403);
  expect((await app.post('/data/track', { ...PAGE, session: p.session, form: { kind: 'template', template: 'mood' } })).status).toBe(403);
  // mood is the other person's only: for this person it does not exist.
  const reach = await enter(p, 'mood', '5');
  expect(reach.status).toBe(404);
  expect(reach.text).toContain('You have no attribute named mood.');
  expect(await valuesOf(p)).toEqual(before);
  expect(await apiValue(other, 'mood')).toBeNull();
});

test('any day can be shown: its value, a sparkline of the 30 days ending with it, links to the days around it, none past today', async () => {
  const p = await person();
  await track(p, { kind: 'template', template: 'weight' });
  const earlier = addDays(p.today, -10);
  for (const [offset, value] of [
    [-17, '80'],
    [-13, '79.5'],
    [-10, '79'],
  ] as const) {
    expect((await enter(p, 'weight', value, addDays(p.today, offset))).status).toBe(303);
  }
  const page = await app.get(`/data?date=${earlier}`, { ...PAGE, session: p.session });
  expect(page.status).toBe(200);
  expect(rowText(page.text, 'weight')).toBe('Weight (kg) Daybook 79');
  // The sparkline draws the days with a value among the 30 ending with the chosen one, and none after it.
  const item = page.text.slice(page.text.indexOf('<li id="attribute-weight"'));
  const spark = item.slice(item.indexOf('<svg class="spark"'), item.indexOf('</svg>'));
  expect([...spark.matchAll(/data-date="([^"]+)" data-value="([^"]+)"/g)].map((m) => [m[1], m[2]])).toEqual([
    [addDays(p.today, -17), '80'],
    [addDays(p.today, -13), '79.5'],
    [addDays(p.today, -10), '79'],
  ]);
  expect(spark).toContain('3 of the last 30 days have a value, from 79 to 80');
  expect(page.text).toContain(`href="/data?date=${addDays(earlier, -1)}" rel="prev"`);
  expect(page.text).toContain(`href="/data?date=${addDays(earlier, 1)}" rel="next"`);
  const today = await app.get('/data', { ...PAGE, session: p.session });
  expect(today.text).not.toContain('rel="next"');
  for (const bad of ['2026-02-30', 'yesterday', '0000-01-01']) {
    const res = await app.get(`/data?date=${bad}`, { ...PAGE, session: p.session });
    expect([bad, res.status]).toEqual([bad, 400]);
    expect(res.text).toContain('Pick a day as YYYY-MM-DD');
  }
});

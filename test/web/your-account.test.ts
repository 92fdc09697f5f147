/**
 * Your account (/settings/account): the downloads hold exactly the person's data (every value,
 * quoted and guarded as spreadsheets need; no credential anywhere; nothing of anyone else, across
 * the export's page boundaries), and deleting the account takes the password and the typed user
 * name, removes everything of the person at once, and leaves other people's data in place.
 */
import { startTestApp, type TestApp } from '../support/app';
import { makeClient, makeSession, makeToken, makeUser, resetSignInThrottle } from '../support/fixtures';
import { PAGE, csrfOf, logIn, setCookie, setCookieLine } from '../support/web';
import { loadDemoData } from '../../src/demo/demo-data';
import { deriveUser } from '../../src/analytics/derive';
import { localDate } from '../../src/domain/time';
import { simpleTokenOf, type User } from '../../src/domain/identity/users';
import type { OAuthClient } from '../../src/domain/apps-and-grants/clients';

jest.setTimeout(60_000);

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

/** A small RFC 4180 reader for the test's own checks. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let fieldText = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        fieldText += '"';
        i++;
      } else if (c === '"') quoted = false;
      else fieldText += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(fieldText);
      fieldText = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(fieldText);
      rows.push(row);
      row = [];
      fieldText = '';
      i++;
    } else fieldText += c;
  }
  return rows;
}

interface Person {
  user: User;
  session: string;
  password: string;
  writer: string;
  client: OAuthClient;
  secret: string;
}

async function person(): Promise<Person> {
  const { user, password } = await makeUser(app, { timezone: 'UTC' });
  const session = await makeSession(app, user);
  const { client, secret } = (await makeClient(app, user, 'Journal')) as { client: OAuthClient; secret: string };
  const writer = (await makeToken(app, user, client, ['mood_read', 'mood_write', 'activity_read', 'activity_write', 'sleep_read', 'sleep_write'])).access_token;
  return { user, session, password, writer, client, secret };
}

const NOTES = ['he said "hi", then\r\nleft', '=HYPERLINK("https://evil.example/","click")', '+1', '-', '@me', 'plain'];

async function withNotes(p: Person): Promise<void> {
  expect(
    (await app.post('/api/2/attributes/acquire/', { bearer: p.writer, json: [{ template: 'mood_note' }, { template: 'steps' }, { template: 'sleep_start' }] }))
      .status,
  ).toBe(200);
  const notes = NOTES.map((value, i) => ({ name: 'mood_note', date: `2026-10-0${i + 1}`, value }));
  expect(
    (
      await app.post('/api/2/attributes/update/', {
        bearer: p.writer,
        json: [...notes, { name: 'steps', date: '2026-10-01', value: -5 }, { name: 'sleep_start', date: '2026-10-01', value: 690 }],
      })
    ).status,
  ).toBe(200);
}

test('logged out, the account page and the downloads send the person to log in', async () => {
  for (const path of ['/settings/account', '/settings/account/export/values.csv', '/settings/account/export/data.json']) {
    const res = await app.get(path, PAGE);
    expect([path, res.status]).toEqual([path, 303]);
  }
});

test('the values download is CSV with a row per stored value, text quoted and formulas guarded, and nothing of anyone else', async () => {
  const p = await person();
  const other = await person();
  await withNotes(p);
  await withNotes(other);
  const res = await app.get('/settings/account/export/values.csv', { ...PAGE, session: p.session });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
  expect(res.headers.get('content-disposition')).toMatch(new RegExp(`^attachment; filename="daybook-${p.user.username}-\\d{4}-\\d{2}-\\d{2}-values.csv"$`));
  const rows = parseCsv(res.text);
  expect(rows[0]).toEqual(['date', 'attribute', 'label', 'group', 'value']);
  expect(rows.slice(1)).toEqual(
    expect.arrayContaining([
      ['2026-10-01', 'mood_note', 'Mood note', 'Mood', NOTES[0]],
      ['2026-10-02', 'mood_note', 'Mood note', 'Mood', `'${NOTES[1]}`],
      ['2026-10-03', 'mood_note', 'Mood note', 'Mood', "'+1"],
      ['2026-10-04', 'mood_note', 'Mood note', 'Mood', "'-"],
      ['2026-10-05', 'mood_note', 'Mood note', 'Mood', "'@me"],
      ['2026-10-06', 'mood_note', 'Mood note', 'Mood', 'plain'],
      // Numbers are numbers, negative ones included (not guarded).
      ['2026-10-01', 'steps', 'Steps', 'Activity', '-5'],
      ['2026-10-01', 'sleep_start', 'Bedtime', 'Sleep', '690'],
    ]),
  );
  const stored = await app.db('attribute_values').where({ user_id: p.user.id }).count({ n: '*' }).first();
  expect(rows.length - 1).toBe(Number(stored!.n));
});

test('a download larger than one page of the export holds every value exactly once', async () => {
  const p = await person();
  await loadDemoData(app.db, p.user.id, {
    seed: 3,
    days: 500,
    endDate: '2026-11-01',
    attributes: ['steps', 'sleep', 'mood', 'weight', 'water', 'coffees', 'floors', 'sleep_start', 'body_fat', 'mood_note', 'caffeine', 'heartrate'],
    rhythms: false,
  });
  const stored: Array<{ name: string; date: string }> = await app
    .db('attribute_values as v')
    .join('attributes as a', function join() {
      this.on('a.user_id', 'v.user_id').andOn('a.id', 'v.attribute_id');
    })
    .where('v.user_id', p.user.id)
    .select('a.name', 'v.date');
  expect(stored.length).toBeGreaterThan(5000);
  const res = await app.get('/settings/account/export/values.csv', { ...PAGE, session: p.session });
  const keys = parseCsv(res.text)
    .slice(1)
    .map(([date, name]) => `${name}:${date}`);
  expect(keys).toHaveLength(stored.length);
  expect(new Set(keys)).toEqual(new Set(stored.map((s) => `${s.name}:${s.date}`)));
});

test('the JSON download has the account, every attribute with its values, derived data and apps, and no credential', async () => {
  const p = await person();
  await withNotes(p);
  await loadDemoData(app.db, p.user.id, { seed: 4, days: 120, endDate: localDate(new Date(), 'UTC'), attributes: ['sleep', 'mood', 'weight'], rhythms: false });
  await deriveUser(app.db, p.user.id, { now: new Date() });
  const res = await app.get('/settings/account/export/data.json', { ...PAGE, session: p.session });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
  const data = JSON.parse(res.text);
  expect(Object.keys(data)).toEqual(['exported_at', 'account', 'attributes', 'averages', 'correlations', 'insights', 'apps', 'connected_apps']);
  expect(data.account).toMatchObject({ username: p.user.username, timezone: 'UTC' });
  expect(data.account).not.toHaveProperty('id');
  const counts = await app
    .db('attribute_values as v')
    .join('attributes as a', function join() {
      this.on('a.user_id', 'v.user_id').andOn('a.id', 'v.attribute_id');
    })
    .where('v.user_id', p.user.id)
    .groupBy('a.name')
    .select('a.name', app.db.raw('count(*)::int as n'));
  const exported = new Map<string, number>(data.attributes.map((a: { name: string; values: unknown[] }) => [a.name, a.values.length]));
  expect(Object.fromEntries(exported)).toEqual(expect.objectContaining(Object.fromEntries(counts.map((c: { name: string; n: number }) => [c.name, c.n]))));
  const note = data.attributes.find((a: { name: string }) => a.name === 'mood_note');
  expect(note).toMatchObject({ label: 'Mood note', group: 'mood', value_type: 2, service: { name: p.client.client_id, label: 'Journal' } });
  expect(note.values).toEqual(expect.arrayContaining([{ date: '2026-10-01', value: NOTES[0] }]));
  expect(data.averages.length).toBeGreaterThan(0);
  expect(data.apps).toEqual([expect.objectContaining({ client_id: p.client.client_id, name: 'Journal' })]);
  expect(data.apps[0]).not.toHaveProperty('secret_hash');
  expect(data.connected_apps).toEqual([expect.objectContaining({ client_id: p.client.client_id })]);
  // No credential, in any form.
  const simple = await simpleTokenOf(app.db, p.user, app.deps.secretKey);
  for (const secret of [simple, p.writer, p.secret, p.session, p.password]) expect(res.text).not.toContain(secret);
  expect(res.text).not.toMatch(/password|_hash|simple_token/);
});

async function deleteForm(p: Person, form: Record<string, string>) {
  const page = await app.get('/settings/account', { ...PAGE, session: p.session });
  return app.post('/settings/account/delete', { ...PAGE, session: p.session, form: { csrf_token: csrfOf(page.text), ...form } });
}

test('deleting takes the typed user name and the password; a refusal deletes nothing', async () => {
  const p = await person();
  const cases: Array<[Record<string, string>, number, RegExp]> = [
    [{ password: p.password, confirm: 'someone else' }, 400, /Type your user name, .*, exactly, to confirm\./],
    [{ password: 'not the password', confirm: p.user.username }, 400, /The password is incorrect\./],
  ];
  for (const [form, status, message] of cases) {
    const res = await deleteForm(p, form);
    expect(res.status).toBe(status);
    expect(res.text).toMatch(message);
  }
  const forged = await app.post('/settings/account/delete', { ...PAGE, session: p.session, form: { password: p.password, confirm: p.user.username } });
  expect(forged.status).toBe(403);
  expect(await app.db('users').where({ id: p.user.id })).toHaveLength(1);
});

test('wrong passwords are throttled as at the login form', async () => {
  await resetSignInThrottle(app);
  const p = await person();
  for (let i = 0; i < 5; i++) expect((await deleteForm(p, { password: `wrong ${i}`, confirm: p.user.username })).status).toBe(400);
  const throttled = await deleteForm(p, { password: p.password, confirm: p.user.username });
  expect(throttled.status).toBe(429);
  expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThan(0);
  expect(await app.db('users').where({ id: p.user.id })).toHaveLength(1);
});

test("deleting removes everything of the person at once; people who connected the person's app lose it but keep their data", async () => {
  await resetSignInThrottle(app);
  const p = await person();
  await withNotes(p);
  await deriveUser(app.db, p.user.id, { now: new Date() });
  // Someone else connected p's app, which writes their steps.
  const { user: friend } = await makeUser(app, { timezone: 'UTC' });
  const friendToken = (await makeToken(app, friend, p.client, ['activity_read', 'activity_write'])).access_token;
  expect((await app.post('/api/2/attributes/acquire/', { bearer: friendToken, json: [{ template: 'steps' }] })).status).toBe(200);
  expect((await app.post('/api/2/attributes/update/', { bearer: friendToken, json: [{ name: 'steps', date: '2026-10-01', value: 4321 }] })).status).toBe(200);
  const friendReader = (await makeToken(app, friend, (await makeClient(app, friend, 'Reader')).client, ['activity_read'])).access_token;

  const res = await deleteForm(p, { password: p.password, confirm: p.user.username });
  expect(res.status).toBe(200);
  expect(res.text).toContain(`The account ${p.user.username} and everything in it have been deleted.`);
  expect(setCookieLine(res, 'daybook_session')).toMatch(/Max-Age=0|Expires=Thu, 01 Jan 1970/);

  for (const table of ['users', 'attributes', 'attribute_values', 'sessions', 'tokens', 'averages', 'insights', 'value_changes']) {
    const column = table === 'users' ? 'id' : 'user_id';
    expect([table, (await app.db(table).where({ [column]: p.user.id })).length]).toEqual([table, 0]);
  }
  expect(await app.db('oauth_clients').where({ owner_user_id: p.user.id })).toEqual([]);
  expect((await app.get('/settings/profile', { ...PAGE, session: p.session })).status).toBe(303);
  expect((await app.get('/api/2/accounts/profile/', { bearer: p.writer })).status).toBe(401);
  // The friend: the deleted app's token is gone, its attribute owned by nobody, the values kept.
  expect((await app.get('/api/2/accounts/profile/', { bearer: friendToken })).status).toBe(401);
  const steps = await app.get('/api/2/attributes/with-values/?attributes=steps&date_max=2026-10-01&days=1', { bearer: friendReader });
  expect(steps.body.results[0]).toMatchObject({ name: 'steps', service: null, values: [{ date: '2026-10-01', value: 4321 }] });
  // A job still queued for the person finds nobody and does nothing.
  expect(await deriveUser(app.db, p.user.id, { now: new Date() })).toBeUndefined();
});

describe('where you are logged in', () => {
  const BROWSERS = ['Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0', 'Daybook phone <script>alert(1)</script>', 'curl/8.1'];
  /** Phones and other desktops, for the names. */
  const MORE_BROWSERS = [
    'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36',
    'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0',
  ];

  /** Logs a new person in from each browser; their session cookies in the same order. */
  async function loggedInEverywhere(browsers = BROWSERS): Promise<{ user: User; sessions: string[] }> {
    await resetSignInThrottle(app);
    const { user, password } = await makeUser(app);
    const sessions: string[] = [];
    for (const browser of browsers) {
      const res = await logIn(app, user.username, password, { 'User-Agent': browser });
      expect(res.status).toBe(303);
      sessions.push(setCookie(res, 'daybook_session')!);
    }
    return { user, sessions };
  }

  const accountPage = (session: string) => app.get('/settings/account', { ...PAGE, session });
  const works = async (session: string) => (await app.get('/settings/profile', { ...PAGE, session })).status === 200;

  test('lists each session as "Chrome on Android, last used …" (never the raw browser string), this one marked; use is recorded to the minute', async () => {
    const everywhere = [...BROWSERS, ...MORE_BROWSERS];
    const { user, sessions } = await loggedInEverywhere(everywhere);
    await app
      .db('sessions')
      .where({ user_id: user.id, user_agent: MORE_BROWSERS[0] })
      .update({ last_seen_at: new Date(Date.now() - 3 * 3600_000 - 60_000) });
    const page = await accountPage(sessions[0]);
    const rows = [...page.text.matchAll(/<li class="session"><p>(.*?)<br>.*?<\/p>\s*(<form|<\/li>)/gs)].map((m) => [
      m[1].replace(/<[^>]+>/g, ''),
      m[2] === '<form' ? 'other' : 'this',
    ]);
    expect(rows).toEqual(
      expect.arrayContaining([
        ['Firefox on Linux (this browser), last used just now', 'this'],
        ['Unknown browser, last used just now', 'other'],
        ['curl, last used just now', 'other'],
        ['Chrome on Android, last used 3 hours ago', 'other'],
        ['Safari on iPhone, last used just now', 'other'],
        ['Edge on Windows, last used just now', 'other'],
      ]),
    );
    expect(rows).toHaveLength(everywhere.length);
    for (const raw of ['Mozilla/5.0', 'Daybook phone', 'alert(1)']) expect(page.text).not.toContain(raw);
    // Last use: written when a minute has passed, not on every page.
    const seen = async () => (await app.db('sessions').where({ user_id: user.id }).orderBy('last_seen_at')).map((s) => new Date(s.last_seen_at).getTime());
    await app
      .db('sessions')
      .where({ user_id: user.id })
      .update({ last_seen_at: new Date(Date.now() - 5 * 60_000) });
    const before = await seen();
    await works(sessions[1]);
    const after = await seen();
    expect(after[after.length - 1]).toBeGreaterThan(before[before.length - 1]);
    await works(sessions[1]);
    expect(await seen()).toEqual(after);
  });

  test('ending one other session logs that browser out; ending all others keeps only this one', async () => {
    const { sessions } = await loggedInEverywhere();
    const page = await accountPage(sessions[0]);
    const csrf = csrfOf(page.text);
    const hashes = [...page.text.matchAll(/name="session" value="([^"]+)"/g)].map((m) => m[1]);
    expect(hashes).toHaveLength(2);
    const one = await app.post('/settings/account/sessions/end', { ...PAGE, session: sessions[0], form: { csrf_token: csrf, session: hashes[0] } });
    expect([one.status, one.headers.get('location')]).toEqual([303, '/settings/account?ended=1']);
    expect((await Promise.all(sessions.map(works))).filter(Boolean)).toHaveLength(2);
    const rest = await app.post('/settings/account/sessions/end-others', { ...PAGE, session: sessions[0], form: { csrf_token: csrf } });
    expect(rest.headers.get('location')).toBe('/settings/account?ended=1');
    expect(await Promise.all(sessions.map(works))).toEqual([true, false, false]);
    expect((await app.get('/settings/account?ended=1', { ...PAGE, session: sessions[0] })).text).toContain('Logged out 1 other session.');
  });

  test("another person's session cannot be ended from here, and a form without its token ends nothing", async () => {
    const mine = await loggedInEverywhere();
    const theirs = await loggedInEverywhere();
    const theirHash = [...(await accountPage(theirs.sessions[0])).text.matchAll(/name="session" value="([^"]+)"/g)][0][1];
    const csrf = csrfOf((await accountPage(mine.sessions[0])).text);
    const res = await app.post('/settings/account/sessions/end', { ...PAGE, session: mine.sessions[0], form: { csrf_token: csrf, session: theirHash } });
    expect(res.headers.get('location')).toBe('/settings/account');
    const forged = await app.post('/settings/account/sessions/end-others', { ...PAGE, session: mine.sessions[0], form: {} });
    expect(forged.status).toBe(403);
    expect(await Promise.all([...mine.sessions, ...theirs.sessions].map(works))).toEqual([true, true, true, true, true, true]);
  });
});

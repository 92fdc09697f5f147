/**
 * SQL and markup injection (issue "Robustness", part 3). Attribute labels, custom tag names, mood
 * notes, app names and descriptions, and profile names carrying SQL and HTML/JS payloads are stored
 * and returned verbatim in the JSON of the API, and shown as text in every page that shows them:
 * escaped in the HTML the server sends, and inert in a real browser (no element or script they
 * spell is created, the page shows them as typed). User names are restricted to letters, digits and
 * @ . + - _, so a payload is refused (and shown back inert); the allowed punctuation round-trips.
 * Nothing a payload says is ever run: every table is still there with its rows.
 */
import type { Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../support/app';
import { makeToken, makeUser } from '../support/fixtures';
import { PAGE, anonymousForm, csrfOf, sessionCsrf, setCookie } from '../support/web';
import { ensureChromium, launchBrowser, type Browser } from '../support/chromium';
import { createSession } from '../../src/domain/identity/sessions';
import { escapeHtml } from '../../src/web/html';
import { nameFromLabel } from '../../src/domain/tracking/writes/label-name';
import type { User } from '../../src/domain/identity/users';

jest.setTimeout(120_000);

/** Each sets window.__pwned, or would inject an element, if it were ever markup or code. */
const PAYLOADS = [
  `'); DROP TABLE attribute_values; --`,
  `" OR "1"="1" --`,
  `<script>window.__pwned = 1</script>`,
  `<img src=x onerror="window.__pwned = 2">`,
  `"><svg onload="window.__pwned = 3"></svg>`,
  `</textarea><iframe srcdoc="<script>parent.__pwned = 4</script>"></iframe>`,
  `{{constructor.constructor('window.__pwned = 5')()}} \${7*7}`,
];
/** What each payload becomes as a label (labels are trimmed, at most 100 characters). */
const LABELS = PAYLOADS.map((p) => p.slice(0, 100).trim());

let app: TestApp;
let person: User;
let session: string;
let appName: string;
let clientId: string;
let bearer: string;
const pages: Record<string, string> = {};

beforeAll(async () => {
  // Many sign-ups from one address on purpose: the sign-up throttle has its own tests (test/security/).
  app = await startTestApp({ SIGN_UPS_PER_HOUR: '100000' });
  ({ user: person } = await makeUser(app, { timezone: 'UTC' }));
  session = await createSession(app.db, person.id, new Date());

  // An app registered through the apps page, with a payload for a name and a description.
  appName = PAYLOADS[3];
  const created = await app.post('/settings/apps', {
    ...PAGE,
    session,
    form: [
      ['csrf_token', await sessionCsrf(app, session, '/settings/apps')],
      ['name', appName],
      ['description', PAYLOADS.join(' | ')],
      ['website', 'https://example.org/?q=<script>window.__pwned=6</script>'],
      ['redirect_uris', 'https://client.example.org/callback'],
      ['client_type', 'confidential'],
      ['scopes', 'mood_read'],
      ['scopes', 'mood_write'],
      ['scopes', 'custom_read'],
      ['scopes', 'custom_write'],
      ['scopes', 'activity_read'],
      ['scopes', 'activity_write'],
    ],
  });
  expect(created.status).toBe(200);
  const client = await app.db('oauth_clients').where({ owner_user_id: person.id }).first();
  expect(client.name).toBe(appName);
  clientId = client.client_id;
  bearer = (await makeToken(app, person, client, ['mood_read', 'mood_write', 'custom_read', 'custom_write', 'activity_read', 'activity_write'])).access_token;

  // Attributes with payload labels, custom tags named after payloads, a mood note holding each.
  const attributes = await app.post('/api/2/attributes/create/', { bearer, json: LABELS.map((label) => ({ label, group: 'activity', value_type: 2 })) });
  expect(attributes.status).toBe(200);
  const tags = await app.post('/api/2/attributes/create/', {
    bearer,
    json: PAYLOADS.map((label) => ({ label: `tag ${label}`.slice(0, 100), group: 'custom', value_type: 0 })),
  });
  expect(tags.status).toBe(200);
  expect((await app.post('/api/2/attributes/acquire/', { bearer, json: [{ template: 'mood_note' }] })).status).toBe(200);
  const notes = await app.post('/api/2/attributes/update/', {
    bearer,
    json: PAYLOADS.map((note, i) => ({ name: 'mood_note', date: `2026-11-${String(10 + i)}`, value: note })),
  });
  expect(notes.status).toBe(200);

  // Profile names and bio through the profile page.
  const saved = await app.post('/settings/profile', {
    ...PAGE,
    session,
    form: {
      csrf_token: await sessionCsrf(app, session),
      first_name: PAYLOADS[2],
      last_name: PAYLOADS[0],
      bio: PAYLOADS.join('\n'),
      timezone: 'UTC',
      avatar: '',
      url: '',
    },
  });
  expect(saved.status).toBe(303);

  // The pages that show them, as the server sends them.
  const consentQuery = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: 'https://client.example.org/callback',
    scope: 'mood_read',
    state: PAYLOADS[2],
  });
  for (const path of [
    '/data?date=2026-11-16',
    '/settings/attributes',
    '/settings/apps',
    `/settings/apps/${clientId}`,
    '/settings/connected-apps',
    '/settings/profile',
    `/oauth2/authorize?${consentQuery}`,
  ]) {
    const res = await app.get(path, { ...PAGE, session });
    expect([path, res.status]).toEqual([path, 200]);
    pages[path] = res.text;
  }
}, 60_000);

afterAll(async () => {
  await app?.close();
});

describe('the API returns what was stored, verbatim', () => {
  test('attribute labels, and names made from them with only a-z, 0-9 and _', async () => {
    const res = await app.get('/api/2/attributes/?groups=activity,custom&limit=100&include_low_priority=true', { bearer });
    const byLabel = new Map((res.body.results as Array<{ name: string; label: string; service: { label: string } }>).map((a) => [a.label, a]));
    for (const label of LABELS) {
      expect(byLabel.get(label)?.name).toMatch(/^[a-z0-9_]+$/);
      expect(byLabel.get(label)?.service.label).toBe(appName);
    }
    for (const payload of PAYLOADS) {
      const tag = byLabel.get(`tag ${payload}`.slice(0, 100).trim());
      expect(tag?.name).toBe(nameFromLabel(`tag ${payload}`.slice(0, 100)));
    }
  });

  test('mood notes', async () => {
    const res = await app.get('/api/2/attributes/values/?attribute=mood_note&date_max=2026-11-30', { bearer });
    const notes = (res.body.results as Array<{ date: string; value: string }>).sort((a, b) => a.date.localeCompare(b.date)).map((v) => v.value);
    expect(notes).toEqual(PAYLOADS);
    // Version 1 lists every day (null without data) from date_max back to the first note, newest first.
    const v1 = await app.get('/api/1/users/$self/attributes/mood_note/?date_max=2026-11-30&limit=100', { bearer });
    expect(v1.body.count).toBe(21);
    const stored = (v1.body.results as Array<{ value: string | null }>).map((v) => v.value).filter((value) => value !== null);
    expect(stored.reverse()).toEqual(PAYLOADS);
  });

  test('profile names and bio', async () => {
    const res = await app.get('/api/2/accounts/profile/', { bearer });
    expect([res.body.first_name, res.body.last_name]).toEqual([PAYLOADS[2], PAYLOADS[0]]);
    const v1 = await app.get('/api/1/users/$self/profile/', { bearer });
    expect(v1.body.bio).toBe(PAYLOADS.join('\n'));
  });

  test('payloads in names that are looked up match nothing and come back verbatim in the failed item', async () => {
    const res = await app.post('/api/2/attributes/acquire/', { bearer, json: PAYLOADS.map((name) => ({ name })) });
    expect(res.status).toBe(202);
    expect(res.body.failed.map((f: { name: string; error_code: string }) => [f.name, f.error_code])).toEqual(PAYLOADS.map((p) => [p, 'not_found']));
    for (const payload of PAYLOADS) {
      const values = await app.get(`/api/2/attributes/values/?attribute=${encodeURIComponent(payload)}`, { bearer });
      expect(values.body).toEqual({ count: 0, next: null, previous: null, results: [] });
      const list = await app.get(`/api/2/attributes/?attributes=${encodeURIComponent(payload)}&groups=${encodeURIComponent(payload)}`, { bearer });
      expect(list.body.count).toBe(0);
    }
  });

  test('user names carrying a payload are refused (and shown back inert); @ . + - _ round-trip', async () => {
    const before = await app.db('users').count('* as n').first();
    for (const username of PAYLOADS) {
      const { cookies, csrf } = await anonymousForm(app, '/signup');
      const res = await app.post('/signup', {
        ...PAGE,
        cookies,
        form: { username, password: 'a long enough password', password2: 'a long enough password', csrf_token: csrf },
      });
      expect(res.status).toBe(400);
      if (/[<>"]/.test(username)) expect(res.text).not.toContain(username);
      expect(res.text).toContain(`value="${escapeHtml(username)}"`);
    }
    expect(await app.db('users').count('* as n').first()).toEqual(before);
    const { cookies, csrf } = await anonymousForm(app, '/signup');
    const punctuated = `a.b+c-d_e@${process.pid}`;
    const made = await app.post('/signup', {
      ...PAGE,
      cookies,
      form: { username: punctuated, password: 'a long enough password', password2: 'a long enough password', csrf_token: csrf },
    });
    expect(made.status).toBe(303);
    const profile = await app.get('/api/2/accounts/profile/', { session: setCookie(made, 'daybook_session') });
    expect(profile.body.username).toBe(punctuated);
    const v1 = await app.get(`/api/1/users/${encodeURIComponent(punctuated)}/profile/`, { bearer });
    expect(v1.body.username).toBe(punctuated);
  });

  test('every table is still there, with its rows', async () => {
    const tables = (await app.db.raw("select table_name from information_schema.tables where table_schema = 'public'")).rows.map(
      (r: { table_name: string }) => r.table_name,
    );
    expect(tables).toEqual(expect.arrayContaining(['users', 'attributes', 'attribute_values', 'oauth_clients', 'tokens', 'sessions']));
    const rows = await app.db('attribute_values').where({ user_id: person.id }).count('* as n').first();
    expect(Number(rows!.n)).toBe(PAYLOADS.length);
  });
});

describe('the pages escape them', () => {
  test.each(Object.keys({ '/data?date=2026-11-16': 1, '/settings/attributes': 1, '/settings/apps': 1, '/settings/connected-apps': 1, '/settings/profile': 1 }))(
    '%s: no payload appears as markup, each appears escaped',
    (path) => {
      const text = pages[path];
      for (const payload of PAYLOADS.filter((p) => /[<>]/.test(p))) {
        expect(text).not.toContain(payload);
      }
      expect(text).toContain(escapeHtml(appName));
    },
  );

  test('the consent page shows the app name, its description and the state as text', () => {
    const text = Object.entries(pages).find(([path]) => path.startsWith('/oauth2/authorize'))![1];
    for (const payload of PAYLOADS.filter((p) => /[<>]/.test(p))) expect(text).not.toContain(payload);
    expect(text).toContain(`Allow ${escapeHtml(appName)} to use your Daybook data?`);
    expect(text).toContain(escapeHtml(PAYLOADS.join(' | ')));
    expect(csrfOf(text)).toBeTruthy();
  });
});

describe('in a real browser', () => {
  let browser: Browser;
  let page: Page;

  beforeAll(
    async () => {
      ensureChromium();
      browser = await launchBrowser();
      await browser.context.addCookies([{ name: 'daybook_session', value: session, url: app.baseUrl }]);
      page = await browser.context.newPage();
      page.setDefaultTimeout(20_000);
    },
    20 * 60 * 1000,
  );

  afterAll(async () => {
    await browser?.close();
  });

  test('every page that shows a payload shows it as text, runs nothing and gains no element', async () => {
    const dialogs: string[] = [];
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    for (const path of Object.keys(pages)) {
      await page.goto(app.baseUrl + path);
      // (Run in the page: written as a string, since this project's TypeScript has no DOM types.)
      // Daybook's own charts are SVG of the classes spark, chart and rbar (web/charts.ts) and weekspark (web/sparkline.ts); any other SVG is injected.
      const seen = (await page.evaluate(`({
        pwned: window.__pwned,
        scripts: document.querySelectorAll('script').length,
        injected: document.querySelectorAll('img[src="x"], svg:not(.spark):not(.chart):not(.rbar):not(.weekspark), iframe, [onerror], [onload]').length,
        text: document.body.innerText,
        values: [...document.querySelectorAll('input, textarea')].map((e) => e.value),
      })`)) as { pwned: unknown; scripts: number; injected: number; text: string; values: string[] };
      expect([path, seen.pwned, seen.scripts, seen.injected]).toEqual([path, undefined, 0, 0]);
      // The payloads the page shows are there as the person typed them.
      const shown = `${seen.text}\n${seen.values.join('\n')}`;
      if (path.startsWith('/settings/attributes') || path.startsWith('/data')) for (const label of LABELS) expect(shown).toContain(label);
      // The week of 10-16 November holds a mood note with each payload.
      if (path.startsWith('/data')) for (const note of PAYLOADS) expect(shown).toContain(note);
      if (path.startsWith('/settings/apps') || path.startsWith('/settings/connected-apps') || path.startsWith('/oauth2/authorize'))
        expect(shown).toContain(appName);
      if (path.startsWith('/settings/profile')) {
        expect(seen.values).toEqual(expect.arrayContaining([PAYLOADS[2], PAYLOADS[0], PAYLOADS.join('\n')]));
      }
    }
    expect(dialogs).toEqual([]);
  });
});

/**
 * Issue 30, item 6 (the web side), each attack of the review as a test:
 * - a browser that posts our forms with `Origin: null` (under `Referrer-Policy: no-referrer`) or
 *   without `Sec-Fetch-Site` (Safari before 16.4, Firefox before 90) was refused every form; the
 *   token now decides, pages send `Referrer-Policy: same-origin`, and cross-site posts still fail;
 * - an exported note `x;=cmd|' /C calc'!A0` started a formula in a spreadsheet splitting on `;`;
 * - the consent page answered a JSON 429 once the person's API quota was spent;
 * - `X-Forwarded-Proto: javascript` (TRUST_PROXY, no PUBLIC_URL) ended up in a `Location`;
 * - API answers carried no `Cache-Control`.
 */
import { startTestApp, type TestApp, type TestResponse } from '../support/app';
import { makeClient, makeSession, makeToken, makeUser } from '../support/fixtures';
import { PAGE, REDIRECT_URI, csrfOf, locationQuery, registerApp, sessionCsrf } from '../support/web';
import type { OAuthClient } from '../../src/domain/apps-and-grants/clients';
import { simpleTokenOf } from '../../src/domain/identity/users';

jest.setTimeout(60_000);

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

async function person(target: TestApp = app) {
  const { user, password } = await makeUser(target, { timezone: 'UTC' });
  const session = await makeSession(target, user);
  return { user, password, session };
}

const firstName = async (id: number) => (await app.db('users').where({ id }).first()).first_name as string;

describe('forms from browsers that send Origin: null or no Sec-Fetch-Site', () => {
  async function postProfile(headers: Record<string, string>, csrf: (right: string) => string) {
    const p = await person();
    const right = await sessionCsrf(app, p.session);
    const res = await app.post('/settings/profile', {
      ...PAGE,
      session: p.session,
      headers,
      form: { csrf_token: csrf(right), timezone: 'UTC', first_name: 'Alice' },
    });
    return { res, saved: (await firstName(p.user.id)) === 'Alice' };
  }

  test('a form post with Origin: null and the right token is saved', async () => {
    const { res, saved } = await postProfile({ Origin: 'null' }, (right) => right);
    expect(res.status).toBe(303);
    expect(saved).toBe(true);
  });

  test('a form post with no Sec-Fetch-Site and no Origin and the right token is saved', async () => {
    const { res, saved } = await postProfile({}, (right) => right);
    expect(res.status).toBe(303);
    expect(saved).toBe(true);
  });

  test.each([
    ['Origin: null', { Origin: 'null' }],
    ['neither header', {}],
  ])('a form post with %s and a wrong token is refused and changes nothing', async (_name, headers) => {
    const { res, saved } = await postProfile(headers, (right) => `${right.split('.')[0]}.${'A'.repeat(43)}`);
    expect(res.status).toBe(403);
    expect(res.text).toContain('did not come from Daybook');
    expect(saved).toBe(false);
  });

  test.each([
    ['Sec-Fetch-Site: cross-site', { 'Sec-Fetch-Site': 'cross-site' }],
    ['Sec-Fetch-Site: cross-site with Origin: null', { 'Sec-Fetch-Site': 'cross-site', Origin: 'null' }],
    ['an Origin of another site', { Origin: 'https://evil.example' }],
  ])('a cross-site post (%s) is still refused, even with the right token', async (_name, headers) => {
    const { res, saved } = await postProfile(headers, (right) => right);
    expect(res.status).toBe(403);
    expect(res.text).toContain('This form was sent from another site');
    expect(saved).toBe(false);
  });

  test('pages send a referrer policy under which browsers post forms with a real Origin', async () => {
    const p = await person();
    for (const [path, session] of [
      ['/login', undefined],
      ['/settings/profile', p.session],
      ['/data', p.session],
    ]) {
      const res = await app.get(path!, { ...PAGE, session });
      expect([path, res.status]).toEqual([path, 200]);
      expect([path, res.headers.get('referrer-policy')]).toEqual([path, 'same-origin']);
    }
  });

  test('the consent page sends no Referer to other sites, and its redirect carrying the code none at all', async () => {
    const p = await person();
    const { client } = await registerApp(app, p.user);
    const params = { response_type: 'code', client_id: client.client_id, redirect_uri: REDIRECT_URI, scope: 'mood_read', state: 's' };
    const page = await app.get(`/oauth2/authorize?${new URLSearchParams(params)}`, { session: p.session });
    expect(page.status).toBe(200);
    expect(page.headers.get('referrer-policy')).toBe('same-origin');
    const back = await app.post('/oauth2/authorize', {
      session: p.session,
      headers: { Origin: 'null' },
      form: { ...params, csrf_token: csrfOf(page.text), decision: 'allow' },
    });
    expect(back.status).toBe(303);
    expect(locationQuery(back).get('code')).toBeTruthy();
    expect(back.headers.get('referrer-policy')).toBe('no-referrer');
  });
});

describe('CSV formula injection under any separator', () => {
  const ATTACK = "x;=cmd|' /C calc'!A0";
  const NOTES = [
    ATTACK,
    "x|=cmd|' /C calc'!A0",
    "x\t=cmd|' /C calc'!A0",
    "x,=cmd|' /C calc'!A0",
    'x; =1+1',
    'x;"=1+1',
    'x;\t=1+1',
    'a;+1|-2,@SUM(A1)',
    'line\r\n=1+1',
    'cr\r@x',
    "-2+3+cmd|' /C calc'!A0",
  ];
  const FORMULA_START = /^[=+\-@\t\r]/;
  const NUMBER = /^-?\d+(\.\d+)?(e[+-]?\d+)?$/i;

  /** The cells a spreadsheet that splits on `separator` sees, quotes ignored (the worst case); leading spaces and quotes dropped. */
  function cells(csv: string, separator: string): string[] {
    return csv
      .split(/\r\n|\r|\n/)
      .flatMap((line) => line.split(separator))
      .map((cell) => cell.replace(/^[ "]*/, ''));
  }

  test("a note `x;=cmd|' /C calc'!A0` and its variants never start a cell with = + - @ tab or CR under ; , tab or |", async () => {
    const { user, session } = await person();
    const { client } = (await makeClient(app, user, 'Journal')) as { client: OAuthClient };
    const writer = (await makeToken(app, user, client, ['mood_read', 'mood_write', 'activity_read', 'activity_write'])).access_token;
    expect((await app.post('/api/2/attributes/acquire/', { bearer: writer, json: [{ template: 'mood_note' }, { template: 'steps' }] })).status).toBe(200);
    const notes = NOTES.map((value, i) => ({ name: 'mood_note', date: `2026-10-${String(i + 1).padStart(2, '0')}`, value }));
    const update = await app.post('/api/2/attributes/update/', { bearer: writer, json: [...notes, { name: 'steps', date: '2026-10-01', value: -5 }] });
    expect(update.status).toBe(200);

    const res = await app.get('/settings/account/export/values.csv', { ...PAGE, session });
    expect(res.status).toBe(200);
    // The attack's note is quoted and neutralised: the cell after its `;` starts with an apostrophe.
    expect(res.text).toContain(`"2026-10-01","mood_note","Mood note","Mood","x;'=cmd|' /C calc'!A0"\r\n`);
    for (const separator of [';', ',', '\t', '|']) {
      const dangerous = cells(res.text, separator).filter((cell) => FORMULA_START.test(cell) && !NUMBER.test(cell));
      expect([JSON.stringify(separator), dangerous]).toEqual([JSON.stringify(separator), []]);
    }
    // Numbers stay numbers: a negative number is written as it is, not turned into text.
    expect(res.text).toContain('"2026-10-01","steps","Steps","Activity",-5\r\n');
  });
});

describe('pages and the consent page are never blocked by the API quota', () => {
  test('with the person’s API quota spent, the consent page, its form and /data still answer as pages', async () => {
    const limited = await startTestApp({ RATE_LIMIT_PER_HOUR: '2' });
    try {
      const p = await person(limited);
      const token = await simpleTokenOf(limited.db, p.user, limited.deps.secretKey);
      let status = 0;
      for (let i = 0; i < 3; i++) status = (await limited.get('/api/2/accounts/profile/', { token })).status;
      expect(status).toBe(429);
      expect((await limited.get('/api/2/accounts/profile/', { session: p.session })).status).toBe(429);

      const { client } = await registerApp(limited, p.user);
      const params = { response_type: 'code', client_id: client.client_id, redirect_uri: REDIRECT_URI, scope: 'mood_read', state: 's' };
      const page = await limited.get(`/oauth2/authorize?${new URLSearchParams(params)}`, { session: p.session });
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      const back = await limited.post('/oauth2/authorize', { session: p.session, form: { ...params, csrf_token: csrfOf(page.text), decision: 'allow' } });
      expect(back.status).toBe(303);
      expect(locationQuery(back).get('code')).toBeTruthy();
      const data = await limited.get('/data', { ...PAGE, session: p.session });
      expect(data.status).toBe(200);
      expect(data.headers.get('content-type')).toMatch(/^text\/html/);
    } finally {
      await limited.close();
    }
  });
});

describe('X-Forwarded-Proto is only http or https', () => {
  test('behind a trusted proxy without PUBLIC_URL, X-Forwarded-Proto: javascript never reaches a Location or the issuer', async () => {
    const proxied = await startTestApp({ TRUST_PROXY: '1' });
    try {
      for (const proto of ['javascript', 'data', 'javascript, https', 'ftp']) {
        const redirect = await proxied.get('/api/2/attributes', { headers: { 'X-Forwarded-Proto': proto } });
        expect([proto, redirect.status]).toEqual([proto, 301]);
        expect(redirect.headers.get('location')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/2\/attributes\/$/);
        const metadata = await proxied.get('/.well-known/oauth-authorization-server', { headers: { 'X-Forwarded-Proto': proto } });
        expect((metadata.body as { issuer: string }).issuer).toMatch(/^http:\/\//);
      }
      for (const proto of ['https', 'HTTPS']) {
        const redirect = await proxied.get('/api/2/attributes', { headers: { 'X-Forwarded-Proto': proto } });
        expect(redirect.headers.get('location')).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/api\/2\/attributes\/$/);
      }
    } finally {
      await proxied.close();
    }
  });
});

describe('Cache-Control: no-store on every API answer carrying personal data', () => {
  test('v2, v1, simple-token, OAuth token and revocation answers, errors included, are no-store; the metadata, docs and documents keep their caching', async () => {
    const p = await person();
    const { client } = await makeClient(app, p.user);
    const bearer = (await makeToken(app, p.user, client, ['mood_read'])).access_token;
    const simple = await simpleTokenOf(app.db, p.user, app.deps.secretKey);
    const privateAnswers: Array<[string, Promise<TestResponse>]> = [
      ['v2 profile', app.get('/api/2/accounts/profile/', { bearer })],
      ['v2 attributes', app.get('/api/2/attributes/', { bearer })],
      ['v2 values', app.get('/api/2/attributes/values/?attribute=mood', { bearer })],
      ['v2 webhooks', app.get('/api/2/webhooks/', { bearer })],
      ['v1 profile by simple token', app.get(`/api/1/users/${p.user.username}/profile/`, { token: simple })],
      ['v1 attributes by session', app.get('/api/1/users/$self/attributes/', { session: p.session })],
      ['401 without credentials', app.get('/api/2/accounts/profile/')],
      ['401 with a bad token', app.get('/api/2/attributes/', { bearer: 'not-a-token' })],
      ['simple token', app.post('/api/2/auth/simple-token/', { form: { username: p.user.username, password: p.password } })],
      ['token endpoint', app.post('/oauth2/access_token', { form: { grant_type: 'refresh_token', refresh_token: 'nope', client_id: client.client_id } })],
      ['revocation', app.post('/oauth2/revoke', { form: { token: 'nope', client_id: client.client_id } })],
    ];
    for (const [name, answer] of privateAnswers) {
      expect([name, (await answer).headers.get('cache-control')]).toEqual([name, 'no-store']);
    }
    const metadata = await app.get('/.well-known/oauth-authorization-server');
    expect(metadata.headers.get('cache-control')).toMatch(/^public, max-age=\d+$/);
    for (const path of ['/docs/', '/openapi/v2.json']) {
      const res = await app.get(path, PAGE);
      expect([path, res.headers.get('cache-control')]).not.toEqual([path, 'no-store']);
    }
  });
});

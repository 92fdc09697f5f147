/**
 * A public OAuth2 client that lives in a web page on another origin, in real headless Chromium:
 * the page makes its PKCE pair with Web Crypto, sends the person to Daybook's authorise page,
 * and, back on its own page with the code, exchanges it at the token endpoint and calls both API
 * versions with `fetch`. The browser's own CORS checks decide what the page may read; the page
 * also tries to read the person's data through their Daybook session cookie, which must fail.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../support/app';
import { ensureChromium, launchBrowser, type Browser } from '../support/chromium';
import { makeSession, makeUser } from '../support/fixtures';
import { registerApp } from '../support/web';
import { addAttributes, addValues } from '../support/seed';
import { SESSION_COOKIE } from '../../src/http/session-cookie';
import { localDate } from '../../src/domain/time';

jest.setTimeout(120_000);

/** What the page found, as it writes it into #result. */
interface PageResult {
  tokenStatus?: number;
  tokenType?: string;
  scope?: string;
  profileStatus?: number;
  username?: string;
  rateLimitRemaining?: string | null;
  withValues?: Array<[string, unknown]>;
  v1Status?: number;
  deprecation?: string | null;
  cookieSession?: string;
  error?: string;
}

/**
 * The web app's one page: without `code` it starts the flow; with one, it finishes it and calls
 * the API. Everything it learns goes into #result as JSON. Served from `localhost` (a secure
 * context for Web Crypto) while Daybook is on 127.0.0.1: another origin.
 */
function appPage(daybook: string, clientId: string): string {
  const script = `
const daybook = ${JSON.stringify(daybook)};
const clientId = ${JSON.stringify(clientId)};
const redirectUri = location.origin + '/';
const base64url = (bytes) => btoa(String.fromCharCode(...new Uint8Array(bytes))).replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '');
const params = new URLSearchParams(location.search);
const result = {};
async function start() {
  const verifier = base64url(crypto.getRandomValues(new Uint8Array(32)));
  sessionStorage.setItem('verifier', verifier);
  const challenge = base64url(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier)));
  location.assign(daybook + '/oauth2/authorize?' + new URLSearchParams({
    response_type: 'code', client_id: clientId, redirect_uri: redirectUri, scope: 'mood_read', state: 'page-state',
    code_challenge: challenge, code_challenge_method: 'S256',
  }));
}
async function finish() {
  const exchange = await fetch(daybook + '/oauth2/access_token', {
    method: 'POST',
    body: new URLSearchParams({ grant_type: 'authorization_code', code: params.get('code'), redirect_uri: redirectUri, client_id: clientId, code_verifier: sessionStorage.getItem('verifier') }),
  });
  result.tokenStatus = exchange.status;
  const tokens = await exchange.json();
  result.tokenType = tokens.token_type;
  result.scope = tokens.scope;
  const auth = { Authorization: 'Bearer ' + tokens.access_token };
  const profile = await fetch(daybook + '/api/2/accounts/profile/', { headers: auth });
  result.profileStatus = profile.status;
  result.username = (await profile.json()).username;
  result.rateLimitRemaining = profile.headers.get('X-RateLimit-Remaining');
  const withValues = await (await fetch(daybook + '/api/2/attributes/with-values/', { headers: auth })).json();
  result.withValues = withValues.results.map((a) => [a.name, a.values[0].value]);
  const v1 = await fetch(daybook + '/api/1/users/$self/profile/', { headers: auth });
  result.v1Status = v1.status;
  result.deprecation = v1.headers.get('Deprecation');
  try {
    await fetch(daybook + '/api/2/accounts/profile/', { credentials: 'include' });
    result.cookieSession = 'read';
  } catch (error) {
    result.cookieSession = 'blocked: ' + error.name;
  }
}
(params.has('code') ? finish() : start())
  .catch((error) => { result.error = String(error); })
  .finally(() => { if (params.has('code') || result.error) document.getElementById('result').textContent = JSON.stringify(result); });
`;
  return `<!doctype html><html lang="en"><title>Mood Glance</title><h1>Mood Glance</h1><pre id="result"></pre><script type="module">${script}</script></html>`;
}

let app: TestApp;
let browser: Browser;
let page: Page;
let server: http.Server;
let pageUrl = '';

beforeAll(
  async () => {
    ensureChromium(); // may take minutes on a fresh machine
    app = await startTestApp();
    let clientId = '';
    server = http.createServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(appPage(app.baseUrl, clientId));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    pageUrl = `http://localhost:${(server.address() as AddressInfo).port}/`;

    const { user } = await makeUser(app, { timezone: 'UTC' });
    const [mood] = await addAttributes(app, user.id, [{ name: 'mood' }]);
    await addValues(app, user.id, mood, { [localDate(app.deps.now(), 'UTC')]: 8 });
    const { client } = await registerApp(app, user, { confidential: false, redirectUris: [pageUrl], scopes: ['mood_read'], name: 'Mood Glance' });
    clientId = client.client_id;

    browser = await launchBrowser();
    // The person is logged in to Daybook in this browser.
    await browser.context.addCookies([{ name: SESSION_COOKIE, value: await makeSession(app, user), url: app.baseUrl }]);
    page = await browser.context.newPage();
    page.setDefaultTimeout(20_000);
  },
  20 * 60 * 1000,
);

afterAll(async () => {
  await browser?.close();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  await app?.close();
});

test('a public client in a page on another origin authorises with PKCE, exchanges the code and calls the API with fetch', async () => {
  expect(new URL(pageUrl).origin).not.toBe(new URL(app.baseUrl).origin);
  await page.goto(pageUrl);
  await page.waitForURL(/\/oauth2\/authorize\?/);
  expect(await page.textContent('h1')).toBe('Allow Mood Glance to use your Daybook data?');
  await Promise.all([page.waitForURL(`${pageUrl}?**`), page.click('button[value=allow]')]);
  await page.waitForSelector('#result:not(:empty)');
  const result = JSON.parse((await page.textContent('#result'))!) as PageResult;
  expect(result.error).toBeUndefined();
  expect(result).toMatchObject({ tokenStatus: 200, tokenType: 'Bearer', scope: 'mood_read', profileStatus: 200, v1Status: 200 });
  expect(result.username).toMatch(/^person/);
  // Exposed fields the page needs: rate-limit pacing, version 1's deprecation.
  expect(Number(result.rateLimitRemaining)).toBeGreaterThan(0);
  expect(result.deprecation).toMatch(/^@\d+$/);
  expect(result.withValues).toEqual([['mood', 8]]);
  // The session cookie never lets another origin read the person's data.
  expect(result.cookieSession).toBe('blocked: TypeError');
});

/**
 * Rule 13: a person in real headless Chromium signs up, registers an app, starts the authorise
 * flow from that app, logs in, allows (landing on the app's redirect URI with a code the app
 * exchanges) and, another time, denies. The consent page is kept as test/artifacts/consent.png.
 */
import crypto from 'node:crypto';
import http from 'node:http';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../support/app';
import { artifactPath, ensureChromium, launchBrowser, type Browser } from '../support/chromium';

jest.setTimeout(120_000);

/** A tiny third-party app on a loopback address: a start link that sends the person to Daybook, and a callback page. */
interface ClientApp {
  url: string;
  clientId: string;
  /** The PKCE verifier and state of the latest /start. */
  pending: { state: string; verifier: string } | undefined;
  close(): Promise<void>;
}

async function startClientApp(daybook: () => string): Promise<ClientApp> {
  const client: ClientApp = { url: '', clientId: '', pending: undefined, close: async () => undefined };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', client.url);
    if (url.pathname === '/start') {
      const state = crypto.randomBytes(12).toString('base64url');
      const verifier = crypto.randomBytes(32).toString('base64url');
      client.pending = { state, verifier };
      const query = new URLSearchParams({
        response_type: 'code',
        client_id: client.clientId,
        redirect_uri: `${client.url}/callback`,
        scope: 'mood_read sleep_read',
        state,
        code_challenge: crypto.createHash('sha256').update(verifier).digest('base64url'),
        code_challenge_method: 'S256',
      });
      res.writeHead(302, { Location: `${daybook()}/oauth2/authorize?${query}` }).end();
      return;
    }
    if (url.pathname === '/callback') {
      const show = (name: string) => `<p id="${name}">${(url.searchParams.get(name) ?? '').replace(/[<>&"]/g, '')}</p>`;
      res
        .writeHead(200, { 'Content-Type': 'text/html' })
        .end(`<!doctype html><title>Callback</title><h1>Back at the app</h1>${show('code')}${show('state')}${show('error')}`);
      return;
    }
    res.writeHead(200, { 'Content-Type': 'text/html' }).end('<!doctype html><title>Mood Mirror</title><a id="connect" href="/start">Connect Daybook</a>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  client.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  client.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return client;
}

let app: TestApp;
let browser: Browser;
let client: ClientApp;
let page: Page;
const username = `browser_${process.pid}`;
const password = 'a long browser password';
let clientSecret = '';

beforeAll(
  async () => {
    ensureChromium(); // may take minutes on a fresh machine
    app = await startTestApp();
    client = await startClientApp(() => app.baseUrl);
    browser = await launchBrowser();
    page = await browser.context.newPage();
    page.setDefaultTimeout(20_000);
  },
  20 * 60 * 1000,
);

afterAll(async () => {
  await browser?.close();
  await client?.close();
  await app?.close();
});

test('a person signs up, creates an app, authorises it from the app after logging in, and the app exchanges the code', async () => {
  // Sign up.
  await page.goto(`${app.baseUrl}/signup`);
  await page.fill('#username', username);
  await page.fill('#password', password);
  await page.fill('#password2', password);
  await page.selectOption('#timezone', 'Europe/Berlin');
  await Promise.all([page.waitForURL(`${app.baseUrl}/data`), page.click('button[type=submit]')]);
  expect(await page.textContent('main')).toContain('Nothing is tracked yet');
  expect(await page.textContent('header')).toContain(`Log out ${username}`);

  // Track the mood by hand and enter today's.
  await Promise.all([page.waitForURL(`${app.baseUrl}/data/track`), page.click('main a[href="/data/track"]')]);
  await page.selectOption('#template', 'mood');
  await Promise.all([page.waitForURL(/\/data\?notice=tracking&attribute=mood/), page.click('form:has(#template) button[type=submit]')]);
  await page.click('form.day label.choice:has(input[name="v:mood"][value="7"])');
  await Promise.all([page.waitForURL(/\/data\?date=.*&notice=saved$/), page.click('.savebar button[type=submit]')]);
  expect(await page.textContent('[role=status]')).toBe('Saved.');
  expect(await page.textContent('#attribute-mood .value')).toBe('7');

  // Create an app (a confidential client with a loopback redirect URI).
  await page.click('a[href="/settings/apps"]');
  await page.fill('#name', 'Mood Mirror');
  await page.fill('#redirect_uris', `${client.url}/callback`);
  await page.check('input[name=scopes][value=mood_read]');
  await page.check('input[name=scopes][value=sleep_read]');
  await Promise.all([page.waitForURL(`${app.baseUrl}/settings/apps`), page.click('form[action="/settings/apps"] button[type=submit]')]);
  client.clientId = (await page.textContent('code.client-id'))!.trim();
  clientSecret = (await page.textContent('[data-secret="Client secret"]'))!.trim();
  expect(client.clientId).toMatch(/^[A-Za-z0-9_-]+$/);
  expect(clientSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);

  // Log out, then start the flow from the app.
  await Promise.all([page.waitForURL(/\/login$/), page.click('header form[action="/logout"] button')]);
  await page.goto(client.url);
  await Promise.all([page.waitForURL(/\/login\?next=/), page.click('#connect')]);

  // Log in; Daybook comes back to the consent page.
  await page.fill('#username', username);
  await page.fill('#password', password);
  await Promise.all([page.waitForURL(/\/oauth2\/authorize\?/), page.click('button[type=submit]')]);
  expect(await page.textContent('h1')).toBe('Allow Mood Mirror to use your Daybook data?');
  expect(await page.textContent('ul.scopes')).toContain('Read your mood data');
  expect(await page.textContent('ul.scopes')).toContain('Read your sleep data');
  await page.screenshot({ path: artifactPath('consent.png'), fullPage: true });
  expect(fs.statSync(artifactPath('consent.png')).size).toBeGreaterThan(1000);

  // Allow: the browser lands on the app's redirect URI with a code and the state.
  await Promise.all([page.waitForURL(`${client.url}/callback?**`), page.click('button[value=allow]')]);
  const code = (await page.textContent('#code'))!;
  expect(code).toMatch(/^[A-Za-z0-9_-]{43}$/);
  expect(await page.textContent('#state')).toBe(client.pending!.state);

  // The app exchanges the code (with its secret and PKCE verifier) and uses the token.
  const res = await fetch(`${app.baseUrl}/oauth2/access_token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: `${client.url}/callback`,
      client_id: client.clientId,
      client_secret: clientSecret,
      code_verifier: client.pending!.verifier,
    }),
  });
  expect(res.status).toBe(200);
  const tokens = (await res.json()) as { access_token: string; scope: string; token_type: string };
  expect(tokens.token_type).toBe('Bearer');
  expect(tokens.scope).toBe('mood_read sleep_read');
  const profile = await app.get('/api/2/accounts/profile/', { bearer: tokens.access_token });
  expect(profile.body).toMatchObject({ username, timezone: 'Europe/Berlin' });

  // The connected apps page now lists it.
  await page.goto(`${app.baseUrl}/settings/connected-apps`);
  expect(await page.textContent('.connected-app h2')).toBe('Mood Mirror');
});

test('a logged-in person who denies lands on the redirect URI with error=access_denied and the state', async () => {
  await page.goto(client.url);
  await Promise.all([page.waitForURL(/\/oauth2\/authorize\?/), page.click('#connect')]);
  await Promise.all([page.waitForURL(`${client.url}/callback?**`), page.click('button[value=deny]')]);
  expect(await page.textContent('#error')).toBe('access_denied');
  expect(await page.textContent('#state')).toBe(client.pending!.state);
  expect(await page.textContent('#code')).toBe('');
});

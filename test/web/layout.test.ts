/**
 * Every page as a person sees it in Chromium, on a phone (390 x 844) and on a laptop (1280 x 800):
 * nothing scrolls sideways, every button is on the screen, the menu reaches every page without
 * script, axe-core finds no accessibility violation, and a screenshot of each page at both sizes
 * is kept in test/artifacts/ (docs/pages.md, "How the pages are tested").
 */
import fs from 'node:fs';
import type { Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../support/app';
import { makeClient, makeSession, makeToken, makeUser } from '../support/fixtures';
import { artifactPath, ensureChromium, launchBrowser, type Browser } from '../support/chromium';
import { PAGE, REDIRECT_URI, registerApp } from '../support/web';
import { loadDemoData } from '../../src/demo/demo-data';
import { deriveUser } from '../../src/analytics/derive';
import { listCorrelations } from '../../src/domain/derived/correlations';
import { setValuesByHand, trackByHand } from '../../src/domain/tracking/manual-tracking';
import { READ_SCOPES } from '../../src/domain/apps-and-grants/scopes';
import { addDays, localDate } from '../../src/domain/time';
import { readVisibility } from '../../src/domain/apps-and-grants/visibility';
import type { OAuthClient } from '../../src/domain/apps-and-grants/clients';

jest.setTimeout(180_000);

const AXE_SOURCE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
const SIZES = [
  { name: 'phone', width: 390, height: 844 },
  { name: 'laptop', width: 1280, height: 800 },
] as const;

let app: TestApp;
let browser: Browser;
let page: Page;
let session: string;
const paths: string[] = [];

beforeAll(
  async () => {
    ensureChromium();
    app = await startTestApp();
    const { user } = await makeUser(app, { timezone: 'UTC' });
    const today = localDate(new Date(), 'UTC');
    await loadDemoData(app.db, user.id, {
      seed: 5,
      days: 120,
      endDate: today,
      attributes: ['steps', 'sleep', 'sleep_start', 'weight', 'coffees'],
      rhythms: false,
    });
    // Things tracked by hand, so Your data has its day's form: a rating, a tag, a note.
    for (const request of [{ template: 'mood' }, { template: 'mood_note' }, { label: 'Went swimming', group: 'custom', valueType: 0 }]) {
      const tracked = await trackByHand(app.db, user, request, new Date());
      if (!tracked.ok) throw new Error(tracked.problem);
    }
    await setValuesByHand(
      app.db,
      user,
      Array.from({ length: 60 }, (_, i) => ({ name: 'mood', date: addDays(today, -i), value: 1 + ((i * 7) % 9) })),
      new Date(),
    );
    await deriveUser(app.db, user.id, { now: new Date() });
    session = await makeSession(app, user);
    const { client } = (await registerApp(app, user, { name: 'Mood Mirror' })) as { client: OAuthClient };
    await makeToken(app, user, client, ['mood_read']);
    const other = await makeClient(app, user, 'Other app');
    await makeToken(app, user, other.client, ['sleep_read']);
    const { results } = await listCorrelations(app.deps.database, {
      userId: user.id,
      visibility: readVisibility(READ_SCOPES),
      filters: {},
      page: { limit: 1, offset: 0 },
    });
    if (results.length === 0) throw new Error('the demo data gave no correlation to draw');
    const consent = new URLSearchParams({ response_type: 'code', client_id: client.client_id, redirect_uri: REDIRECT_URI, scope: 'mood_read', state: 's' });
    paths.push(
      '/data',
      '/data/track',
      '/data/patterns',
      '/data/insights',
      '/data/steps',
      '/data/sleep_start',
      '/data/mood',
      '/data/mood_note',
      `/data/pair/${results[0].attribute}/${results[0].attribute2}`,
      '/settings/profile',
      '/settings/apps',
      `/settings/apps/${client.client_id}`,
      '/settings/connected-apps',
      '/settings/attributes',
      '/settings/simple-token',
      '/settings/account',
      `/oauth2/authorize?${consent}`,
      '/settings/apps/no-such-app',
    );
    browser = await launchBrowser();
    await browser.context.addCookies([{ name: 'daybook_session', value: session, url: app.baseUrl }]);
    page = await browser.context.newPage();
    page.setDefaultTimeout(20_000);
  },
  20 * 60 * 1000,
);

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

/** What a person on this screen cannot reach without scrolling sideways (run in the page). */
const SIDEWAYS = `(() => {
  const problems = [];
  const width = window.innerWidth;
  if (document.documentElement.scrollWidth > width) problems.push('the page is ' + document.documentElement.scrollWidth + ' px wide');
  for (const control of document.querySelectorAll('main button, main input:not([type=hidden]), main select, main textarea')) {
    const box = control.getBoundingClientRect();
    if (box.width === 0 && box.height === 0) continue;
    if (control.closest('.scroll, details:not([open])')) continue;
    if (box.left < 0 || box.right > width + 0.5) problems.push('off the screen: ' + control.outerHTML.slice(0, 100));
  }
  return problems;
})()`;

/** A screenshot's file name: the path, with the app's random client id written as "app" (so reruns overwrite). */
function fileName(path: string, size: string): string {
  const stable = path.replace(/\?.*$/, '').replace(/^\/settings\/apps\/(?!no-such-app)[^/]+$/, '/settings/apps/app');
  return `page-${size}-${stable.replace(/[^a-z0-9]+/gi, '-').replace(/^-|-$/g, '') || 'home'}.png`;
}

/**
 * Loads each page once and checks it at each size: the pages have no script and the server does not
 * look at the screen, so resizing a loaded page lays it out as loading it at that size does (the
 * CSS media queries apply to the new size at once), at a third of the cost of a load per size.
 */
async function visitAll(visit: (path: string, size: (typeof SIZES)[number]) => Promise<void>, list: readonly string[]): Promise<void> {
  for (const path of list) {
    await page.goto(app.baseUrl + path);
    for (const size of SIZES) {
      await page.setViewportSize({ width: size.width, height: size.height });
      await visit(path, size);
    }
  }
}

test('no page scrolls sideways at 390 or 1280 px, and every control is on the screen; screenshots of each are kept', async () => {
  const found: Record<string, string[]> = {};
  const check = async (path: string, size: (typeof SIZES)[number]) => {
    const problems = (await page.evaluate(SIDEWAYS)) as string[];
    if (problems.length > 0) found[`${size.width} ${path}`] = problems;
    const file = artifactPath(fileName(path, size.name));
    await page.screenshot({ path: file, fullPage: true });
    expect(fs.statSync(file).size).toBeGreaterThan(1000);
  };
  await visitAll(check, paths);
  await browser.context.clearCookies();
  await visitAll(check, ['/', '/login', '/signup']);
  expect(found).toEqual({});
  await browser.context.addCookies([{ name: 'daybook_session', value: session, url: app.baseUrl }]);
});

test('the sideways check fails on a page that is too wide', async () => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.setContent('<html><body><main><table><tr><td>' + 'wide'.repeat(150) + '</td><td><button>Save</button></td></tr></table></main></body></html>');
  const problems = (await page.evaluate(SIDEWAYS)) as string[];
  expect(problems[0]).toMatch(/^the page is \d+ px wide$/);
  expect(problems[1]).toBe('off the screen: <button>Save</button>');
});

test('axe-core finds no violations on any page, on a phone and on a laptop, in light and dark', async () => {
  const found: Record<string, unknown[]> = {};
  const audit = async (path: string, size: (typeof SIZES)[number]) => {
    // Evaluated through the DevTools protocol, so the pages' CSP (no script) does not stop it; once
    // per loaded page. The colour scheme, like the size, applies to the loaded page at once (the
    // dark-theme test below shows it), so each page is audited in both on one load.
    if ((await page.evaluate(`typeof axe`)) === 'undefined') await page.evaluate(AXE_SOURCE);
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      const result = (await page.evaluate(
        `axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({ id: v.id, nodes: v.nodes.map((n) => n.target.join(' ')).slice(0, 5) })))`,
      )) as unknown[];
      if (result.length > 0) found[`${colorScheme} ${size.width} ${path}`] = result;
    }
  };
  await visitAll(audit, paths);
  // Logged out: the front page, log in, sign up.
  await browser.context.clearCookies();
  await visitAll(audit, ['/', '/login', '/signup']);
  await browser.context.addCookies([{ name: 'daybook_session', value: session, url: app.baseUrl }]);
  await page.emulateMedia({ colorScheme: 'light' });
  expect(found).toEqual({});
});

test('axe-core is really run: it reports a page built to fail it', async () => {
  await page.setContent('<html><body><img src="data:,"><input></body></html>');
  await page.evaluate(AXE_SOURCE);
  const ids = (await page.evaluate(`axe.run(document).then((r) => r.violations.map((v) => v.id))`)) as string[];
  expect(ids).toEqual(expect.arrayContaining(['image-alt', 'label', 'html-has-lang']));
});

test('on a phone the menu opens without script and reaches every page; on a laptop the links are in a row', async () => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`${app.baseUrl}/data`);
  expect(await page.isVisible('nav.wide')).toBe(false);
  expect(await page.isVisible('details.menu a[href="/data/patterns"]')).toBe(false);
  await page.click('details.menu summary');
  const links = await page.$$eval('details.menu nav a', (anchors) => anchors.map((a) => a.textContent));
  expect(links).toEqual(['Your data', 'Patterns', 'Track', 'Apps', 'Connected apps', 'Attributes', 'Simple token', 'Profile', 'Account', 'API docs']);
  for (const link of await page.$$('details.menu nav a')) expect(await link.isVisible()).toBe(true);
  await Promise.all([page.waitForURL(/\/data\/patterns$/), page.click('details.menu a[href="/data/patterns"]')]);
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(`${app.baseUrl}/data`);
  expect(await page.isVisible('details.menu')).toBe(false);
  expect(await page.isVisible('nav.wide a[href="/settings/account"]')).toBe(true);
});

test("on a phone the day's Save button stays on the screen while the form scrolls", async () => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`${app.baseUrl}/data`);
  const form = await page.$('form.day');
  expect(form).not.toBeNull();
  // Halfway down the form the button is still in view (it sticks to the bottom of the screen).
  await page.evaluate(`window.scrollTo(0, document.querySelector('form.day').offsetTop + document.querySelector('form.day').offsetHeight / 2 - 400)`);
  const box = await page.$eval('.savebar button', (b) => {
    const r = b.getBoundingClientRect();
    return { top: r.top, bottom: r.bottom, left: r.left, right: r.right };
  });
  expect(box.top).toBeGreaterThanOrEqual(0);
  expect(box.bottom).toBeLessThanOrEqual(844);
  expect(box.right).toBeLessThanOrEqual(390);
});

test('the dark theme follows the system setting', async () => {
  await page.goto(`${app.baseUrl}/data`);
  const background = () => page.evaluate(`getComputedStyle(document.body).backgroundColor`);
  await page.emulateMedia({ colorScheme: 'light' });
  const light = await background();
  await page.emulateMedia({ colorScheme: 'dark' });
  const dark = await background();
  await page.emulateMedia({ colorScheme: 'light' });
  expect(light).toBe('rgb(246, 247, 249)');
  expect(dark).toBe('rgb(18, 22, 28)');
});

test('a visitor to / sees what Daybook is, with log in and sign up; every page names the favicon, which is served', async () => {
  const home = await app.get('/', PAGE);
  expect(home.status).toBe(200);
  expect(home.text).toContain('<h1>Daybook</h1>');
  expect(home.text).toContain('<a class="button" href="/signup">Sign up</a>');
  expect(home.text).toContain('<a href="/login">Log in</a>');
  expect(home.text).toContain('<link rel="icon" href="/favicon.svg" type="image/svg+xml">');
  const icon = await app.get('/favicon.svg', PAGE);
  expect([icon.status, icon.headers.get('content-type')]).toEqual([200, 'image/svg+xml']);
  expect(icon.text).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
});

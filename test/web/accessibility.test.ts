/**
 * The pages for people are usable with a screen reader and a keyboard: checked in Chromium on
 * every page a person sees (logged out, logged in with data, the consent page, an error page),
 * as the browser builds them. Each page has a language, a title and exactly one h1; every field
 * a person fills in has a label (a <label for>, an enclosing <label> or aria-label); every button
 * and link says what it does; every image has alternative text; headings do not skip levels.
 */
import type { Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../support/app';
import { makeClient, makeSession, makeToken, makeUser } from '../support/fixtures';
import { ensureChromium, launchBrowser, type Browser } from '../support/chromium';
import { REDIRECT_URI, registerApp } from '../support/web';
import { loadDemoData } from '../../src/demo/demo-data';
import { deriveUser } from '../../src/analytics/derive';
import { localDate } from '../../src/domain/time';
import type { OAuthClient } from '../../src/domain/apps-and-grants/clients';
import { createEndpoint } from '../../src/domain/webhooks/endpoints';
import { queueTestEvent } from '../../src/domain/webhooks/test-event';

jest.setTimeout(120_000);

let app: TestApp;
let browser: Browser;
let page: Page;
const paths: string[] = [];

beforeAll(
  async () => {
    ensureChromium();
    app = await startTestApp();
    const { user } = await makeUser(app, { timezone: 'UTC' });
    await loadDemoData(app.db, user.id, {
      seed: 2,
      days: 90,
      endDate: localDate(new Date(), 'UTC'),
      attributes: ['steps', 'sleep', 'mood', 'sleep_start'],
      rhythms: false,
    });
    await deriveUser(app.db, user.id, { now: new Date() });
    const session = await makeSession(app, user);
    const { client } = (await registerApp(app, user, { name: 'Mood Mirror' })) as { client: OAuthClient };
    await makeToken(app, user, client, ['mood_read']);
    // An endpoint with a delivery, so the webhooks page shows its card, buttons and deliveries table.
    const endpoint = await createEndpoint(app.db, client.id, { url: 'http://127.0.0.1:9/hooks', events: ['values.updated'] }, true);
    await queueTestEvent(app.db, endpoint, client.client_id, new Date());
    const manual = await makeClient(app, user, 'Other app');
    await makeToken(app, user, manual.client, ['sleep_read']);
    browser = await launchBrowser();
    await browser.context.addCookies([{ name: 'daybook_session', value: session, url: app.baseUrl }]);
    page = await browser.context.newPage();
    page.setDefaultTimeout(20_000);
    // Something tracked by hand, so /data has its entry forms.
    await page.goto(`${app.baseUrl}/data/track`);
    await page.selectOption('#template', 'mood_note');
    await Promise.all([page.waitForURL(/\/data\?notice=tracking/), page.click('form:has(#template) button[type=submit]')]);
    const consent = new URLSearchParams({ response_type: 'code', client_id: client.client_id, redirect_uri: REDIRECT_URI, scope: 'mood_read', state: 's' });
    paths.push(
      '/data',
      '/data/track',
      '/data/patterns',
      '/settings/profile',
      '/settings/apps',
      `/settings/apps/${client.client_id}`,
      `/settings/apps/${client.client_id}/webhooks`,
      '/settings/connected-apps',
      '/settings/attributes',
      '/settings/simple-token',
      '/settings/account',
      `/oauth2/authorize?${consent}`,
      '/settings/apps/no-such-app',
    );
  },
  20 * 60 * 1000,
);

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

/** What a screen reader would miss on the page now shown (run in the page; a string: no DOM types here). */
const AUDIT = `(() => {
  const problems = [];
  const visible = (e) => e.type !== 'hidden' && !e.closest('[hidden]');
  const describe = (e) => e.outerHTML.slice(0, 160);
  if (!document.documentElement.lang) problems.push('no lang on <html>');
  if (!document.title.trim()) problems.push('no <title>');
  const h1 = document.querySelectorAll('h1').length;
  if (h1 !== 1) problems.push(h1 + ' h1 elements');
  for (const field of document.querySelectorAll('input, select, textarea')) {
    if (!visible(field)) continue;
    const labelled = (field.id && document.querySelector('label[for="' + CSS.escape(field.id) + '"]')) || field.closest('label') || field.getAttribute('aria-label') || field.getAttribute('aria-labelledby');
    if (!labelled) problems.push('field without a label: ' + describe(field));
  }
  for (const control of document.querySelectorAll('button, a[href]')) {
    const name = (control.textContent || '').trim() || control.getAttribute('aria-label') || control.getAttribute('title');
    if (!name) problems.push('control without a name: ' + describe(control));
  }
  for (const image of document.querySelectorAll('img')) if (!image.hasAttribute('alt')) problems.push('image without alt: ' + describe(image));
  let level = 0;
  for (const heading of document.querySelectorAll('h1, h2, h3, h4, h5, h6')) {
    const next = Number(heading.tagName[1]);
    if (level && next > level + 1) problems.push('heading skips from h' + level + ' to h' + next + ': ' + heading.textContent.trim());
    level = next;
  }
  return problems;
})()`;

test('the audit finds what it looks for (on a page built to fail it)', async () => {
  await page.setContent(
    '<html><head></head><body><h1>A</h1><h1>B</h1><h3>Skipped</h3><input name="q"><button></button><a href="/x"></a><img src="data:,"></body></html>',
  );
  expect(await page.evaluate(AUDIT)).toEqual([
    'no lang on <html>',
    'no <title>',
    '2 h1 elements',
    'field without a label: <input name="q">',
    'control without a name: <button></button>',
    'control without a name: <a href="/x"></a>',
    'image without alt: <img src="data:,">',
    'heading skips from h1 to h3: Skipped',
  ]);
});

test('every page has a language, a title, one h1, labelled fields, named controls and ordered headings', async () => {
  const found: Record<string, string[]> = {};
  for (const path of paths) {
    await page.goto(app.baseUrl + path);
    const problems = (await page.evaluate(AUDIT)) as string[];
    if (problems.length > 0) found[path] = problems;
  }
  // Logged out: the log-in and sign-up forms.
  await browser.context.clearCookies();
  for (const path of ['/login', '/signup']) {
    await page.goto(app.baseUrl + path);
    const problems = (await page.evaluate(AUDIT)) as string[];
    if (problems.length > 0) found[path] = problems;
  }
  expect(found).toEqual({});
});

test('the log-in form can be filled in and sent with the keyboard alone: its fields and button are reachable by Tab', async () => {
  await page.goto(`${app.baseUrl}/login`);
  const reached: string[] = [];
  for (let i = 0; i < 12; i++) {
    await page.keyboard.press('Tab');
    reached.push((await page.evaluate(`(document.activeElement && (document.activeElement.id || document.activeElement.tagName)) || ''`)) as string);
  }
  expect(reached).toEqual(expect.arrayContaining(['username', 'password', 'BUTTON']));
});

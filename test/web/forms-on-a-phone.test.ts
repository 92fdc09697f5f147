/**
 * What a person sees on a phone (390x844) in Chromium: a refused form's message at the top of the
 * screen, not 1,000-1,500 px below it; sessions named "Chrome on Linux, last used just now";
 * deactivating an attribute asking first, with no JavaScript.
 */
import fs from 'node:fs';
import type { Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../support/app';
import { makeUser, resetSignInThrottle } from '../support/fixtures';
import { ensureChromium, launchBrowser, type Browser } from '../support/chromium';
import { addAttribute } from '../support/seed';
import type { User } from '../../src/domain/identity/users';

jest.setTimeout(120_000);

const PHONE = { width: 390, height: 844 };
const AXE_SOURCE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

let app: TestApp;
let browser: Browser;
let page: Page;
let person: { user: User; password: string };

beforeAll(async () => {
  ensureChromium();
  app = await startTestApp();
  await resetSignInThrottle(app);
  person = await makeUser(app, { timezone: 'UTC' });
  await addAttribute(app, person.user.id, { name: 'sleep', label: 'Sleep' });
  browser = await launchBrowser();
  page = await browser.context.newPage();
  page.setDefaultTimeout(20_000);
  await page.setViewportSize(PHONE);
  // Logged in through the form, so the session knows this browser.
  await page.goto(`${app.baseUrl}/login`);
  await page.fill('#username', person.user.username);
  await page.fill('#password', person.password);
  await Promise.all([page.waitForURL((url) => !url.pathname.startsWith('/login')), page.click('form[action="/login"] button[type=submit]')]);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

/** Where the element's box is on the screen as the page comes back (no scrolling by the test). */
async function screenBox(selector: string): Promise<{ top: number; bottom: number }> {
  const box = await page
    .locator(selector)
    .first()
    .evaluate((element) => {
      const rect = element.getBoundingClientRect();
      return { top: rect.top, bottom: rect.bottom };
    });
  return box;
}

/** axe-core's violations on the page as it is, in light and in dark (as test/web/layout.test.ts runs it). */
async function axeViolations(): Promise<unknown[]> {
  const found: unknown[] = [];
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    await page.evaluate(AXE_SOURCE);
    found.push(
      ...((await page.evaluate(
        `axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({ id: v.id, nodes: v.nodes.map((n) => n.target.join(' ')).slice(0, 5) })))`,
      )) as unknown[]),
    );
  }
  await page.emulateMedia({ colorScheme: 'light' });
  return found;
}

test('a wrong password in the delete form shows its message at the top of the phone screen', async () => {
  await page.goto(`${app.baseUrl}/settings/account`);
  const form = page.locator('form[action="/settings/account/delete"]');
  expect((await screenBox('form[action="/settings/account/delete"]')).top).toBeGreaterThan(PHONE.height);
  await form.locator('#password').fill('not my password');
  await form.locator('#confirm').fill(person.user.username);
  await Promise.all([page.waitForLoadState('load'), form.locator('button[type=submit]').click()]);
  await page.waitForSelector('.error-summary');
  const summary = await screenBox('.error-summary');
  expect(summary.top).toBeGreaterThanOrEqual(0);
  expect(summary.bottom).toBeLessThan(PHONE.height / 2);
  expect(await page.locator('.error-summary').innerText()).toMatch(/^Your account was not deleted\. .*password/is);
  expect(await axeViolations()).toEqual([]);
  // Its link goes to the form.
  await page.locator('.error-summary a').click();
  expect((await screenBox('#password')).top).toBeLessThan(PHONE.height);
});

test('a wrong current password when changing it shows its message at the top too', async () => {
  await resetSignInThrottle(app);
  await page.goto(`${app.baseUrl}/settings/account`);
  const form = page.locator('form[action="/settings/account/password"]');
  await form.locator('#current_password').fill('not my password');
  await form.locator('#new_password').fill('a new long password');
  await form.locator('#repeat_password').fill('a new long password');
  await Promise.all([page.waitForLoadState('load'), form.locator('button[type=submit]').click()]);
  await page.waitForSelector('.error-summary');
  expect((await screenBox('.error-summary')).bottom).toBeLessThan(PHONE.height / 2);
  expect(await page.locator('.error-summary').innerText()).toMatch(/^Your password was not changed\./);
});

test('this browser is listed by name, "Chrome on Linux (this browser), last used just now"', async () => {
  await page.goto(`${app.baseUrl}/settings/account`);
  const sessions = await page.locator('li.session p').allInnerTexts();
  expect(sessions.map((text) => text.split('\n')[0])).toContain('Chrome on Linux (this browser), last used just now');
  expect(await page.locator('body').innerText()).not.toContain('Mozilla/5.0');
});

test('deactivating an attribute asks first; "Keep it as it is" changes nothing, the button deactivates', async () => {
  await page.goto(`${app.baseUrl}/settings/attributes`);
  const row = page.locator('#attribute-sleep');
  await row.locator('select[name=owner]').selectOption('__deactivate__');
  await Promise.all([page.waitForURL(/\/settings\/attributes\/sleep$/), row.locator('button[type=submit]').click()]);
  expect(await page.locator('h1').innerText()).toBe('Deactivate Sleep?');
  expect(await axeViolations()).toEqual([]);
  await Promise.all([page.waitForURL(/\/settings\/attributes#attribute-sleep$/), page.getByRole('link', { name: 'Keep it as it is' }).click()]);
  expect(await page.locator('#attribute-sleep').innerText()).not.toContain('Inactive');

  await page.locator('#attribute-sleep select[name=owner]').selectOption('__deactivate__');
  await Promise.all([page.waitForURL(/\/settings\/attributes\/sleep$/), page.locator('#attribute-sleep button[type=submit]').click()]);
  await Promise.all([page.waitForURL(/notice=saved/), page.getByRole('button', { name: 'Deactivate Sleep' }).click()]);
  expect(await page.locator('#attribute-sleep').innerText()).toContain('Inactive');
});

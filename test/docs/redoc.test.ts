/**
 * Issue 29, items 1 and 3 as a partner sees them: in real headless Chromium, the Redoc page of v2
 * shows an operation's code samples (curl, Python, JavaScript) naming this instance, and the quick
 * start as a section of the introduction, the one the apps page links to.
 */
import type { Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../support/app';
import { launchBrowser, type Browser } from '../support/chromium';

jest.setTimeout(120_000);

let app: TestApp;
let browser: Browser;
let page: Page;
beforeAll(async () => {
  app = await startTestApp();
  browser = await launchBrowser();
  page = await browser.context.newPage();
});
afterAll(async () => {
  await browser?.close();
  await app?.close();
});

test('an operation shows its samples, curl first and Python on choosing it, with this instance in the URL', async () => {
  await page.goto(`${app.baseUrl}/docs/v2/#tag/Account/operation/getProfile`);
  const samples = page.locator('.panel-request-samples', { hasText: '/api/2/accounts/profile/' });
  await samples.getByText(`--url ${app.baseUrl}/api/2/accounts/profile/`).waitFor();
  await samples.getByRole('button', { name: 'curl' }).click();
  for (const label of ['Python (requests)', 'JavaScript (fetch)']) await page.getByRole('menuitem', { name: label }).waitFor();
  await page.getByRole('menuitem', { name: 'Python (requests)' }).click();
  await samples.getByText('import requests').waitFor();
  await samples.getByText(`url = "${app.baseUrl}/api/2/accounts/profile/"`).waitFor();
});

test('the quick start is a section of the introduction at the anchor the apps page links to', async () => {
  await page.goto(`${app.baseUrl}/docs/v2/#section/quick-start`);
  await page.locator('h2[id="section/quick-start"]').waitFor();
  const link = page.getByRole('link', { name: 'your apps page' });
  expect(await link.getAttribute('href')).toBe(`${app.baseUrl}/settings/apps`);
});

/**
 * Issue 29, items 1 and 3 as a partner sees them: in real headless Chromium, the Redoc page of v2
 * shows an operation's code samples (curl, Python, JavaScript) naming this instance, and the quick
 * start as a section of the introduction, the one the apps page links to. Issue 31, item 11: every
 * docs page loads with no console error and nothing from outside this instance, and the v1 sidebar
 * names each section in full.
 */
import type { ConsoleMessage, Page, Request } from 'playwright-core';
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

/** What a page reported on loading: console errors (a CSP refusal is one) and requests that failed or left this instance. */
async function loadProblems(path: string, ready: string): Promise<string[]> {
  const problems: string[] = [];
  const own = new URL(app.baseUrl).origin;
  const onConsole = (message: ConsoleMessage) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  };
  const onRequest = (request: Request) => {
    const url = new URL(request.url());
    if (url.protocol.startsWith('http') && url.origin !== own) problems.push(`outside request: ${request.url()}`);
  };
  const onFailed = (request: Request) => problems.push(`failed: ${request.url()} ${request.failure()?.errorText ?? ''}`);
  page.on('console', onConsole);
  page.on('request', onRequest);
  page.on('requestfailed', onFailed);
  try {
    await page.goto(`${app.baseUrl}${path}`, { waitUntil: 'load' });
    await page.getByText(ready).first().waitFor();
    // Everything the page asks for on its own (icons, a logo) has been asked for once the network is quiet.
    await page.waitForLoadState('networkidle');
  } finally {
    page.off('console', onConsole);
    page.off('request', onRequest);
    page.off('requestfailed', onFailed);
  }
  return problems;
}

test.each([
  ['/docs/v2/', 'Daybook API'],
  ['/docs/v1/', 'Daybook API'],
  ['/docs/oauth/', 'OAuth'],
])('%s loads with no console error and no request outside this instance', async (path, ready) => {
  expect(await loadProblems(path, ready)).toEqual([]);
});

test('the v1 sidebar names the section on users and $self in full', async () => {
  await page.goto(`${app.baseUrl}/docs/v1/`);
  // The sidebar entries are Redoc's menu items; the heading's text, not only its plain words, names the entry.
  const entry = page.locator('[data-testid="menu-item-label"]', { hasText: /^Users and/ }).first();
  await entry.waitFor();
  expect((await entry.innerText()).trim()).toBe('Users and $self');
});

/**
 * Importing one's history on /settings/import (docs/pages.md, "Importing"), in Chromium with the
 * pages' own CSP (no script): upload a small wide CSV, see what each column becomes, change one
 * new column's kind of value, check (a dry run: counts, nothing written), Go, watch the progress
 * page reload itself, read the result, and find the values over the API. An upload over
 * IMPORT_MAX_BYTES is refused with 413 and leaves nothing on disk; a file that is no export says
 * where and why and is removed; every step's page is axe-clean on a phone and a laptop, light and dark.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../support/app';
import { makeSession, makeUser } from '../support/fixtures';
import { artifactPath, ensureChromium, launchBrowser, type Browser } from '../support/chromium';
import { PAGE, csrfOf } from '../support/web';
import { setValuesByHand, trackByHand } from '../../src/domain/tracking/manual-tracking';
import { createUpload } from '../../src/domain/imports/uploads';

jest.setTimeout(240_000);

const AXE_SOURCE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
const MAX_BYTES = 20_000;
const SIZES = [
  { width: 390, height: 844 },
  { width: 1280, height: 800 },
] as const;

let app: TestApp;
let browser: Browser;
let page: Page;
let session: string;
let importDir: string;

/** A week of steps, mood and sauna visits (no template's name or label), one column each beside the date. */
const WIDE_CSV =
  ['date,steps,mood,Sauna visits', ...Array.from({ length: 7 }, (_, i) => `2026-10-0${i + 1},${8000 + i * 100},${(i % 9) + 1},${(i % 3) + 1}`)].join('\n') +
  '\n';

beforeAll(
  async () => {
    ensureChromium();
    importDir = fs.mkdtempSync(path.join(os.tmpdir(), 'daybook-import-test-'));
    app = await startTestApp({ WORKERS: '1', IMPORT_MAX_BYTES: String(MAX_BYTES), IMPORT_DIR: importDir });
    const { user } = await makeUser(app, { timezone: 'UTC' });
    session = await makeSession(app, user);
    browser = await launchBrowser();
    await browser.context.addCookies([{ name: 'daybook_session', value: session, url: app.baseUrl }]);
    page = await browser.context.newPage();
    page.setDefaultTimeout(30_000);
  },
  20 * 60 * 1000,
);

afterAll(async () => {
  await browser?.close();
  await app?.close();
  fs.rmSync(importDir, { recursive: true, force: true });
});

/**
 * axe-core's violations on the page now shown, on a phone and a laptop, light and dark; with
 * `shot`, a screenshot of each is kept in test/artifacts/ (import-<shot>-<scheme>-<width>.png).
 */
async function axeViolations(shot?: string): Promise<Record<string, unknown[]>> {
  const found: Record<string, unknown[]> = {};
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    for (const size of SIZES) {
      await page.setViewportSize(size);
      // Evaluated through the DevTools protocol, so the page's CSP (no script) does not stop it.
      await page.evaluate(AXE_SOURCE);
      const result = (await page.evaluate(
        `axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({ id: v.id, nodes: v.nodes.map((n) => n.target.join(' ')).slice(0, 5) })))`,
      )) as unknown[];
      const wide = (await page.evaluate('document.documentElement.scrollWidth > window.innerWidth')) as boolean;
      if (wide) result.push('scrolls sideways');
      if (result.length > 0) found[`${colorScheme} ${size.width}`] = result;
      if (shot) await page.screenshot({ path: artifactPath(`import-${shot}-${colorScheme}-${size.width}.png`), fullPage: true });
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize(SIZES[1]);
  return found;
}

/** Uploads a file through the page's form (no script: a plain multipart post), landing on the import's page. */
async function upload(name: string, content: string | Buffer): Promise<void> {
  await page.goto(`${app.baseUrl}/settings/import`);
  await page.setInputFiles('#file', { name, mimeType: 'text/csv', buffer: Buffer.from(content) });
  await Promise.all([page.waitForURL(/\/settings\/import\/[0-9a-f-]{36}$/), page.click('button:has-text("Upload and read it")')]);
}

/** The import page's heading, once the page (reloading itself while a job works) shows `text`. */
async function waitForHeading(text: string | RegExp): Promise<void> {
  await page.locator('h1', { hasText: text }).waitFor({ timeout: 60_000 });
}

function count(label: string): Promise<string> {
  return page.locator(`table.counts tr:has(th:has-text("${label}")) td`).innerText();
}

function filesLeft(): string[] {
  return fs.readdirSync(importDir);
}

test('the account page and the empty Your data link to the import page, which takes a file up to IMPORT_MAX_BYTES', async () => {
  const account = await app.get('/settings/account', { ...PAGE, session });
  expect(account.text).toContain('href="/settings/import"');
  const data = await app.get('/data', { ...PAGE, session });
  expect(data.text).toContain('href="/settings/import"');
  const start = await app.get('/settings/import', { ...PAGE, session });
  expect(start.status).toBe(200);
  expect(start.text).toContain('enctype="multipart/form-data"');
  expect(start.text).toContain('Files up to 19.5 KiB');
});

test('a wide CSV: preview, a changed kind of value, the check, Go, progress, the result, and the values over the API', async () => {
  await upload('week.csv', WIDE_CSV);
  // The job reads the file; the page reloads itself (Refresh) until the preview is there.
  await waitForHeading('Waiting for your choices');
  expect(await page.locator('main').innerText()).toContain('a CSV with a column per attribute');
  const legends = await page.locator('fieldset.column legend').allInnerTexts();
  expect(legends).toEqual(['steps', 'mood', 'Sauna visits']);
  expect(await page.locator('#target_0').inputValue()).toBe('t:steps');
  expect(await page.locator('#target_1').inputValue()).toBe('t:mood');
  // Sauna visits is no template's name or label: a new attribute of the person's, whose kind they confirm (a rating, here).
  expect(await page.locator('#target_2').inputValue()).toBe('new');
  await page.selectOption('#kind_2', '8');
  expect(await axeViolations('preview')).toEqual({});

  await Promise.all([page.waitForURL(/\/settings\/import\/[0-9a-f-]{36}$/), page.click('button:has-text("Check")')]);
  await waitForHeading('Checked');
  expect(await count('Would be added')).toBe('21');
  expect(await count('Refused')).toBe('0');
  expect(await page.locator('main').innerText()).toContain('Sauna visits: New: Sauna visits (a 1-9 rating)');
  expect(await axeViolations('checked')).toEqual({});
  // The check wrote nothing.
  const before = await app.get('/api/2/attributes/values/?attribute=steps&date_max=2026-10-31', { session });
  expect(before.status === 404 || before.body.count === 0).toBe(true);

  await Promise.all([page.waitForURL(/\/settings\/import\/[0-9a-f-]{36}$/), page.click('button:has-text("Go: import it")')]);
  await waitForHeading('Imported');
  expect(await count('Added')).toBe('21');
  expect(await page.locator('main').innerText()).toContain('Days from 2026-10-01 to 2026-10-07');
  expect(await axeViolations('imported')).toEqual({});
  // The file is gone once the import ended.
  expect(filesLeft()).toEqual([]);

  const steps = await app.get('/api/2/attributes/values/?attribute=steps&date_max=2026-10-31', { session });
  expect(steps.status).toBe(200);
  expect(steps.body.results.find((v: { date: string }) => v.date === '2026-10-03')?.value).toBe(8200);
  const attributes = await app.get('/api/2/attributes/', { session });
  const created = attributes.body.results.find((a: { label: string }) => a.label === 'Sauna visits');
  expect(created?.value_type).toBe(8);
});

test("another account's JSON export goes through the same steps into this account: same values", async () => {
  const { user: other } = await makeUser(app, { timezone: 'UTC' });
  const tracked = await trackByHand(app.db, other, { template: 'mood' }, new Date());
  if (!tracked.ok) throw new Error(tracked.problem);
  await setValuesByHand(
    app.db,
    other,
    [1, 2, 3].map((d) => ({ name: 'mood', date: `2026-08-0${d}`, value: d + 4 })),
    new Date(),
  );
  const exported = await app.get('/settings/account/export/data.json', { ...PAGE, session: await makeSession(app, other) });
  expect(exported.status).toBe(200);
  await upload('daybook.json', exported.text);
  await waitForHeading('Waiting for your choices');
  expect(await page.locator('main').innerText()).toContain("Daybook's own JSON export");
  await Promise.all([page.waitForURL(/\/settings\/import\/[0-9a-f-]{36}$/), page.click('button:has-text("Check")')]);
  await waitForHeading('Checked');
  expect(await count('Would be added')).toBe('3');
  await Promise.all([page.waitForURL(/\/settings\/import\/[0-9a-f-]{36}$/), page.click('button:has-text("Go: import it")')]);
  await waitForHeading('Imported');
  const mood = await app.get('/api/2/attributes/values/?attribute=mood&date_max=2026-08-31', { session });
  expect(mood.body.results.map((v: { date: string; value: number }) => [v.date, v.value])).toEqual([
    ['2026-08-03', 7],
    ['2026-08-02', 6],
    ['2026-08-01', 5],
  ]);
});

test('the page of a working import reloads itself every few seconds and has a Refresh link; ?refresh=off stops it', async () => {
  const { user } = await makeUser(app, { timezone: 'UTC' });
  const own = await makeSession(app, user);
  // An import waiting for its job (recorded as the upload does, its job not queued), so the page is in its working step.
  const file = path.join(importDir, 'waiting.upload');
  fs.writeFileSync(file, WIDE_CSV);
  const upload = await createUpload(app.db, user.id, { name: 'week.csv', path: file, bytes: WIDE_CSV.length }, new Date());
  const at = `/settings/import/${upload.id}`;
  const shown = await app.get(at, { ...PAGE, session: own });
  expect(shown.text).toContain('Reading the file');
  expect(shown.text).toContain('Waiting for a worker to start it.');
  expect(shown.headers.get('refresh')).toBe('3');
  expect(shown.text).toContain(`href="${at}">Refresh</a>`);
  const still = await app.get(`${at}?refresh=off`, { ...PAGE, session: own });
  expect(still.headers.get('refresh')).toBeNull();
  // Another person's import is not found.
  expect((await app.get(at, { ...PAGE, session })).status).toBe(404);
  await app.db('import_uploads').where({ id: upload.id }).update({ stage: 'cancelled', file_path: null });
  fs.rmSync(file);
});

test('an upload over IMPORT_MAX_BYTES is answered 413, saying the limit, and nothing of it is kept', async () => {
  const start = await app.get('/settings/import', { ...PAGE, session });
  const big = 'date,steps\n' + '2026-10-01,1000\n'.repeat(2000); // ~32 KB, over the 20,000 bytes allowed
  const form = new FormData();
  form.set('csrf_token', csrfOf(start.text));
  form.set('file', new Blob([big], { type: 'text/csv' }), 'big.csv');
  const rowsBefore = await app.db('import_uploads').count<[{ count: string }]>('* as count');
  const res = await fetch(`${app.baseUrl}/settings/import`, {
    method: 'POST',
    body: form,
    headers: { Cookie: `daybook_session=${session}` },
    redirect: 'manual',
  });
  expect(res.status).toBe(413);
  expect(await res.text()).toContain('The file is larger than 19.5 KiB');
  expect(filesLeft()).toEqual([]);
  const rowsAfter = await app.db('import_uploads').count<[{ count: string }]>('* as count');
  expect(rowsAfter[0].count).toBe(rowsBefore[0].count);

  // Sent without a length (chunked), it is cut off at the limit as it streams: the same answer, nothing kept.
  const chunks = (async function* () {
    const boundary = '----daybook';
    yield Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="csrf_token"\r\n\r\n${csrfOf(start.text)}\r\n`);
    yield Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.csv"\r\nContent-Type: text/csv\r\n\r\n`);
    for (let i = 0; i < 8; i++) yield Buffer.from(big.slice(0, 5000));
    yield Buffer.from(`\r\n--${boundary}--\r\n`);
  })();
  const streamed = await fetch(`${app.baseUrl}/settings/import`, {
    method: 'POST',
    body: chunks as unknown as RequestInit['body'],
    duplex: 'half',
    headers: { Cookie: `daybook_session=${session}`, 'Content-Type': 'multipart/form-data; boundary=----daybook' },
    redirect: 'manual',
  } as RequestInit);
  expect(streamed.status).toBe(413);
  expect(filesLeft()).toEqual([]);
});

test('an upload without the form token is refused (403) before anything is written', async () => {
  const form = new FormData();
  form.set('file', new Blob([WIDE_CSV], { type: 'text/csv' }), 'week.csv');
  const res = await fetch(`${app.baseUrl}/settings/import`, {
    method: 'POST',
    body: form,
    headers: { Cookie: `daybook_session=${session}` },
    redirect: 'manual',
  });
  expect(res.status).toBe(403);
  expect(filesLeft()).toEqual([]);
});

test('a file that is no export says where and why, writes nothing, and is removed', async () => {
  await upload('photo.csv', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]));
  await waitForHeading('Could not be read');
  const alert = await page.locator('[role=alert]').innerText();
  expect(alert.length).toBeGreaterThan(10);
  expect(await page.locator('main').innerText()).toContain('Nothing was written');
  expect(await axeViolations('not-an-export')).toEqual({});
  expect(filesLeft()).toEqual([]);
});

test('a CSV with a bad date half-way: the check says the row and why; Go keeps what came before and says where it stopped', async () => {
  const rows = ['date,steps', ...Array.from({ length: 5 }, (_, i) => `2026-09-0${i + 1},${5000 + i}`), 'not a date,5005', '2026-09-07,5006'];
  await upload('broken.csv', rows.join('\n') + '\n');
  await waitForHeading('Waiting for your choices');
  await Promise.all([page.waitForURL(/\/settings\/import\/[0-9a-f-]{36}$/), page.click('button:has-text("Check")')]);
  await waitForHeading('Checked');
  const checked = await page.locator('main').innerText();
  expect(checked).toMatch(/stopped here/);
  expect(checked).toMatch(/7|not a date/);
  await Promise.all([page.waitForURL(/\/settings\/import\/[0-9a-f-]{36}$/), page.click('button:has-text("Go: import it")')]);
  await waitForHeading(/Stopped|Imported/);
  const result = await page.locator('main').innerText();
  expect(result).toMatch(/stopped here/);
  expect(await page.locator('button:has-text("Run again")').count()).toBe(1);
  expect(await axeViolations('stopped')).toEqual({});
});

test('the import sweep removes files of the upload folder that no import holds once they are an hour old, and leaves younger ones', async () => {
  const old = path.join(importDir, 'cut-off.upload');
  const fresh = path.join(importDir, 'arriving.upload');
  fs.writeFileSync(old, 'date,steps\n');
  fs.writeFileSync(fresh, 'date,steps\n');
  const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);
  fs.utimesSync(old, twoHoursAgo, twoHoursAgo);
  const swept = await app.jobs!.imports.sweep();
  expect(swept.removed).toBe(1);
  // The stopped import's file (the test before) is held: it stays too.
  expect(filesLeft()).toContain('arriving.upload');
  expect(filesLeft()).not.toContain('cut-off.upload');
  fs.rmSync(fresh);
});

/**
 * Charts as a person reads them in Chromium, on a phone (390 x 844) and a laptop (1280 x 800),
 * light and dark (docs/pages.md, "Charts"): no label is cut off (every <text> lies inside its
 * SVG's box); a year is drawn by week with each week's range; at least six days are labelled;
 * the median and the average are told apart; a bedtime axis fits the person's own times; a tag
 * is ticks on days and days per week over a year; the Patterns table keeps every weekday within
 * its own box; the colour key says what the colours do in either theme; the pair page names both
 * charts and its scatter fits the screen; axe-core finds nothing. Screenshots of a 365-day and a
 * 30-day page at both sizes go to $CHART_SHOTS when that is set.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../support/app';
import { makeSession, makeUser } from '../support/fixtures';
import { ensureChromium, launchBrowser, type Browser } from '../support/chromium';
import { loadDemoData } from '../../src/demo/demo-data';
import { deriveUser } from '../../src/analytics/derive';
import { setValuesByHand, trackByHand } from '../../src/domain/tracking/manual-tracking';
import { listCorrelations } from '../../src/domain/derived/correlations';
import { READ_SCOPES } from '../../src/domain/apps-and-grants/scopes';
import { readVisibility } from '../../src/domain/apps-and-grants/visibility';
import { addDays, localDate } from '../../src/domain/time';

jest.setTimeout(300_000);

/** The browser's, inside page functions (the tests are compiled without the DOM library). */
declare const getComputedStyle: (element: unknown) => Record<string, string>;

const AXE_SOURCE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
const SIZES = [
  { width: 390, height: 844 },
  { width: 1280, height: 800 },
] as const;
const ATTRIBUTES = ['steps', 'sleep', 'sleep_start', 'mood', 'weight'];

let app: TestApp;
let browser: Browser;
let page: Page;
let tag = '';
let pair = '';

beforeAll(
  async () => {
    ensureChromium();
    app = await startTestApp();
    const { user } = await makeUser(app, { timezone: 'UTC' });
    const today = localDate(new Date(), 'UTC');
    await loadDemoData(app.db, user.id, { seed: 7, days: 365, endDate: today, attributes: ATTRIBUTES, rhythms: false });
    const tracked = await trackByHand(app.db, user, { label: 'Went swimming', group: 'custom', valueType: 7 }, new Date());
    if (!tracked.ok) throw new Error(tracked.problem);
    tag = tracked.name;
    // Swimming on three fixed weekdays of the year: today's, and those two and four days before it;
    // other days are not ticked (no value stored). Counted back from today rather than fixed to
    // Mondays, Wednesdays and Fridays, whose last 30 days held only 12 ticks when today was a
    // Sunday ("2.8 days a week"): this way they always hold 13, and every week 3.
    const days = Array.from({ length: 365 }, (_, i) => i)
      .filter((i) => [0, 2, 4].includes(i % 7))
      .map((i) => addDays(today, -i));
    await setValuesByHand(
      app.db,
      user,
      days.map((date) => ({ name: tag, date, value: 1 })),
      new Date(),
    );
    await deriveUser(app.db, user.id, { now: new Date() });
    const { results } = await listCorrelations(app.deps.database, {
      userId: user.id,
      visibility: readVisibility(READ_SCOPES),
      filters: {},
      page: { limit: 1, offset: 0 },
    });
    pair = results[0] ? `/data/pair/${results[0].attribute}/${results[0].attribute2}` : '/data/pair/steps/sleep';
    browser = await launchBrowser();
    await browser.context.addCookies([{ name: 'daybook_session', value: await makeSession(app, user), url: app.baseUrl }]);
    page = await browser.context.newPage();
    page.setDefaultTimeout(20_000);
  },
  20 * 60 * 1000,
);

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

async function visit(url: string, size: (typeof SIZES)[number]): Promise<void> {
  await page.setViewportSize(size);
  const response = await page.goto(app.baseUrl + url);
  expect(response?.status()).toBe(200);
}

/**
 * Loads a page once and runs `check` on it at each size. The server draws the charts without
 * knowing the screen and the pages have no script: CSS sizes them, and its media queries apply to
 * a resized page at once, so this lays the page out as loading it at each size does, at half the
 * loads.
 */
async function atEachSize(url: string, check: (size: (typeof SIZES)[number]) => Promise<void>): Promise<void> {
  const response = await page.goto(app.baseUrl + url);
  expect(response?.status()).toBe(200);
  for (const size of SIZES) {
    await page.setViewportSize(size);
    await check(size);
  }
}

/** Every chart text drawn outside its SVG's box, with how far (run in the page). */
const CLIPPED = `(() => {
  const out = [];
  for (const svg of document.querySelectorAll('svg.chart')) {
    const box = svg.getBoundingClientRect();
    for (const text of svg.querySelectorAll('text')) {
      const t = text.getBoundingClientRect();
      if (t.left < box.left - 0.5 || t.right > box.right + 0.5 || t.top < box.top - 0.5 || t.bottom > box.bottom + 0.5)
        out.push(svg.querySelector('title').textContent + ': "' + text.textContent + '" at ' + [t.left, t.top, t.right, t.bottom].map(Math.round) + ' outside ' + [box.left, box.top, box.right, box.bottom].map(Math.round));
    }
  }
  return out;
})()`;

const chartPages = () => [...ATTRIBUTES, tag].flatMap((name) => [30, 90, 365].map((days) => `/data/${name}?days=${days}`)).concat([pair, `${pair}?days=365`]);

test('no chart label lies outside its chart, on a phone or a laptop, at 30, 90 and 365 days', async () => {
  const found: Record<string, string[]> = {};
  for (const url of chartPages()) {
    await atEachSize(url, async (size) => {
      const clipped = (await page.evaluate(CLIPPED)) as string[];
      if (clipped.length > 0) found[`${size.width} ${url}`] = clipped;
    });
  }
  expect(found).toEqual({});
});

test('the clipping check fails on a label drawn past the edge', async () => {
  await page.setContent('<svg class="chart" viewBox="0 0 100 50" width="100" height="50"><title>T</title><text x="90" y="20">10000</text></svg>');
  expect(((await page.evaluate(CLIPPED)) as string[])[0]).toContain('"10000"');
});

test('a year is drawn by week with each week’s range; at least six days are labelled; median and average are told apart', async () => {
  await visit('/data/weight?days=365', SIZES[1]);
  const weeks = await page.$$eval('svg.chart .series [data-date]', (nodes) =>
    nodes.map((n) => ({ low: Number(n.getAttribute('data-low')), high: Number(n.getAttribute('data-high')), value: Number(n.getAttribute('data-value')) })),
  );
  expect(weeks.length).toBeGreaterThanOrEqual(50);
  expect(weeks.length).toBeLessThanOrEqual(53);
  for (const w of weeks) expect(w.low <= w.value && w.value <= w.high).toBe(true);
  expect(await page.locator('svg.chart .band').count()).toBe(1);
  expect(await page.locator('svg.chart title').first().textContent()).toContain('by week');
  for (const url of ['/data/weight?days=365', '/data/steps?days=30', '/data/mood?days=90']) {
    await visit(url, SIZES[0]);
    const dates = await page.$$eval('svg.chart .axis text', (nodes) =>
      nodes.map((n) => n.textContent ?? '').filter((t) => /^\d{1,2} [A-Z][a-z]{2,3}$/.test(t)),
    );
    expect({ url, dates: dates.length >= 6 ? 'six or more' : dates }).toEqual({ url, dates: 'six or more' });
  }
  // Two different lines (colour and dash) when both are drawn, each with its own words in the key.
  await visit('/data/steps?days=90', SIZES[1]);
  const lines = await page.$$eval('svg.chart line.mark', (nodes) => nodes.map((n) => `${getComputedStyle(n).stroke} ${getComputedStyle(n).strokeDasharray}`));
  if (lines.length === 2) expect(lines[0]).not.toEqual(lines[1]);
  expect(await page.locator('p.marks').textContent()).toMatch(/Median .*Average/);
});

test('a bedtime axis fits the person’s own times, in HH:MM, not a 24-hour clock', async () => {
  await visit('/data/sleep_start?days=90', SIZES[0]);
  const labels = await page.$$eval('svg.chart .axis text', (nodes) => nodes.map((n) => n.textContent ?? '').filter((t) => /^\d\d:\d\d$/.test(t)));
  expect(labels.length).toBeGreaterThanOrEqual(3);
  const minutes = labels.map((l) => Number(l.slice(0, 2)) * 60 + Number(l.slice(3)));
  // The demo's bedtimes lie within a few hours of midnight: the axis spans far less than a day.
  const span = labels.map((_, i) => (i === 0 ? 0 : (minutes[i] - minutes[0] + 1440) % 1440));
  expect(Math.max(...span)).toBeLessThanOrEqual(8 * 60);
});

test('a tag is ticks on the days it was ticked, days per week over a year, and its figures are days a week', async () => {
  await visit(`/data/${tag}?days=30`, SIZES[1]);
  const ticked = await page.locator('svg.chart rect.tick').count();
  const unticked = await page.locator('svg.chart rect.untick').count();
  expect(ticked + unticked).toBe(30);
  expect(ticked).toBeGreaterThanOrEqual(12);
  const text = (await page.locator('main').textContent()) ?? '';
  expect(text).toMatch(/3\.\d days a week on average/);
  expect(text).not.toMatch(/Median 1|Average 1|0\.2/);
  // The month's days so far that were not ticked are "No", not empty.
  expect(await page.locator('table.calendar td.empty').count()).toBe(0);
  await visit(`/data/${tag}?days=365`, SIZES[1]);
  const weeks = await page.$$eval('svg.chart .series rect.bar', (nodes) => nodes.map((n) => Number(n.getAttribute('data-value'))));
  expect(weeks.length).toBe(52);
  expect(weeks.every((w) => w === 3)).toBe(true);
  const axis = await page.$$eval('svg.chart .axis text', (nodes) => nodes.map((n) => n.textContent ?? '').filter((t) => /^\d$/.test(t)));
  expect(axis).toEqual(['0', '2', '4', '6']);
  // Patterns shows the tag as days ticked per weekday, not a median of "Yes".
  await visit('/data/patterns', SIZES[1]);
  const row = await page.$$eval('table.weekdays tr', (rows) => rows.map((r) => r.textContent ?? '').filter((t) => t.includes('Went swimming')));
  expect(row).toHaveLength(1);
  expect(row[0]).toMatch(/^Went swimming3\.0(12 of 12|0 of 12)/);
  expect(row[0]).not.toContain('Yes');
});

test('the Patterns table keeps every weekday within its own box, with its headers; the colour key follows the theme', async () => {
  for (const size of SIZES) {
    await visit('/data/patterns', size);
    const box = await page.$eval('table.weekdays', (table) => {
      const scroll = table.closest('.scroll')!;
      const card = scroll.closest('.card')!.getBoundingClientRect();
      const outer = scroll.getBoundingClientRect();
      scroll.scrollLeft = scroll.scrollWidth;
      const sunday = [...table.querySelectorAll('thead th')].at(-1)!.getBoundingClientRect();
      return { inCard: outer.left >= card.left && outer.right <= card.right, sunday: sunday.left >= outer.left - 0.5 && sunday.right <= outer.right + 0.5 };
    });
    expect(box).toEqual({ inCard: true, sunday: true });
    if (size.width === 1280)
      expect(await page.$eval('table.weekdays', (t) => t.closest('.scroll')!.scrollWidth <= t.closest('.scroll')!.clientWidth)).toBe(true);
  }
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    await visit('/data/patterns', SIZES[1]);
    expect(await page.locator('main').textContent()).not.toMatch(/darker is higher|lighter is higher/);
    // The key's swatches are the cells' own colours, lowest to highest, in this theme.
    const key = await page.$$eval('.heatkey .key', (nodes) => nodes.map((n) => getComputedStyle(n).backgroundColor));
    const cells = await page.$$eval('table.weekdays td.heat1, table.weekdays td.heat5', (nodes) =>
      Object.fromEntries(nodes.map((n) => [n.className, getComputedStyle(n).backgroundColor])),
    );
    expect(key).toHaveLength(5);
    expect([key[0], key[4]]).toEqual([cells.heat1, cells.heat5]);
  }
  await page.emulateMedia({ colorScheme: 'light' });
});

test('the pair page names both charts where they are drawn and sizes its scatter to the screen', async () => {
  const sizes: Record<number, { width: number; height: number }> = {};
  for (const size of SIZES) {
    await visit(pair, size);
    const names = await page.$$eval('h3.chart-label', (nodes) => nodes.map((n) => (n.getBoundingClientRect().height > 0 ? n.textContent : '')));
    expect(names).toHaveLength(2);
    expect(names.every((name) => name && name.length > 0)).toBe(true);
    sizes[size.width] = await page.$eval('svg.scatter', (svg) => ({ width: svg.getBoundingClientRect().width, height: svg.getBoundingClientRect().height }));
  }
  expect(sizes[1280].width).toBeLessThanOrEqual(600);
  expect(sizes[1280].height).toBeLessThanOrEqual(800 * 0.7);
  expect(sizes[390].width).toBeGreaterThanOrEqual(320);
});

test('axe-core finds nothing on the chart pages, phone and laptop, light and dark; screenshots when asked', async () => {
  const found: Record<string, unknown[]> = {};
  const shots = process.env.CHART_SHOTS;
  for (const url of ['/data/steps?days=365', '/data/sleep_start?days=30', `/data/${tag}?days=30`, `/data/${tag}?days=365`, '/data/patterns', pair]) {
    // One load per page: the size and the colour scheme apply to the loaded page at once (the
    // colour-key test above switches the scheme on a loaded page too).
    await atEachSize(url, async (size) => {
      if ((await page.evaluate(`typeof axe`)) === 'undefined') await page.evaluate(AXE_SOURCE);
      for (const colorScheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme });
        const result = (await page.evaluate(
          `axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({ id: v.id, nodes: v.nodes.map((n) => n.target.join(' ')).slice(0, 5) })))`,
        )) as unknown[];
        if (result.length > 0) found[`${colorScheme} ${size.width} ${url}`] = result;
        if (shots) {
          fs.mkdirSync(shots, { recursive: true });
          const file = path.join(shots, `${colorScheme}-${size.width}-${url.replace(/[^a-z0-9]+/gi, '-').replace(/^-|-$/g, '')}.png`);
          // The chart's card (the Patterns table's) where there is one; otherwise the first screen.
          const card = page.locator('section[aria-labelledby=over-time], .card:has(table.weekdays):not(section)');
          await ((await card.count()) > 0 ? card.screenshot({ path: file }) : page.screenshot({ path: file }));
        }
      }
    });
  }
  await page.emulateMedia({ colorScheme: 'light' });
  expect(found).toEqual({});
});

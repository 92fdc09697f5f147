/**
 * An attribute's page (/data/<name>) and a pair's (/data/pair/<a>/<b>): the chart draws exactly
 * the days that have a value (a gap in the data is a gap in the line), in the right form for the
 * kind of value, with the median marked and the numbers in a table; the month calendar colours
 * days with a value and leaves the others visibly empty, each linking to its day; correlations
 * and insights are the API's. Pages never show another person's attribute.
 */
import { startTestApp, type TestApp } from '../support/app';
import { makeClient, makeSession, makeToken, makeUser } from '../support/fixtures';
import { PAGE } from '../support/web';
import { escapeHtml } from '../../src/web/html';
import { loadDemoData } from '../../src/demo/demo-data';
import { deriveUser } from '../../src/analytics/derive';
import { setValuesByHand, trackByHand } from '../../src/domain/tracking/manual-tracking';
import { READ_SCOPES } from '../../src/domain/apps-and-grants/scopes';
import { addDays, localDate } from '../../src/domain/time';
import type { User } from '../../src/domain/identity/users';

jest.setTimeout(60_000);

let app: TestApp;
let today: string;

beforeAll(async () => {
  app = await startTestApp();
  today = localDate(new Date(), 'UTC');
});
afterAll(async () => {
  await app.close();
});

async function person(): Promise<{ user: User; session: string }> {
  const { user } = await makeUser(app, { timezone: 'UTC' });
  return { user, session: await makeSession(app, user) };
}

async function trackWith(user: User, request: Parameters<typeof trackByHand>[2], values: Array<[number, number | string]>): Promise<string> {
  const tracked = await trackByHand(app.db, user, request, new Date());
  if (!tracked.ok) throw new Error(tracked.problem);
  const outcomes = await setValuesByHand(
    app.db,
    user,
    values.map(([offset, value]) => ({ name: tracked.name, date: addDays(today, offset), value })),
    new Date(),
  );
  expect(outcomes.every((o) => o.ok)).toBe(true);
  return tracked.name;
}

/** The part of a page from the first chart to its end. */
function chartOf(html: string): string {
  const start = html.indexOf('<svg class="chart"');
  return html.slice(start, html.indexOf('</svg>', start));
}

const drawn = (svg: string) => [...svg.matchAll(/class="(?:point|bar)" data-date="([^"]+)" data-value="([^"]+)"/g)].map((m) => [m[1], Number(m[2])]);

test('a week with a gap draws a gap: one point per day with a value, the line broken where a day has none', async () => {
  const { user, session } = await person();
  await trackWith(user, { template: 'weight' }, [
    [-6, 80],
    [-5, 79.5],
    [-4, 79.8],
    [-2, 79.1],
    [-1, 78.9],
    [0, 79],
  ]);
  const page = await app.get('/data/weight', { ...PAGE, session });
  expect(page.status).toBe(200);
  const svg = chartOf(page.text);
  expect(drawn(svg)).toEqual([
    [addDays(today, -6), 80],
    [addDays(today, -5), 79.5],
    [addDays(today, -4), 79.8],
    [addDays(today, -2), 79.1],
    [addDays(today, -1), 78.9],
    [addDays(today, 0), 79],
  ]);
  // A line (weight is a quantity) in two pieces: one move-to per stretch of days.
  const path = /<path class="line" d="([^"]+)"/.exec(svg)![1];
  expect(path.match(/M/g)).toHaveLength(2);
  // Points to the right are later days; higher points are higher values.
  const xs = [...svg.matchAll(/class="point"[^>]* cx="([\d.]+)" cy="([\d.]+)"/g)].map((m) => [Number(m[1]), Number(m[2])]);
  expect(xs.map(([x]) => x)).toEqual([...xs.map(([x]) => x)].sort((a, b) => a - b));
  expect(xs[0][1]).toBeLessThan(xs[4][1]); // 80 is drawn above 78.9
  // Its text alternative, the median marked, and the numbers as a table.
  expect(svg).toMatch(
    /<title id="[^"]+">Weight, the last 30 days<\/title><desc id="[^"]+">A line of Weight from [\d-]+ to [\d-]+: 6 of 30 days have a value; days without one are left empty\. Median 79\.3\. Average 79\.4\.<\/desc>/,
  );
  expect(svg).toContain('class="mark mark0" data-value="79.3"');
  expect(page.text).toContain('The numbers (6 days with a value)');
  expect(page.text).toContain(`<tr><td><a href="/data?date=${addDays(today, -2)}">${addDays(today, -2)}</a></td><td>79.1</td></tr>`);
  // 30, 90 and 365 days.
  const longer = await app.get('/data/weight?days=365', { ...PAGE, session });
  // A year is drawn by week: the six days are one week, its mean with its lowest and highest day.
  expect(chartOf(longer.text)).toContain('Weight, the last 365 days, by week</title>');
  expect(drawn(chartOf(longer.text))).toEqual([[addDays(today, -6), 79.383]]);
  expect(chartOf(longer.text)).toContain('data-low="78.9" data-high="80" data-days="6"');
});

test('counts are bars, ratings are dots on 1 to 9, times of day are dots on a clock fitted to the times', async () => {
  const { user, session } = await person();
  const cups = await trackWith(user, { label: 'Cups of tea', group: 'food', valueType: 0 }, [
    [-2, 3],
    [0, 5],
  ]);
  await trackWith(user, { template: 'mood' }, [[-1, 6]]);
  await trackWith(user, { template: 'sleep_start' }, [[-1, 690]]);
  const tea = chartOf((await app.get(`/data/${cups}`, { ...PAGE, session })).text);
  expect(tea.match(/class="bar"/g)).toHaveLength(2);
  expect(tea).not.toContain('class="line"');
  const mood = chartOf((await app.get('/data/mood', { ...PAGE, session })).text);
  expect(mood.match(/class="point"/g)).toHaveLength(1);
  expect(mood).not.toContain('class="line"');
  expect([...mood.matchAll(/text-anchor="end">(\d)<\/text>/g)].map((m) => m[1])).toEqual(['1', '3', '5', '7', '9']);
  const bedtime = chartOf((await app.get('/data/sleep_start', { ...PAGE, session })).text);
  expect([...bedtime.matchAll(/text-anchor="end">([\d:]+)<\/text>/g)].map((m) => m[1])).toEqual(['23:00', '23:30', '00:00']);
  expect(bedtime).toContain('Dots on a clock from 23:00 to 00:00');
});

test('the month calendar colours the days with a value, leaves the others visibly empty, and links each day', async () => {
  const { user, session } = await person();
  // This month, unless it has fewer than three days so far (then the month before).
  const month = Number(today.slice(8)) >= 3 ? today.slice(0, 7) : addDays(`${today.slice(0, 7)}-01`, -1).slice(0, 7);
  const first = `${month}-01`;
  const offset = (date: string) => Math.round((Date.parse(date) - Date.parse(today)) / 86_400_000);
  // Values on the 1st (low) and the 2nd (high), none on the 3rd.
  await trackWith(user, { template: 'steps' }, [
    [offset(first), 1000],
    [offset(addDays(first, 1)), 9000],
  ]);
  const page = await app.get(`/data/steps?month=${month}`, { ...PAGE, session });
  const cell = (date: string) => new RegExp(`<td class="([^"]+)" data-date="${date}"><a href="/data\\?date=${date}" aria-label="([^"]+)"`).exec(page.text);
  expect(cell(first)?.[1]).toBe('heat1');
  expect(cell(first)?.[2]).toMatch(/^1 \w+ \d{4}: 1000$/);
  expect(cell(addDays(first, 1))?.[1]).toBe('heat5');
  if (addDays(first, 2) <= today) {
    expect(cell(addDays(first, 2))?.[1]).toBe('empty');
    expect(cell(addDays(first, 2))?.[2]).toMatch(/: no value$/);
  }
  // Every day of the month has its cell, one per day, Monday first.
  const days = new Date(Date.UTC(Number(month.slice(0, 4)), Number(month.slice(5)), 0)).getUTCDate();
  expect(page.text.match(/<td class="(?:heat\d|empty|future)"/g)).toHaveLength(days);
  expect(page.text).toContain('<th scope="col">Mon</th><th scope="col">Tue</th>');
  // The month before, by its link; a month written wrongly is a 400.
  const previous = await app.get(`/data/steps?month=${addDays(first, -1).slice(0, 7)}`, { ...PAGE, session });
  expect(previous.status).toBe(200);
  expect(previous.text).not.toContain('class="heat');
  expect((await app.get('/data/steps?month=2026-13', { ...PAGE, session })).status).toBe(400);
});

test('correlations (strongest first, each opening the pair) and insights are those the API gives', async () => {
  const { user, session } = await person();
  await loadDemoData(app.db, user.id, {
    seed: 11,
    days: 200,
    endDate: today,
    attributes: ['steps', 'sleep', 'mood', 'sleep_start', 'coffees', 'weight'],
    rhythms: false,
  });
  await deriveUser(app.db, user.id, { now: new Date() });
  const { client } = await makeClient(app, user, 'Reader');
  const reader = (await makeToken(app, user, client, [...READ_SCOPES])).access_token;
  const all = (await app.get('/api/2/correlations/?limit=100', { bearer: reader })).body.results as Array<{
    attribute: string;
    attribute2: string;
    second_person: string;
  }>;
  const name = all[0].attribute;
  const mine = all.filter((c) => c.attribute === name || c.attribute2 === name).slice(0, 20);
  const page = await app.get(`/data/${name}`, { ...PAGE, session });
  const listed = [...page.text.matchAll(/<li class="correlation"><a href="\/data\/pair\/([^/]+)\/([^"]+)"><strong>([^<]+)<\/strong>/g)].map((m) => [
    m[1],
    m[2],
  ]);
  expect(listed).toEqual(mine.map((c) => [c.attribute, c.attribute2]));
  const insights = (
    (await app.get('/api/2/insights/?limit=100', { bearer: reader })).body.results as Array<{ text: string; type: { attribute: { name: string } } }>
  )
    .filter((insight) => insight.type.attribute.name === name)
    .slice(0, 20);
  const shown = page.text.slice(page.text.indexOf('<h2 id="insights">'));
  expect([...shown.matchAll(/<li>([^<]+) <span class="muted">/g)].map((m) => m[1])).toEqual(insights.map((i) => escapeHtml(i.text)));

  // The pair page: both series drawn, one scatter dot per day with both values, the correlation with its bar and stars.
  const pair = await app.get(`/data/pair/${all[0].attribute}/${all[0].attribute2}?days=90`, { ...PAGE, session });
  expect(pair.status).toBe(200);
  expect(pair.text.match(/<svg class="chart[ "]/g)!.length).toBe(3);
  const dots = pair.text.match(/class="point" data-date="[^"]+" data-x=/g) ?? [];
  expect(dots.length).toBeGreaterThan(20);
  expect(pair.text).toContain(`The numbers (${dots.length} days)`);
  expect(pair.text).toMatch(/<svg class="rbar"[^>]*aria-label="r = -?\d\.\d\d, /);
  expect(pair.text).toMatch(/Confidence: <span class="stars" role="img" aria-label="\d of 5 stars">/);
});

test('an unknown attribute is a 404; another person’s is unknown; an attribute named like a page is at /data/attributes/<name>', async () => {
  const { user, session } = await person();
  const other = await person();
  await trackWith(other.user, { template: 'mood' }, [[0, 5]]);
  expect((await app.get('/data/mood', { ...PAGE, session })).status).toBe(404);
  expect((await app.get('/data/no_such_thing', { ...PAGE, session })).status).toBe(404);
  expect((await app.get('/data/pair/mood/sleep', { ...PAGE, session })).status).toBe(404);
  const track = await trackWith(user, { label: 'Track', group: 'activity', valueType: 1 }, [[0, 2]]);
  expect(track).toBe('track');
  const page = await app.get('/data/attributes/track', { ...PAGE, session });
  expect([page.status, /<h1>([^<]+)/.exec(page.text)?.[1]]).toEqual([200, 'Track']);
  expect((await app.get('/data/track', { ...PAGE, session })).text).toContain('<h1>Track something by hand</h1>');
  // Your data links each attribute to its page.
  const data = await app.get('/data', { ...PAGE, session });
  expect(data.text).toContain('<a href="/data/attributes/track"><strong>Track</strong></a>');
  const loggedOut = await app.get('/data/weight', PAGE);
  expect([loggedOut.status, loggedOut.headers.get('location')]).toEqual([303, `/login?next=${encodeURIComponent('/data/weight')}`]);
});

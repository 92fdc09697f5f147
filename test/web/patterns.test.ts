/**
 * Patterns (/data/patterns): what the weekly derive found, shown to the person exactly as the API
 * serves it to their apps: the same correlations in the same order (and the same filters), the
 * newest medians of each attribute in people's notation; nothing of anyone else.
 */
import { startTestApp, type TestApp } from '../support/app';
import { makeClient, makeSession, makeToken, makeUser } from '../support/fixtures';
import { PAGE } from '../support/web';
import { loadDemoData } from '../../src/demo/demo-data';
import { deriveUser } from '../../src/analytics/derive';
import { localDate } from '../../src/domain/time';
import { READ_SCOPES } from '../../src/domain/apps-and-grants/scopes';
import { escapeHtml } from '../../src/web/html';
import { formatValue } from '../../src/web/values';
import { roundFor } from '../../src/web/series-view';
import type { User } from '../../src/domain/identity/users';

jest.setTimeout(60_000);

let app: TestApp;
let person: User;
let session: string;
let reader: string;

beforeAll(async () => {
  app = await startTestApp();
  ({ user: person } = await makeUser(app, { timezone: 'UTC' }));
  await loadDemoData(app.db, person.id, {
    seed: 11,
    days: 200,
    endDate: localDate(new Date(), 'UTC'),
    attributes: ['steps', 'sleep', 'mood', 'sleep_start', 'coffees', 'weight'],
    rhythms: false,
  });
  await deriveUser(app.db, person.id, { now: new Date() });
  session = await makeSession(app, person);
  const { client } = await makeClient(app, person, 'Reader');
  reader = (await makeToken(app, person, client, [...READ_SCOPES])).access_token;
});
afterAll(async () => {
  await app.close();
});

const sentences = (page: string) => [...page.matchAll(/<li class="correlation"><a href="[^"]+"><strong>([^<]+)<\/strong>/g)].map((m) => m[1]);
const capitalised = (text: string) => escapeHtml(text.charAt(0).toUpperCase() + text.slice(1));

test.each([
  ['', ''],
  ['?strong=1', '?strong=true'],
  ['?confident=1', '?confident=true'],
])('the correlations of %s are the API’s, in its order', async (pageQuery, apiQuery) => {
  const api = await app.get(`/api/2/correlations/${apiQuery}${apiQuery ? '&' : '?'}limit=100`, { bearer: reader });
  expect(api.status).toBe(200);
  const page = await app.get(`/data/patterns${pageQuery}`, { ...PAGE, session });
  expect(page.status).toBe(200);
  expect(sentences(page.text)).toEqual(api.body.results.map((c: { second_person: string }) => capitalised(c.second_person)));
  if (pageQuery === '') expect(api.body.results.length).toBeGreaterThan(0);
});

test('the newest medians of each attribute, overall and per weekday, as people read them', async () => {
  const api = await app.get('/api/2/averages/?limit=100', { bearer: reader });
  const page = await app.get('/data/patterns', { ...PAGE, session });
  const types = new Map<string, number>(
    (await app.db('attributes').where({ user_id: person.id }).select('name', 'value_type')).map((r) => [r.name, r.value_type]),
  );
  expect(api.body.results.length).toBe(6);
  for (const average of api.body.results as Array<{ attribute: string; overall: number }>) {
    const start = page.text.indexOf(`<tr id="average-${average.attribute}">`);
    expect([average.attribute, start > 0]).toEqual([average.attribute, true]);
    const row = page.text.slice(start, page.text.indexOf('</tr>', start));
    const type = types.get(average.attribute)!;
    expect(row).toContain(`</th><td>${formatValue(type, roundFor(type, average.overall))}</td>`);
  }
  // Bedtime is a time of day: shown as a clock time, not minutes.
  expect(page.text).toMatch(/<tr id="average-sleep_start"><th scope="row"><a href="\/data\/sleep_start">Bedtime<\/a><\/th><td>\d\d:\d\d<\/td>/);
});

test('a person with nothing derived yet is told why; nobody sees another person’s patterns; logged out goes to log in', async () => {
  const { user: other } = await makeUser(app);
  const page = await app.get('/data/patterns', { ...PAGE, session: await makeSession(app, other) });
  expect(page.status).toBe(200);
  expect(page.text).toContain('correlations need at least 30 days');
  expect(page.text).toContain('medians appear after the first weekly computation');
  expect(sentences(page.text)).toEqual([]);
  expect(page.text).not.toContain('average-');
  const loggedOut = await app.get('/data/patterns', PAGE);
  expect([loggedOut.status, loggedOut.headers.get('location')]).toEqual([303, `/login?next=${encodeURIComponent('/data/patterns')}`]);
});

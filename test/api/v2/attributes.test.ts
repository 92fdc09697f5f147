import { startTestApp, type TestApp } from '../../support/app';
import { makeClient, makeSession, makeToken, makeUser } from '../../support/fixtures';
import { addAttribute, addAttributes, addAvailableService, countQueries } from '../../support/seed';
import { MANUAL_SERVICE } from '../../../src/db/catalogue-services';
import type { User } from '../../../src/domain/identity/users';
import type { OAuthClient } from '../../../src/domain/apps-and-grants/clients';

let app: TestApp;
let owner: User;
let ownerToken: string;
let stepCounter: OAuthClient;
let stepCounterToken: string;
let fitSync: OAuthClient;
let manualServicePk: number;

const names = (body: { results: Array<{ name: string }> }) => body.results.map((r) => r.name);

/**
 * The person used by most tests. In list order (group priority, attribute priority, name):
 * steps, active_energy, [floors: inactive], mood (manual), mood_note, sleep, [sodium: low priority],
 * weight (manual), custom, meditation (manual, no template), went_running (custom tag, no template).
 */
beforeAll(async () => {
  app = await startTestApp();
  const made = await makeUser(app);
  owner = made.user;
  ownerToken = made.simpleToken;
  stepCounter = (await makeClient(app, owner, 'Step Counter')).client;
  fitSync = (await makeClient(app, owner, 'FitSync')).client;
  const revokedApp = (await makeClient(app, owner, 'Revoked App')).client;
  const expiredApp = (await makeClient(app, owner, 'Expired App')).client;
  const neverConnected = (await makeClient(app, owner, 'Never Connected')).client;
  stepCounterToken = (await makeToken(app, owner, stepCounter, ['activity_read', 'activity_write'])).access_token;
  await makeToken(app, owner, fitSync, ['activity_write']);
  await makeToken(app, owner, revokedApp, ['activity_write']);
  await app.db('tokens').where({ client_pk: revokedApp.id }).update({ revoked_at: new Date() });
  await makeToken(app, owner, expiredApp, ['activity_write'], new Date('2020-01-01T00:00:00Z'));
  manualServicePk = (await app.db('oauth_clients').where({ client_id: MANUAL_SERVICE.name }).first('id')).id;

  const [steps, , , mood] = await addAttributes(app, owner.id, [
    { name: 'steps', owner: stepCounter.id },
    { name: 'active_energy', owner: fitSync.id },
    { name: 'floors', active: false },
    { name: 'mood', manual: true, owner: manualServicePk },
    { name: 'mood_note', owner: manualServicePk },
    { name: 'sleep' },
    { name: 'sodium' },
    { name: 'weight', manual: true, owner: manualServicePk },
    { name: 'custom' },
    { name: 'meditation', template: null, label: 'Meditation', group: 'health', value_type: 3, priority: 20, manual: true },
    { name: 'went_running', template: null, label: 'went running', group: 'custom', value_type: 0, priority: 2, manual: true },
  ]);
  // Oldest acquisition first; only services still connected (or built in) are listed.
  await addAvailableService(app, owner.id, steps, stepCounter.id, new Date('2026-01-01T00:00:00Z'));
  await addAvailableService(app, owner.id, steps, fitSync.id, new Date('2026-02-01T00:00:00Z'));
  await addAvailableService(app, owner.id, steps, revokedApp.id);
  await addAvailableService(app, owner.id, steps, expiredApp.id);
  await addAvailableService(app, owner.id, steps, neverConnected.id);
  await addAvailableService(app, owner.id, mood, manualServicePk);
});
afterAll(async () => {
  await app.close();
});

const DEFAULT_LIST = ['steps', 'active_energy', 'mood', 'mood_note', 'sleep', 'weight', 'custom', 'went_running'];

describe('GET /api/2/attributes/', () => {
  test('lists the person’s active, normal-priority attributes ordered by group priority, attribute priority, then name', async () => {
    const res = await app.get('/api/2/attributes/', { token: ownerToken });
    expect(res.status).toBe(200);
    expect(res.body.count).toBe(DEFAULT_LIST.length);
    expect(names(res.body)).toEqual(DEFAULT_LIST);
    expect(res.body.next).toBeNull();
    expect(res.body.previous).toBeNull();
  });

  test('each attribute is the spec object with its owning service and the services still connected that can handle it', async () => {
    const res = await app.get('/api/2/attributes/?attributes=steps,mood,sleep,went_running', { token: ownerToken });
    const byName = Object.fromEntries(res.body.results.map((a: { name: string }) => [a.name, a]));
    expect(byName.steps).toEqual({
      template: 'steps',
      name: 'steps',
      label: 'Steps',
      group: { name: 'activity', label: 'Activity', priority: 1 },
      service: { name: stepCounter.client_id, label: 'Step Counter' },
      active: true,
      priority: 1,
      manual: false,
      value_type: 0,
      value_type_description: 'Integer',
      // Revoked, expired and never-connected services are left out.
      available_services: [
        { name: stepCounter.client_id, label: 'Step Counter' },
        { name: fitSync.client_id, label: 'FitSync' },
      ],
    });
    // Built-in services need no token to count as connected.
    expect(byName.mood.service).toEqual({ name: 'daybook', label: 'Daybook' });
    expect(byName.mood.available_services).toEqual([{ name: 'daybook', label: 'Daybook' }]);
    expect(byName.mood.manual).toBe(true);
    expect(byName.sleep.service).toBeNull();
    expect(byName.sleep.available_services).toEqual([]);
    expect(byName.went_running).toMatchObject({ template: null, group: { name: 'custom', label: 'Custom tags', priority: 16 }, priority: 2 });
  });

  test('groups keeps the named groups; an unknown group is an empty list, not an error', async () => {
    expect(names((await app.get('/api/2/attributes/?groups=mood,activity', { token: ownerToken })).body)).toEqual([
      'steps',
      'active_energy',
      'mood',
      'mood_note',
    ]);
    const unknown = await app.get('/api/2/attributes/?groups=astrology', { token: ownerToken });
    expect(unknown.status).toBe(200);
    expect(unknown.body).toEqual({ count: 0, next: null, previous: null, results: [] });
  });

  test('attributes keeps the named attributes; unknown names match nothing', async () => {
    const res = await app.get('/api/2/attributes/?attributes=sleep,steps,nonexistent', { token: ownerToken });
    expect(names(res.body)).toEqual(['steps', 'sleep']);
    expect(res.body.count).toBe(2);
    expect((await app.get('/api/2/attributes/?attributes=nonexistent', { token: ownerToken })).body.count).toBe(0);
  });

  test('an inactive or low-priority attribute named in attributes is listed, as with-values lists it (one rule)', async () => {
    const listed = await app.get('/api/2/attributes/?attributes=floors,sodium,steps', { token: ownerToken });
    expect(names(listed.body)).toEqual(['steps', 'floors', 'sodium']);
    expect(listed.body.results[1]).toMatchObject({ name: 'floors', active: false });
    const withValues = await app.get('/api/2/attributes/with-values/?attributes=floors,sodium,steps', { token: ownerToken });
    expect(names(withValues.body)).toEqual(names(listed.body));
    // The flags still do it for the unnamed list; naming a hidden attribute does not bring back the others.
    expect(names((await app.get('/api/2/attributes/?attributes=floors', { token: ownerToken })).body)).toEqual(['floors']);
    expect(names((await app.get('/api/2/attributes/?groups=activity,food', { token: ownerToken })).body)).toEqual(['steps', 'active_energy']);
  });

  test('exclude_custom=true drops every attribute created without a template', async () => {
    const res = await app.get('/api/2/attributes/?exclude_custom=true&include_low_priority=true', { token: ownerToken });
    expect(names(res.body)).toEqual(['steps', 'active_energy', 'mood', 'mood_note', 'sleep', 'sodium', 'weight', 'custom']);
    expect(names((await app.get('/api/2/attributes/?exclude_custom=false', { token: ownerToken })).body)).toEqual(DEFAULT_LIST);
  });

  test('manual=true lists only manual attributes, manual=false leaves them out, absent lists both', async () => {
    expect(names((await app.get('/api/2/attributes/?manual=true', { token: ownerToken })).body)).toEqual(['mood', 'weight', 'went_running']);
    expect(names((await app.get('/api/2/attributes/?manual=1', { token: ownerToken })).body)).toEqual(['mood', 'weight', 'went_running']);
    expect(names((await app.get('/api/2/attributes/?manual=false', { token: ownerToken })).body)).toEqual([
      'steps',
      'active_energy',
      'mood_note',
      'sleep',
      'custom',
    ]);
    expect(names((await app.get('/api/2/attributes/?manual=0', { token: ownerToken })).body)).toEqual([
      'steps',
      'active_energy',
      'mood_note',
      'sleep',
      'custom',
    ]);
  });

  test('include_inactive adds attributes with active false', async () => {
    const res = await app.get('/api/2/attributes/?include_inactive=true', { token: ownerToken });
    expect(names(res.body)).toEqual(['steps', 'active_energy', 'floors', ...DEFAULT_LIST.slice(2)]);
    expect(res.body.results[2]).toMatchObject({ name: 'floors', active: false });
  });

  test('include_low_priority adds attributes of priority 10 and more', async () => {
    const res = await app.get('/api/2/attributes/?include_low_priority=true', { token: ownerToken });
    expect(names(res.body)).toEqual(['steps', 'active_energy', 'mood', 'mood_note', 'sleep', 'sodium', 'weight', 'meditation', 'custom', 'went_running']);
  });

  test('filters combine: groups, manual, include flags and exclude_custom together', async () => {
    const manualHealth = await app.get('/api/2/attributes/?groups=health,mood&manual=true&include_low_priority=true', { token: ownerToken });
    expect(names(manualHealth.body)).toEqual(['mood', 'weight', 'meditation']);
    const templatedManualHealth = await app.get('/api/2/attributes/?groups=health,mood&manual=true&include_low_priority=true&exclude_custom=true', {
      token: ownerToken,
    });
    expect(names(templatedManualHealth.body)).toEqual(['mood', 'weight']);
    const everything = await app.get('/api/2/attributes/?include_inactive=1&include_low_priority=1&groups=activity,food&attributes=floors,sodium,steps', {
      token: ownerToken,
    });
    expect(names(everything.body)).toEqual(['steps', 'floors', 'sodium']);
    expect(everything.body.count).toBe(3);
  });

  test('owned=true keeps what the calling client owns; a simple token or a session owns nothing', async () => {
    const res = await app.get('/api/2/attributes/?owned=true', { bearer: stepCounterToken });
    expect(names(res.body)).toEqual(['steps']);
    expect(res.body.results[0].available_services).toHaveLength(2);
    expect((await app.get('/api/2/attributes/?owned=false', { bearer: stepCounterToken })).body.count).toBe(2); // activity_read: steps, active_energy
    expect((await app.get('/api/2/attributes/?owned=true', { token: ownerToken })).body).toEqual({ count: 0, next: null, previous: null, results: [] });
    const session = await makeSession(app, owner);
    expect((await app.get('/api/2/attributes/?owned=true', { session })).body.count).toBe(0);
  });

  test('a session sees the same list as the simple token', async () => {
    const session = await makeSession(app, owner);
    const res = await app.get('/api/2/attributes/?include_inactive=true&include_low_priority=true', { session });
    expect(res.body.count).toBe(11);
  });

  test('another person’s attributes never appear', async () => {
    const other = await makeUser(app);
    await addAttribute(app, other.user.id, { name: 'coffees' });
    const mine = await app.get('/api/2/attributes/?include_inactive=true&include_low_priority=true', { token: ownerToken });
    expect(names(mine.body)).not.toContain('coffees');
    const theirs = await app.get('/api/2/attributes/?include_inactive=true&include_low_priority=true', { token: other.simpleToken });
    expect(names(theirs.body)).toEqual(['coffees']);
    expect((await app.get('/api/2/attributes/?attributes=steps', { token: other.simpleToken })).body.count).toBe(0);
  });

  test('is one SQL query for the list, whatever the page size', async () => {
    const small = await countQueries(app, () => app.get('/api/2/attributes/?limit=1&include_low_priority=1', { token: ownerToken }), /from "?attributes"? /);
    const large = await countQueries(app, () => app.get('/api/2/attributes/?limit=100&include_low_priority=1', { token: ownerToken }), /from "?attributes"? /);
    expect(small.result.body.results).toHaveLength(1);
    expect(large.result.body.results).toHaveLength(10);
    expect(small.queries).toBe(1);
    expect(large.queries).toBe(1);
  });
});

describe('paging /api/2/attributes/', () => {
  let pagedToken: string;
  const TAGS = Array.from({ length: 130 }, (_, i) => `tag${String(i + 1).padStart(3, '0')}`);

  beforeAll(async () => {
    const made = await makeUser(app);
    pagedToken = made.simpleToken;
    await app
      .db('attributes')
      .insert(
        TAGS.map((name) => ({ user_id: made.user.id, name, label: name, template_name: null, group_name: 'custom', value_type: 0, priority: 2, manual: true })),
      );
  });

  test('the first page has next (keeping the other parameters) and no previous', async () => {
    const res = await app.get('/api/2/attributes/?groups=custom&limit=50', { token: pagedToken });
    expect(res.body.count).toBe(130);
    expect(names(res.body)).toEqual(TAGS.slice(0, 50));
    expect(res.body.previous).toBeNull();
    const next = new URL(res.body.next);
    expect(`${next.origin}${next.pathname}`).toBe(`${app.baseUrl}/api/2/attributes/`);
    expect(Object.fromEntries(next.searchParams)).toEqual({ groups: 'custom', limit: '50', page: '2' });
  });

  test('the last page has previous and no next', async () => {
    const res = await app.get('/api/2/attributes/?limit=50&page=3', { token: pagedToken });
    expect(res.status).toBe(200);
    expect(names(res.body)).toEqual(TAGS.slice(100));
    expect(res.body.next).toBeNull();
    expect(Object.fromEntries(new URL(res.body.previous).searchParams)).toEqual({ limit: '50', page: '2' });
  });

  test('a page past the end is 404 Invalid page; page 1 of an empty result is 200 with count 0', async () => {
    const past = await app.get('/api/2/attributes/?limit=50&page=4', { token: pagedToken });
    expect(past.status).toBe(404);
    expect(past.body).toEqual({ detail: 'Invalid page.' });
    expect((await app.get('/api/2/attributes/?page=99999999999999999999', { token: pagedToken })).status).toBe(404);
    const empty = await app.get('/api/2/attributes/?groups=sleep', { token: pagedToken });
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({ count: 0, next: null, previous: null, results: [] });
    expect((await app.get('/api/2/attributes/?groups=sleep&page=2', { token: pagedToken })).status).toBe(404);
  });

  test('limit defaults to 20 and a limit over 100 is treated as 100', async () => {
    expect((await app.get('/api/2/attributes/', { token: pagedToken })).body.results).toHaveLength(20);
    const res = await app.get('/api/2/attributes/?limit=1000', { token: pagedToken });
    expect(res.body.results).toHaveLength(100);
    expect(new URL(res.body.next).searchParams.get('limit')).toBe('1000');
    expect(names((await app.get(new URL(res.body.next).pathname + new URL(res.body.next).search, { token: pagedToken })).body)).toEqual(TAGS.slice(100));
  });

  test('walking every page with an odd limit lists each attribute exactly once, in order', async () => {
    const seen: string[] = [];
    for (let page = 1; page <= 10; page++) {
      const res = await app.get(`/api/2/attributes/?limit=13&page=${page}`, { token: pagedToken });
      expect(res.status).toBe(200);
      seen.push(...names(res.body));
    }
    expect(seen).toEqual(TAGS);
  });
});

describe('the text of /api/2/attributes/', () => {
  // Every character JSON escapes, and some it does not: quotes, backslashes, control characters,
  // DEL, the line and paragraph separators, accents, a character beyond the BMP, markup.
  const HOSTILE = 'He said "hi" \\ \b\f\n\r\t \u0001\u001f\u007f \u2028\u2029 é 😀 </script> {"x":1}';

  test('is the text JSON.stringify writes for the same answer, whatever the labels and names hold', async () => {
    const made = await makeUser(app);
    const odd = (await makeClient(app, made.user, `App ${HOSTILE}`)).client;
    await makeToken(app, made.user, odd, ['activity_write']);
    const [first] = await addAttributes(app, made.user.id, [
      { name: 'odd_one', template: null, label: HOSTILE, group: 'activity', value_type: 2, priority: 1, owner: odd.id },
      { name: `odd "two" \\ é`, template: null, label: '', group: 'custom', value_type: 0, priority: 2, manual: true },
    ]);
    await addAvailableService(app, made.user.id, first, odd.id);
    for (const path of ['/api/2/attributes/', '/api/2/attributes/?limit=1', '/api/2/attributes/?limit=1&page=2']) {
      const res = await app.get(path, { token: made.simpleToken });
      expect(res.status).toBe(200);
      expect(res.text).toBe(JSON.stringify(res.body));
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(Number(res.headers.get('content-length'))).toBe(Buffer.byteLength(res.text));
    }
    const all = await app.get('/api/2/attributes/', { token: made.simpleToken });
    expect(all.body.results[0]).toMatchObject({ label: HOSTILE, service: { name: odd.client_id, label: `App ${HOSTILE}` } });
    expect(all.body.results[0].available_services).toEqual([{ name: odd.client_id, label: `App ${HOSTILE}` }]);
    expect(all.body.results[1]).toMatchObject({ name: `odd "two" \\ é`, label: '' });
  });
});

describe('bad parameters of /api/2/attributes/', () => {
  test.each([
    ['page=0', 'page'],
    ['page=-1', 'page'],
    ['page=abc', 'page'],
    ['limit=0', 'limit'],
    ['limit=ten', 'limit'],
    ['manual=yes', 'manual'],
    ['owned=2', 'owned'],
    ['include_inactive=maybe', 'include_inactive'],
    ['include_low_priority=on', 'include_low_priority'],
    ['exclude_custom=', 'exclude_custom'],
  ])('%s is 400 with the error body naming the parameter', async (query, name) => {
    const { simpleToken } = await makeUser(app);
    const res = await app.get(`/api/2/attributes/?${query}`, { token: simpleToken });
    expect(res.status).toBe(400);
    expect(res.body.detail).toEqual(expect.stringContaining(name));
    expect(res.body.errors).toEqual([expect.objectContaining({ in: 'query', name })]);
  });

  test('a repeated parameter is 400, unknown parameters are ignored', async () => {
    expect((await app.get('/api/2/attributes/?groups=mood&groups=sleep', { token: ownerToken })).status).toBe(400);
    expect((await app.get('/api/2/attributes/?colour=blue', { token: ownerToken })).status).toBe(200);
  });
});

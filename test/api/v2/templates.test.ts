import { startTestApp, type TestApp } from '../../support/app';
import { makeClient, makeToken, makeUser } from '../../support/fixtures';
import { GROUPS } from '../../../src/db/catalogue-groups';
import { LOW_PRIORITY, TEMPLATES, type TemplateDef } from '../../../src/db/catalogue-templates';
import { VALUE_TYPE_DESCRIPTIONS } from '../../../src/db/catalogue-value-types';

let app: TestApp;
let simpleToken: string;

beforeAll(async () => {
  app = await startTestApp();
  ({ simpleToken } = await makeUser(app));
});
afterAll(async () => {
  await app.close();
});

const groupPriority = new Map(GROUPS.map((g) => [g.name as string, g.priority]));

/** The documented order: group priority, template priority, name. */
function inListOrder(templates: readonly TemplateDef[]): string[] {
  return [...templates]
    .sort((a, b) => groupPriority.get(a.group)! - groupPriority.get(b.group)! || a.priority - b.priority || (a.name < b.name ? -1 : 1))
    .map((t) => t.name);
}

const names = (body: { results: Array<{ name: string }> }) => body.results.map((r) => r.name);

describe('GET /api/2/attributes/templates/', () => {
  test('lists the catalogue without low-priority templates, ordered by group priority, template priority, then name', async () => {
    const res = await app.get('/api/2/attributes/templates/?limit=100', { token: simpleToken });
    expect(res.status).toBe(200);
    const expected = inListOrder(TEMPLATES.filter((t) => t.priority < LOW_PRIORITY));
    expect(res.body.count).toBe(expected.length);
    expect(names(res.body)).toEqual(expected);
    expect(res.body.next).toBeNull();
    expect(res.body.previous).toBeNull();
  });

  test('each template is the spec object: name, label, group, priority, value_type and its description', async () => {
    const res = await app.get('/api/2/attributes/templates/?groups=sleep', { token: simpleToken });
    expect(res.body.results[0]).toEqual({
      name: 'sleep',
      label: 'Time asleep',
      group: { name: 'sleep', label: 'Sleep', priority: 4 },
      priority: 1,
      value_type: 3,
      value_type_description: VALUE_TYPE_DESCRIPTIONS[3],
    });
  });

  test('include_low_priority adds the templates of priority 10 and more', async () => {
    for (const flag of ['true', '1', 'TRUE']) {
      const res = await app.get(`/api/2/attributes/templates/?limit=100&include_low_priority=${flag}`, { token: simpleToken });
      expect(res.body.count).toBe(TEMPLATES.length);
      expect(names(res.body)).toEqual(inListOrder(TEMPLATES));
    }
    const off = await app.get('/api/2/attributes/templates/?limit=100&include_low_priority=0', { token: simpleToken });
    expect(names(off.body)).not.toContain('sodium');
  });

  test('groups keeps only the named groups, and combines with include_low_priority', async () => {
    const res = await app.get('/api/2/attributes/templates/?groups=food,weather', { token: simpleToken });
    expect(names(res.body)).toEqual(inListOrder(TEMPLATES.filter((t) => ['food', 'weather'].includes(t.group) && t.priority < LOW_PRIORITY)));
    const all = await app.get('/api/2/attributes/templates/?groups=food&include_low_priority=true', { token: simpleToken });
    expect(names(all.body)).toEqual(inListOrder(TEMPLATES.filter((t) => t.group === 'food')));
    expect(names(all.body)).toEqual(expect.arrayContaining(['sodium', 'cholesterol']));
  });

  test('an unknown group name is an empty list, not an error; an empty groups is no filter', async () => {
    const res = await app.get('/api/2/attributes/templates/?groups=astrology', { token: simpleToken });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ count: 0, next: null, previous: null, results: [] });
    const mixed = await app.get('/api/2/attributes/templates/?groups=astrology,mood', { token: simpleToken });
    expect(names(mixed.body)).toEqual(['mood', 'mood_note']);
    const empty = await app.get('/api/2/attributes/templates/?groups=', { token: simpleToken });
    expect(empty.body.count).toBe(TEMPLATES.filter((t) => t.priority < LOW_PRIORITY).length);
  });

  test('is never filtered by scope: a token with only mood_read sees every group', async () => {
    const { user } = await makeUser(app);
    const { client } = await makeClient(app, user);
    const token = await makeToken(app, user, client, ['mood_read']);
    const res = await app.get('/api/2/attributes/templates/?groups=activity', { bearer: token.access_token });
    expect(res.status).toBe(200);
    expect(names(res.body)).toContain('steps');
  });

  test('pages: next and previous are absolute URLs keeping the other parameters; past the end is 404', async () => {
    const total = TEMPLATES.filter((t) => t.group === 'productivity').length; // 10, one of them low priority
    const first = await app.get('/api/2/attributes/templates/?groups=productivity&include_low_priority=true&limit=4', { token: simpleToken });
    expect(first.body.count).toBe(total);
    expect(first.body.previous).toBeNull();
    const next = new URL(first.body.next);
    expect(next.origin).toBe(app.baseUrl);
    expect(next.pathname).toBe('/api/2/attributes/templates/');
    expect(Object.fromEntries(next.searchParams)).toEqual({ groups: 'productivity', include_low_priority: 'true', limit: '4', page: '2' });

    const last = await app.get('/api/2/attributes/templates/?groups=productivity&include_low_priority=true&limit=4&page=3', { token: simpleToken });
    expect(last.status).toBe(200);
    expect(last.body.results).toHaveLength(total - 8);
    expect(last.body.next).toBeNull();
    expect(new URL(last.body.previous).searchParams.get('page')).toBe('2');

    const past = await app.get('/api/2/attributes/templates/?groups=productivity&include_low_priority=true&limit=4&page=4', { token: simpleToken });
    expect(past.status).toBe(404);
    expect(past.body).toEqual({ detail: 'Invalid page.' });
  });

  test('walking every page with a small limit lists each template exactly once', async () => {
    const seen: string[] = [];
    let path: string | null = '/api/2/attributes/templates/?include_low_priority=true&limit=7';
    while (path) {
      const res: { status: number; body: { next: string | null; results: Array<{ name: string }> } } = await app.get(path, { token: simpleToken });
      expect(res.status).toBe(200);
      seen.push(...names(res.body));
      path = res.body.next ? new URL(res.body.next).pathname + new URL(res.body.next).search : null;
    }
    expect(seen).toEqual(inListOrder(TEMPLATES));
  });

  test('a limit over 100 is treated as 100', async () => {
    const res = await app.get('/api/2/attributes/templates/?include_low_priority=true&limit=5000', { token: simpleToken });
    expect(res.status).toBe(200);
    expect(res.body.results).toHaveLength(Math.min(TEMPLATES.length, 100));
  });

  test.each([
    ['page=0', 'page'],
    ['page=two', 'page'],
    ['limit=0', 'limit'],
    ['limit=2.5', 'limit'],
    ['include_low_priority=yes', 'include_low_priority'],
  ])('%s is 400 naming the parameter', async (query, name) => {
    const res = await app.get(`/api/2/attributes/templates/?${query}`, { token: simpleToken });
    expect(res.status).toBe(400);
    expect(res.body.detail).toContain(name);
    expect(res.body.errors).toEqual([expect.objectContaining({ in: 'query', name })]);
  });

  test('needs credentials', async () => {
    expect((await app.get('/api/2/attributes/templates/')).status).toBe(401);
  });
});

/** The spec's ownership state table, row by row. */
import { startTestApp, type TestApp } from '../../../support/app';
import { makeClient, makeToken } from '../../../support/fixtures';
import { writer } from './setup';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

const post = (path: string, bearer: string, json: unknown[]) => app.post(`/api/2/attributes/${path}`, { bearer, json });

async function ownerOf(userId: number, name: string): Promise<{ owner: string | null; active: boolean }> {
  const row = await app
    .db('attributes as a')
    .leftJoin('oauth_clients as c', 'c.id', 'a.owner_client_pk')
    .where({ 'a.user_id': userId, 'a.name': name })
    .first('c.client_id', 'a.active');
  return { owner: row.client_id ?? null, active: row.active };
}

test('acquire with a template the user lacks creates the attribute, owned by the caller, answering {name, active}', async () => {
  const w = await writer(app);
  const res = await post('acquire/', w.a, [{ template: 'steps' }]);
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ success: [{ name: 'steps', active: true }], failed: [] });
  expect(await ownerOf(w.user.id, 'steps')).toEqual({ owner: w.clientA.client_id, active: true });
});

test('acquire with success_objects answers the full attribute object', async () => {
  const w = await writer(app);
  const res = await app.post('/api/2/attributes/acquire/?success_objects=1', { bearer: w.a, json: [{ template: 'sleep', manual: true }] });
  expect(res.body.success[0]).toMatchObject({
    template: 'sleep',
    name: 'sleep',
    group: { name: 'sleep' },
    service: { name: w.clientA.client_id, label: 'Service A' },
    active: true,
    manual: true,
    value_type: 3,
    available_services: [{ name: w.clientA.client_id, label: 'Service A' }],
  });
});

test('acquire with a name takes ownership from another service without approval, and the new owner may write', async () => {
  const w = await writer(app);
  await post('acquire/', w.a, [{ template: 'weight' }]);
  const res = await post('acquire/', w.b, [{ name: 'weight' }]);
  expect(res.body.success).toEqual([{ name: 'weight', active: true }]);
  expect((await ownerOf(w.user.id, 'weight')).owner).toBe(w.clientB.client_id);
  expect((await post('update/', w.b, [{ name: 'weight', date: '2026-11-01', value: 70 }])).status).toBe(200);
  expect((await post('update/', w.a, [{ name: 'weight', date: '2026-11-01', value: 71 }])).body.failed[0].error_code).toBe('unauthorised');
});

test('acquire with a name takes an attribute owned by nobody and makes it active again', async () => {
  const w = await writer(app);
  await post('acquire/', w.a, [{ template: 'floors' }]);
  await post('release/', w.a, [{ name: 'floors' }]);
  expect(await ownerOf(w.user.id, 'floors')).toEqual({ owner: null, active: false });
  const res = await post('acquire/', w.b, [{ name: 'floors' }]);
  expect(res.body.success).toEqual([{ name: 'floors', active: true }]);
  expect(await ownerOf(w.user.id, 'floors')).toEqual({ owner: w.clientB.client_id, active: true });
});

test('acquiring what the caller already owns succeeds again; the manual flag is set when sent', async () => {
  const w = await writer(app);
  await post('acquire/', w.a, [{ template: 'coffees' }]);
  const again = await post('acquire/', w.a, [{ template: 'coffees', manual: true }, { name: 'coffees' }]);
  expect(again.status).toBe(200);
  expect((await app.db('attributes').where({ user_id: w.user.id, name: 'coffees' }).first('manual')).manual).toBe(true);
});

test('acquire fails per item: unknown template or name is not_found, neither field is missing_field, a group outside the write scopes is forbidden_scope', async () => {
  const w = await writer(app, ['activity_write']);
  const res = await post('acquire/', w.a, [
    { template: 'no_such' },
    { name: 'no_such' },
    { manual: true },
    { template: 'mood' },
    { template: 7 },
    { template: 'steps' },
  ]);
  expect(res.status).toBe(202);
  expect(res.body.success).toEqual([{ name: 'steps', active: true }]);
  expect(res.body.failed.map((f: { error_code: string }) => f.error_code)).toEqual([
    'not_found',
    'not_found',
    'missing_field',
    'forbidden_scope',
    'invalid_type',
  ]);
  expect(res.body.failed[2].error).toBe('Item 2 is missing required fields: template or name.');
  expect(await app.db('attributes').where({ user_id: w.user.id, name: 'mood' }).first()).toBeUndefined();
});

test('release by the owner hands the attribute to another connected service that handled it before', async () => {
  const w = await writer(app);
  await post('acquire/', w.b, [{ template: 'sleep' }]); // B can handle sleep
  await post('acquire/', w.a, [{ name: 'sleep' }]);
  const res = await post('release/', w.a, [{ name: 'sleep' }]);
  expect(res.body).toEqual({ success: [{ name: 'sleep' }], failed: [] });
  expect(await ownerOf(w.user.id, 'sleep')).toEqual({ owner: w.clientB.client_id, active: true });
});

test('release picks the most recently connected of several able services', async () => {
  const w = await writer(app);
  const { client: clientC } = await makeClient(app, w.user, 'Service C');
  await post('acquire/', w.b, [{ template: 'mood' }]);
  const c = (await makeToken(app, w.user, clientC, ['mood_write'])).access_token;
  await post('acquire/', c, [{ name: 'mood' }]);
  await post('acquire/', w.a, [{ name: 'mood' }]);
  await post('release/', w.a, [{ name: 'mood' }]);
  expect((await ownerOf(w.user.id, 'mood')).owner).toBe(clientC.client_id);
});

test('a service whose tokens were revoked is not connected and does not take over', async () => {
  const w = await writer(app);
  await post('acquire/', w.b, [{ template: 'steps' }]);
  await post('acquire/', w.a, [{ name: 'steps' }]);
  await app.db('tokens').where({ user_id: w.user.id, client_pk: w.clientB.id }).update({ revoked_at: new Date() });
  await post('release/', w.a, [{ name: 'steps' }]);
  expect(await ownerOf(w.user.id, 'steps')).toEqual({ owner: null, active: false });
});

test('a service that released an attribute is no longer among its available services, so it never gets it back on another release', async () => {
  const w = await writer(app);
  await post('acquire/', w.a, [{ template: 'sleep' }]);
  await post('acquire/', w.b, [{ name: 'sleep' }]); // A and B can both handle sleep; B owns it
  await post('acquire/', w.a, [{ name: 'sleep' }]);
  await post('release/', w.a, [{ name: 'sleep' }]); // A gives it up: B takes over
  expect(await ownerOf(w.user.id, 'sleep')).toEqual({ owner: w.clientB.client_id, active: true });
  const listed = await app.get('/api/2/attributes/?groups=sleep', { bearer: w.b });
  expect(listed.body.results.find((a: { name: string }) => a.name === 'sleep').available_services).toEqual([{ name: w.clientB.client_id, label: 'Service B' }]);
  await post('release/', w.b, [{ name: 'sleep' }]); // nobody else can handle it now: A does not get it back
  expect(await ownerOf(w.user.id, 'sleep')).toEqual({ owner: null, active: false });
  await post('acquire/', w.a, [{ name: 'sleep' }]); // acquiring again makes A able again
  expect(await app.db('attribute_services').where({ user_id: w.user.id, client_pk: w.clientA.id }).count({ n: '*' })).toEqual([{ n: 1 }]);
});

test('release by the owner with no other able service makes the attribute inactive', async () => {
  const w = await writer(app);
  await post('acquire/', w.a, [{ template: 'water' }]);
  await post('release/', w.a, [{ name: 'water' }]);
  expect(await ownerOf(w.user.id, 'water')).toEqual({ owner: null, active: false });
});

test('release by a service that does not own the attribute fails with unauthorised and changes nothing', async () => {
  const w = await writer(app);
  await post('acquire/', w.a, [{ template: 'steps' }]);
  const res = await post('release/', w.b, [{ name: 'steps' }]);
  expect(res.status).toBe(202);
  expect(res.body.failed).toEqual([{ name: 'steps', error: 'Attribute steps does not belong to this service.', error_code: 'unauthorised' }]);
  expect(await ownerOf(w.user.id, 'steps')).toEqual({ owner: w.clientA.client_id, active: true });
  const missing = await post('release/', w.a, [{}, { name: 'nothing' }]);
  expect(missing.body.failed.map((f: { error_code: string }) => f.error_code)).toEqual(['missing_field', 'not_found']);
});

test('two services acquiring one attribute at once end with exactly one owner', async () => {
  const w = await writer(app);
  await post('acquire/', w.a, [{ template: 'cycle_distance' }]);
  await post('release/', w.a, [{ name: 'cycle_distance' }]);
  const answers = await Promise.all([post('acquire/', w.a, [{ name: 'cycle_distance' }]), post('acquire/', w.b, [{ name: 'cycle_distance' }])]);
  expect(answers.map((r) => r.status)).toEqual([200, 200]);
  const owner = (await ownerOf(w.user.id, 'cycle_distance')).owner;
  expect([w.clientA.client_id, w.clientB.client_id]).toContain(owner);
  // Exactly one of them can write now.
  const writes = await Promise.all([w.a, w.b].map((bearer) => post('update/', bearer, [{ name: 'cycle_distance', date: '2026-11-01', value: 3 }])));
  expect(writes.map((r) => r.status).sort()).toEqual([200, 202]);
});

test('many services acquiring a template at once create it once', async () => {
  const w = await writer(app);
  const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => post('acquire/', i % 2 ? w.a : w.b, [{ template: 'cycle_min' }])));
  expect(answers.every((r) => r.status === 200)).toBe(true);
  expect(await app.db('attributes').where({ user_id: w.user.id, name: 'cycle_min' }).count({ n: '*' })).toEqual([{ n: 1 }]);
});

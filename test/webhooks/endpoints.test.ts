/**
 * Webhook endpoints over the API with the app's client credentials (HTTP Basic), and the URL
 * safety rules (docs/webhooks.md).
 */
import { startTestApp, type TestApp } from '../support/app';
import { makeClient, makeToken, makeUser } from '../support/fixtures';
import { registerApp } from '../support/web';
import { addressProblem, endpointUrlProblem, urlProblem } from '../../src/domain/webhooks/url-safety';
import type { OAuthClient } from '../../src/domain/apps-and-grants/clients';

let app: TestApp;
let client: OAuthClient;
let secret: string;
let auth: Record<string, string>;

beforeAll(async () => {
  app = await startTestApp();
  const { user } = await makeUser(app);
  ({ client, secret } = (await makeClient(app, user, 'Hooked')) as { client: OAuthClient; secret: string });
  auth = basic(client, secret);
});
afterAll(async () => {
  await app.close();
});

function basic(c: OAuthClient, s: string): Record<string, string> {
  return { Authorization: `Basic ${Buffer.from(`${c.client_id}:${s}`).toString('base64')}` };
}

const count = async () => Number((await app.db('webhook_endpoints').where({ client_pk: client.id }).count<{ count: string }[]>({ count: '*' }))[0].count);

test('an app creates an endpoint, sees its secret once, lists, changes, rotates and deletes it', async () => {
  const created = await app.post('/api/2/webhooks/', { headers: auth, json: { url: 'http://127.0.0.1:9/hooks', events: ['values.updated', 'grant.revoked'] } });
  expect(created.status).toBe(201);
  expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
  expect(created.body).toMatchObject({ url: 'http://127.0.0.1:9/hooks', events: ['values.updated', 'grant.revoked'], enabled: true, disabled_reason: null });
  const id = created.body.id as string;

  const listed = await app.get('/api/2/webhooks/', { headers: auth });
  expect(listed.status).toBe(200);
  expect(listed.body.count).toBe(1);
  const { secret: shown, ...view } = created.body;
  expect(listed.body.results[0]).toEqual(view);
  expect(JSON.stringify(listed.body)).not.toContain(shown);

  const changed = await app.post(`/api/2/webhooks/${id}/`, { headers: auth, json: { events: ['derived.updated'] } });
  expect(changed.status).toBe(200);
  expect(changed.body.events).toEqual(['derived.updated']);
  expect((await app.get(`/api/2/webhooks/${id}/`, { headers: auth })).body.events).toEqual(['derived.updated']);

  const rotated = await app.post(`/api/2/webhooks/${id}/rotate-secret/`, { headers: auth });
  expect(rotated.status).toBe(200);
  expect(rotated.body.secret).not.toBe(created.body.secret);
  const stored = await app.db('webhook_endpoints').where({ public_id: id }).first();
  expect(stored.previous_secret).toBe(created.body.secret);

  const deleted = await app.request('DELETE', `/api/2/webhooks/${id}/`, { headers: auth });
  expect(deleted.status).toBe(204);
  expect((await app.get(`/api/2/webhooks/${id}/`, { headers: auth })).status).toBe(404);
  expect(await count()).toBe(0);
});

test('bad input is 400 with a detail and creates nothing', async () => {
  const cases: unknown[] = [
    { url: 'http://127.0.0.1:9/hooks', events: [] },
    { url: 'http://127.0.0.1:9/hooks', events: ['values.deleted'] },
    { url: 'not a url', events: ['values.updated'] },
    { url: 'http://example.org/hooks', events: ['values.updated'] },
    { url: 'https://user:pw@example.org/hooks', events: ['values.updated'] },
    { events: ['values.updated'] },
    { url: 'http://127.0.0.1:9/hooks', events: ['values.updated'], extra: 1 },
  ];
  for (const json of cases) {
    const res = await app.post('/api/2/webhooks/', { headers: auth, json });
    expect({ json, status: res.status }).toEqual({ json, status: 400 });
    expect(typeof res.body.detail).toBe('string');
  }
  expect(await count()).toBe(0);
});

test('URLs that are or resolve to link-local or reserved addresses are refused, and private ones without WEBHOOK_ALLOW_PRIVATE_URLS', async () => {
  // This app has WEBHOOK_ALLOW_PRIVATE_URLS=1 (test/support/app.ts): link-local and reserved stay refused.
  for (const url of ['https://169.254.169.254/latest/meta-data/', 'https://[::ffff:169.254.169.254]/', 'https://[fe80::1]/', 'https://0.0.0.0/']) {
    const res = await app.post('/api/2/webhooks/', { headers: auth, json: { url, events: ['values.updated'] } });
    expect({ url, status: res.status }).toEqual({ url, status: 400 });
  }
  expect(await count()).toBe(0);
  for (const url of ['https://10.1.2.3/hooks', 'https://192.168.1.1/', 'https://[fd00::1]/', 'https://[::ffff:10.0.0.1]/', 'https://100.64.0.1/']) {
    expect({ url, problem: await endpointUrlProblem(url, false) }).toEqual({ url, problem: expect.stringMatching(/private/) });
    expect(await endpointUrlProblem(url, true)).toBeUndefined();
  }
  // A name is judged by what it resolves to: localhost is loopback.
  expect(await endpointUrlProblem('https://localhost/hooks', false)).toMatch(/loopback/);
  expect(await endpointUrlProblem('https://localhost/hooks', true)).toBeUndefined();
});

test('loopback is refused without WEBHOOK_ALLOW_PRIVATE_URLS and allowed with it; public addresses are allowed', () => {
  expect(urlProblem('http://127.0.0.1:8080/hooks', false)).toMatch(/loopback/);
  expect(urlProblem('http://[::1]:8080/hooks', false)).toMatch(/loopback/);
  expect(urlProblem('http://127.0.0.1:8080/hooks', true)).toBeUndefined();
  expect(addressProblem('::ffff:127.0.0.1', false)).toMatch(/loopback/);
  expect(addressProblem('93.184.215.14', false)).toBeUndefined();
  expect(addressProblem('2606:2800:21f:cb07:6820:80da:af6b:8b2c', false)).toBeUndefined();
  expect(addressProblem('169.254.1.1', true)).toMatch(/link-local/);
});

test("the endpoints need the app's client credentials: none, wrong ones, a person's token or a public client are 401", async () => {
  const none = await app.get('/api/2/webhooks/');
  expect(none.status).toBe(401);
  expect(none.headers.get('www-authenticate')).toMatch(/^Basic/);
  expect((await app.get('/api/2/webhooks/', { headers: basic(client, 'wrong') })).status).toBe(401);
  const { user } = await makeUser(app);
  const bearer = (await makeToken(app, user, client, ['activity_read'])).access_token;
  expect((await app.get('/api/2/webhooks/', { bearer })).status).toBe(401);
  const publicApp = await registerApp(app, user, { confidential: false });
  expect((await app.get('/api/2/webhooks/', { headers: basic(publicApp.client, '') })).status).toBe(401);
});

test("an app never sees another app's endpoints", async () => {
  const { user } = await makeUser(app);
  const { client: other, secret: otherSecret } = await makeClient(app, user, 'Other');
  const created = await app.post('/api/2/webhooks/', { headers: basic(other, otherSecret!), json: { url: 'http://127.0.0.1:9/x', events: ['grant.revoked'] } });
  expect(created.status).toBe(201);
  expect((await app.get(`/api/2/webhooks/${created.body.id}/`, { headers: auth })).status).toBe(404);
  expect((await app.request('DELETE', `/api/2/webhooks/${created.body.id}/`, { headers: auth })).status).toBe(404);
  expect((await app.get('/api/2/webhooks/', { headers: auth })).body.count).toBe(0);
});

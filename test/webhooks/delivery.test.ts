/**
 * Webhooks end to end (docs/webhooks.md): real writes through the API, the workers' dispatcher and
 * pg-boss delivery, a real receiver on a loopback port that checks every signature with the
 * documented algorithm (computed here, independently of the service's code).
 */
import crypto from 'node:crypto';
import { startTestApp, type TestApp } from '../support/app';
import { makeClient, makeToken, makeUser } from '../support/fixtures';
import { startReceiver, waitUntil, type Receiver, type Received } from '../support/webhook-receiver';
import { disconnectApp } from '../../src/domain/apps-and-grants/connected-apps';
import { REFRESH_LEEWAY_MS } from '../../src/domain/apps-and-grants/refresh-retry';
import { tokenRequest } from '../support/web';
import type { User } from '../../src/domain/identity/users';
import type { OAuthClient } from '../../src/domain/apps-and-grants/clients';
import { verifyWebhook } from '../../client/src';

let app: TestApp;
let receiver: Receiver;

beforeAll(async () => {
  app = await startTestApp({ WORKERS: '1', WEBHOOK_COALESCE_MS: '300', WEBHOOK_POLL_MS: '100', WEBHOOK_RETRY_DELAY_SECONDS: '1' });
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await app?.close();
});

const basic = (client: OAuthClient, secret: string) => ({ Authorization: `Basic ${Buffer.from(`${client.client_id}:${secret}`).toString('base64')}` });

/** The signature check of the v2 document's Webhooks tag, written from its text. */
function signatureValid(secret: string, message: Received): boolean {
  const id = String(message.headers['webhook-id']);
  const timestamp = String(message.headers['webhook-timestamp']);
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const expected = `v1,${crypto.createHmac('sha256', key).update(`${id}.${timestamp}.${message.body}`).digest('base64')}`;
  return String(message.headers['webhook-signature']).split(' ').includes(expected);
}

interface Scene {
  person: User;
  listener: OAuthClient;
  listenerSecret: string;
  /** The listener's token for the person (activity_read only). */
  listenerToken: string;
  /** A writing service's token for the person (activity and mood). */
  writerToken: string;
  endpoint: { id: string; secret: string };
}

/** A person, a writing service that owns steps and mood, and a listening app granted activity_read with an endpoint. */
async function scene(events = ['values.updated', 'grant.revoked'], url = receiver.url): Promise<Scene> {
  const { user: person } = await makeUser(app);
  const { user: developer } = await makeUser(app);
  const { client: listener, secret } = await makeClient(app, developer, 'Listener');
  const { client: writer } = await makeClient(app, developer, 'Writer');
  const listenerToken = (await makeToken(app, person, listener, ['activity_read'])).access_token;
  const writerToken = (await makeToken(app, person, writer, ['activity_read', 'activity_write', 'mood_read', 'mood_write'])).access_token;
  const acquired = await app.post('/api/2/attributes/acquire/', { bearer: writerToken, json: [{ template: 'steps' }, { template: 'mood' }] });
  expect(acquired.status).toBe(200);
  const created = await app.post('/api/2/webhooks/', { headers: basic(listener, secret!), json: { url, events } });
  expect(created.status).toBe(201);
  return { person, listener, listenerSecret: secret!, listenerToken, writerToken, endpoint: created.body };
}

/** Deliveries stored for anyone whose body mentions the person (made in the same transaction that takes the outbox rows). */
const storedAbout = async (username: string, type?: string) =>
  (await app.db('webhook_deliveries').select('event_type', 'body')).filter((d: { event_type: string; body: string }) =>
    about(username, type)(JSON.parse(d.body)),
  );

const bodies = (filter: (event: any) => boolean) =>
  receiver.received.map((m) => ({ message: m, event: JSON.parse(m.body) })).filter(({ event }) => filter(event));
const about = (username: string, type?: string) => (event: any) => event.data?.username === username && (type === undefined || event.type === type);

test('a 35-item batch through the API arrives as ONE values.updated event, signed as documented, listing only what the app may read', async () => {
  const s = await scene();
  const items = Array.from({ length: 35 }, (_, i) => ({ name: 'steps', date: `2026-10-${String((i % 31) + 1).padStart(2, '0')}`, value: 1000 + i }));
  items[34] = { name: 'mood', date: '2026-10-05', value: 7 };
  const written = await app.post('/api/2/attributes/update/', { bearer: s.writerToken, json: items });
  expect(written.status).toBe(200);
  await waitUntil('the values.updated event', () => bodies(about(s.person.username, 'values.updated')).length > 0);
  const [{ message, event }] = bodies(about(s.person.username, 'values.updated'));
  expect(signatureValid(s.endpoint.secret, message)).toBe(true);
  expect(message.headers['webhook-id']).toMatch(/^msg_/);
  expect(message.headers['content-type']).toBe('application/json');
  // mood is outside the listener's scopes: it is not mentioned.
  expect(event.data.attributes).toEqual([{ name: 'steps', dates: Array.from({ length: 31 }, (_, i) => `2026-10-${String(i + 1).padStart(2, '0')}`) }]);
  // Still one event once the workers have had time to send more, if there were any.
  await waitUntil(
    'the delivery recorded',
    async () => (await app.db('webhook_deliveries').where({ status: 'delivered' }).count<{ count: string }[]>({ count: '*' }))[0].count !== '0',
  );
  await app.jobs!.webhooks.dispatch();
  expect(bodies(about(s.person.username, 'values.updated'))).toHaveLength(1);
});

test('a receiver answering 500 twice, then 200, gets the same webhook-id three times, each validly signed', async () => {
  const s = await scene();
  receiver.answerNext(500, 500);
  await app.post('/api/2/attributes/update/', { bearer: s.writerToken, json: [{ name: 'steps', date: '2026-11-01', value: 5 }] });
  await waitUntil('three attempts', () => bodies(about(s.person.username)).length >= 3, 30_000);
  const attempts = bodies(about(s.person.username));
  expect(attempts.map((a) => a.message.status)).toEqual([500, 500, 200]);
  expect(new Set(attempts.map((a) => a.message.headers['webhook-id'])).size).toBe(1);
  expect(attempts.every((a) => signatureValid(s.endpoint.secret, a.message))).toBe(true);
  const deliveries = await app.get(`/api/2/webhooks/${s.endpoint.id}/deliveries/`, { headers: basic(s.listener, s.listenerSecret) });
  expect(deliveries.status).toBe(200);
  expect(deliveries.body.results[0]).toMatchObject({
    id: attempts[0].message.headers['webhook-id'],
    event: 'values.updated',
    status: 'delivered',
    attempts: 3,
    last_status: 200,
  });
});

test('a person who did not grant the app produces no event for it', async () => {
  const s = await scene();
  const { user: stranger } = await makeUser(app);
  const { user: developer } = await makeUser(app);
  const { client: other } = await makeClient(app, developer, 'Other');
  const strangerToken = (await makeToken(app, stranger, other, ['activity_read', 'activity_write'])).access_token;
  await app.post('/api/2/attributes/acquire/', { bearer: strangerToken, json: [{ template: 'steps' }] });
  await app.post('/api/2/attributes/update/', { bearer: strangerToken, json: [{ name: 'steps', date: '2026-11-02', value: 9 }] });
  // A change of the granting person afterwards: once its event arrives, the stranger's would have too.
  await app.post('/api/2/attributes/update/', { bearer: s.writerToken, json: [{ name: 'steps', date: '2026-11-02', value: 9 }] });
  await waitUntil("the granting person's event", () => bodies(about(s.person.username)).length > 0);
  await waitUntil('the outbox drained', async () => (await app.db('webhook_value_changes').where({ user_id: stranger.id })).length === 0);
  expect(await storedAbout(stranger.username)).toEqual([]);
  expect(bodies(about(stranger.username))).toEqual([]);
});

test("disconnecting the app sends grant.revoked, and the person's later changes are not sent", async () => {
  const s = await scene();
  await disconnectApp(app.db, s.person.id, s.listener.client_id, app.deps.now());
  await waitUntil('grant.revoked', () => bodies(about(s.person.username, 'grant.revoked')).length > 0);
  const [{ message }] = bodies(about(s.person.username, 'grant.revoked'));
  expect(signatureValid(s.endpoint.secret, message)).toBe(true);
  await app.post('/api/2/attributes/update/', { bearer: s.writerToken, json: [{ name: 'steps', date: '2026-11-03', value: 3 }] });
  // The change is taken from the outbox (after the coalescing window) and makes no delivery.
  await waitUntil('the outbox drained', async () => (await app.db('webhook_value_changes').where({ user_id: s.person.id })).length === 0);
  expect(await storedAbout(s.person.username, 'values.updated')).toEqual([]);
  expect(bodies(about(s.person.username, 'values.updated'))).toEqual([]);
});

test("a replayed refresh token that ends the app's last grant sends grant.revoked, as a disconnect does", async () => {
  const s = await scene();
  const credentials = { client_id: s.listener.client_id, client_secret: s.listenerSecret };
  const second = await makeToken(app, s.person, s.listener, ['activity_read']);
  // The app revokes the scene's grant itself; it keeps the second, so it is still connected.
  expect((await app.post('/oauth2/revoke', { form: { token: s.listenerToken, ...credentials } })).status).toBe(200);
  const refreshed = await tokenRequest(app, { grant_type: 'refresh_token', refresh_token: second.refresh_token, ...credentials });
  expect(refreshed.status).toBe(200);
  app.setNow(new Date(Date.now() + REFRESH_LEEWAY_MS + 1000));
  try {
    const replay = await tokenRequest(app, { grant_type: 'refresh_token', refresh_token: second.refresh_token, ...credentials });
    expect(replay.body.error).toBe('invalid_grant');
  } finally {
    app.setNow(undefined);
  }
  await waitUntil('grant.revoked', () => bodies(about(s.person.username, 'grant.revoked')).length > 0);
  const [{ message }] = bodies(about(s.person.username, 'grant.revoked'));
  expect(signatureValid(s.endpoint.secret, message)).toBe(true);
  expect(bodies(about(s.person.username, 'grant.revoked'))).toHaveLength(1);
});

test('attribute.ownership_changed tells of a release that leaves an attribute inactive, only for attributes the app may read', async () => {
  const s = await scene(['attribute.ownership_changed']);
  const released = await app.post('/api/2/attributes/release/', { bearer: s.writerToken, json: [{ name: 'steps' }, { name: 'mood' }] });
  expect(released.status).toBe(200);
  const inactive = (event: any) => about(s.person.username, 'attribute.ownership_changed')(event) && event.data.change === 'made_inactive';
  await waitUntil('the ownership event', () => bodies(inactive).length > 0);
  await waitUntil('the outbox drained', async () => (await app.db('webhook_events').where({ user_id: s.person.id })).length === 0);
  const events = (await storedAbout(s.person.username, 'attribute.ownership_changed')).map((d: { body: string }) => JSON.parse(d.body)).filter(inactive);
  // mood is outside the listener's scopes.
  expect(events.map((e: any) => e.data)).toEqual([
    { username: s.person.username, attribute: 'steps', change: 'made_inactive', previous_owner: expect.any(String), owner: null, active: false },
  ]);
  expect(signatureValid(s.endpoint.secret, bodies(inactive)[0].message)).toBe(true);
});

test("derived.updated follows a derive of the person's data", async () => {
  const s = await scene(['derived.updated']);
  await app.post('/api/2/attributes/update/', { bearer: s.writerToken, json: [{ name: 'steps', date: '2026-11-05', value: 10 }] });
  await app.jobs!.enqueueDerive(s.person.id);
  await waitUntil('derived.updated', () => bodies(about(s.person.username, 'derived.updated')).length > 0, 30_000);
  const [{ event, message }] = bodies(about(s.person.username, 'derived.updated'));
  expect(event.data).toEqual({
    username: s.person.username,
    kinds: expect.arrayContaining(['averages', 'correlations']),
    date: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
  });
  expect(signatureValid(s.endpoint.secret, message)).toBe(true);
});

test("the typed client's verifyWebhook accepts what Daybook sent and refuses a changed body, a wrong secret and an old timestamp", async () => {
  const s = await scene();
  await app.post('/api/2/attributes/update/', { bearer: s.writerToken, json: [{ name: 'steps', date: '2026-11-06', value: 4 }] });
  await waitUntil('the event', () => bodies(about(s.person.username, 'values.updated')).length > 0);
  const [{ message }] = bodies(about(s.person.username, 'values.updated'));
  const verified = verifyWebhook(s.endpoint.secret, message.headers as Record<string, string>, message.body);
  expect(verified).toMatchObject({ ok: true, id: message.headers['webhook-id'], event: { type: 'values.updated', data: { username: s.person.username } } });
  expect(verifyWebhook(s.endpoint.secret, message.headers as Record<string, string>, message.body.replace('steps', 'sleep')).ok).toBe(false);
  expect(verifyWebhook(`whsec_${crypto.randomBytes(32).toString('base64')}`, message.headers as Record<string, string>, message.body).ok).toBe(false);
  const later = new Date((Number(message.headers['webhook-timestamp']) + 600) * 1000);
  expect(verifyWebhook(s.endpoint.secret, message.headers as Record<string, string>, message.body, { now: later })).toEqual({
    ok: false,
    reason: 'webhook-timestamp is too old or too new',
  });
});

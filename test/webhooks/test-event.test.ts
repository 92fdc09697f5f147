/**
 * Webhooks people can start with (docs/webhooks.md, "Testing an endpoint" and "Metrics"): the test
 * event on demand through the API and the app page's button, the latest deliveries on the page,
 * and the delivery counts in /metrics. Over real HTTP, with the workers delivering to a real
 * receiver on a loopback port that checks each signature with the documented algorithm (computed
 * here, independently of the service's code).
 */
import crypto from 'node:crypto';
import { startTestApp, type TestApp } from '../support/app';
import { makeClient, makeSession, makeUser } from '../support/fixtures';
import { PAGE, sessionCsrf } from '../support/web';
import { startReceiver, waitUntil, type Receiver, type Received } from '../support/webhook-receiver';
import type { OAuthClient } from '../../src/domain/apps-and-grants/clients';
import { DELIVERY_RETENTION_MS, sweepExpired } from '../../src/domain/housekeeping';

const METRICS_TOKEN = 'metrics-token-0123456789abcdef';

let app: TestApp;
let receiver: Receiver;

beforeAll(async () => {
  app = await startTestApp({ WORKERS: '1', WEBHOOK_POLL_MS: '100', WEBHOOK_RETRY_DELAY_SECONDS: '1', METRICS_TOKEN });
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await app?.close();
});

interface Owned {
  client: OAuthClient;
  secret: string;
  /** The owner's session and the app's webhooks page. */
  session: string;
  page: string;
  auth: Record<string, string>;
}

async function ownedApp(name = 'Test Pinger'): Promise<Owned> {
  const { user } = await makeUser(app);
  const { client, secret } = await makeClient(app, user, name);
  return {
    client,
    secret: secret!,
    session: await makeSession(app, user),
    page: `/settings/apps/${encodeURIComponent(client.client_id)}/webhooks`,
    auth: { Authorization: `Basic ${Buffer.from(`${client.client_id}:${secret}`).toString('base64')}` },
  };
}

/** An endpoint of the app subscribed to values.updated only; its id and secret. */
async function endpointOf(o: Owned, url = receiver.url): Promise<{ id: string; secret: string }> {
  const created = await app.post('/api/2/webhooks/', { headers: o.auth, json: { url, events: ['values.updated'] } });
  expect(created.status).toBe(201);
  return created.body;
}

/** The Standard Webhooks check, written from the v2 document's text. */
function signatureValid(secret: string, message: Received): boolean {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const signed = `${message.headers['webhook-id']}.${message.headers['webhook-timestamp']}.${message.body}`;
  const expected = `v1,${crypto.createHmac('sha256', key).update(signed).digest('base64')}`;
  return String(message.headers['webhook-signature']).split(' ').includes(expected);
}

/** What the receiver got with this webhook-id, in order. */
const messagesWithId = (id: string) => receiver.received.filter((m) => m.headers['webhook-id'] === id);

const deliveryStatus = async (id: string) => (await app.db('webhook_deliveries').where({ message_id: id }).first())?.status;

test('the test operation answers 202 and the workers deliver a signed webhook.test event, listed first among the deliveries', async () => {
  const o = await ownedApp();
  const endpoint = await endpointOf(o);
  const sent = await app.post(`/api/2/webhooks/${endpoint.id}/test/`, { headers: o.auth });
  expect(sent.status).toBe(202);
  expect(sent.body).toMatchObject({ id: expect.stringMatching(/^msg_/), event: 'webhook.test', status: 'pending', attempts: 0 });

  // Sent although the endpoint subscribes to values.updated only: it was asked for.
  await waitUntil('the test event', () => messagesWithId(sent.body.id).length === 1);
  const [message] = messagesWithId(sent.body.id);
  expect(signatureValid(endpoint.secret, message)).toBe(true);
  expect(JSON.parse(message.body)).toEqual({
    type: 'webhook.test',
    timestamp: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
    data: { app: o.client.client_id, endpoint: endpoint.id },
  });

  await waitUntil('the delivery recorded', async () => (await deliveryStatus(sent.body.id)) === 'delivered');
  const listed = await app.get(`/api/2/webhooks/${endpoint.id}/deliveries/`, { headers: o.auth });
  expect(listed.status).toBe(200);
  expect(listed.body.results[0]).toEqual({
    id: sent.body.id,
    event: 'webhook.test',
    created: sent.body.created,
    status: 'delivered',
    attempts: 1,
    last_attempt: expect.any(String),
    last_status: 200,
    last_error: null,
    last_latency_ms: expect.any(Number),
  });
});

test("another app's endpoint is 404 for the test operation and gets nothing; wrong credentials are 401; webhook.test cannot be subscribed to", async () => {
  const mine = await ownedApp();
  const theirs = await ownedApp('Someone Else');
  const endpoint = await endpointOf(theirs);
  const refused = await app.post(`/api/2/webhooks/${endpoint.id}/test/`, { headers: mine.auth });
  expect(refused.status).toBe(404);
  expect(refused.body.detail).toMatch(/no webhook endpoint with this id/);
  const unknown = await app.post('/api/2/webhooks/ep_nothing/test/', { headers: mine.auth });
  expect(unknown.status).toBe(404);
  const wrong = await app.post(`/api/2/webhooks/${endpoint.id}/test/`, {
    headers: { Authorization: `Basic ${Buffer.from(`${theirs.client.client_id}:wrong`).toString('base64')}` },
  });
  expect(wrong.status).toBe(401);
  expect(wrong.headers.get('www-authenticate')).toMatch(/^Basic/);
  const internal = await app.db('webhook_endpoints').where({ public_id: endpoint.id }).first();
  expect(await app.db('webhook_deliveries').where({ endpoint_id: internal.id })).toEqual([]);

  // The document's event types leave it out; the page (and the CLI) say why.
  const subscribed = await app.post('/api/2/webhooks/', { headers: mine.auth, json: { url: receiver.url, events: ['webhook.test'] } });
  expect(subscribed.status).toBe(400);
  expect(subscribed.body.detail).toMatch(/\/events\/0/);
  const csrf = await sessionCsrf(app, mine.session, mine.page);
  const onPage = await app.post(mine.page, {
    ...PAGE,
    session: mine.session,
    form: [
      ['url', receiver.url],
      ['events', 'webhook.test'],
      ['csrf_token', csrf],
    ],
  });
  expect(onPage.status).toBe(400);
  expect(onPage.text).toMatch(/webhook\.test cannot be subscribed to: it is sent when asked for/);
});

test('a disabled endpoint can be tested (its owner checks a fix before enabling it); the test does not enable it', async () => {
  const o = await ownedApp();
  const endpoint = await endpointOf(o);
  expect((await app.post(`/api/2/webhooks/${endpoint.id}/`, { headers: o.auth, json: { enabled: false } })).body.enabled).toBe(false);
  const sent = await app.post(`/api/2/webhooks/${endpoint.id}/test/`, { headers: o.auth });
  expect(sent.status).toBe(202);
  await waitUntil('the test event', () => messagesWithId(sent.body.id).length === 1);
  expect(signatureValid(endpoint.secret, messagesWithId(sent.body.id)[0])).toBe(true);
  await waitUntil('the delivery recorded', async () => (await deliveryStatus(sent.body.id)) === 'delivered');
  expect((await app.get(`/api/2/webhooks/${endpoint.id}/`, { headers: o.auth })).body.enabled).toBe(false);
});

test("the page's button sends a test event (a CSRF-protected form), says so, and the history table shows it with its status, duration and attempts", async () => {
  const o = await ownedApp();
  const endpoint = await endpointOf(o);
  const action = `${o.page}/${endpoint.id}/test`;
  const before = await app.get(o.page, { ...PAGE, session: o.session });
  expect(before.text).toContain(`<form method="post" action="${action}">`);
  expect(before.text).toContain('Nothing sent yet.');

  // Without the page's anti-forgery token nothing is sent.
  const forged = await app.post(action, { ...PAGE, session: o.session, form: [['csrf_token', 'forged']] });
  expect(forged.status).toBe(403);
  const internal = await app.db('webhook_endpoints').where({ public_id: endpoint.id }).first();
  expect(await app.db('webhook_deliveries').where({ endpoint_id: internal.id })).toEqual([]);

  const csrf = await sessionCsrf(app, o.session, o.page);
  const pressed = await app.post(action, { ...PAGE, session: o.session, form: [['csrf_token', csrf]] });
  expect(pressed.status).toBe(303);
  const location = pressed.headers.get('location')!;
  const notice = await app.get(new URL(location, app.baseUrl).pathname + new URL(location, app.baseUrl).search, { ...PAGE, session: o.session });
  expect(notice.text).toMatch(/<p class="notice" role="status">A test event \(webhook\.test\) is on its way/);

  const [delivery] = await app.db('webhook_deliveries').where({ endpoint_id: internal.id });
  await waitUntil('the test event', () => messagesWithId(delivery.message_id).length === 1);
  expect(signatureValid(endpoint.secret, messagesWithId(delivery.message_id)[0])).toBe(true);
  await waitUntil('the delivery recorded', async () => (await deliveryStatus(delivery.message_id)) === 'delivered');

  const after = await app.get(o.page, { ...PAGE, session: o.session });
  expect(after.text).toMatch(/<caption>Latest deliveries to this endpoint, newest first \(at most 20\)<\/caption>/);
  expect(after.text).toContain('<th scope="col">Duration</th><th scope="col">Attempts</th>');
  const row = new RegExp(`<tr class="delivery" data-delivery="${delivery.message_id}">(.*?)</tr>`, 's').exec(after.text)?.[1] ?? '';
  const cells = [...row.matchAll(/<td>(.*?)<\/td>/gs)].map((m) => m[1]);
  expect(cells[0]).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC$/);
  expect(cells[1]).toBe('<code>webhook.test</code>');
  expect(cells[2]).toBe('delivered: HTTP 200');
  expect(cells[3]).toMatch(/^\d+ ms$/);
  expect(cells[4]).toBe('1');
});

test('the page lists deliveries newest first, a failure with its status and its attempts', async () => {
  const o = await ownedApp();
  const endpoint = await endpointOf(o);
  receiver.answerNext(500);
  const first = await app.post(`/api/2/webhooks/${endpoint.id}/test/`, { headers: o.auth });
  await waitUntil('two attempts of the first', () => messagesWithId(first.body.id).length === 2, 30_000);
  await waitUntil('the first delivered', async () => (await deliveryStatus(first.body.id)) === 'delivered');
  const second = await app.post(`/api/2/webhooks/${endpoint.id}/test/`, { headers: o.auth });
  await waitUntil('the second delivered', async () => (await deliveryStatus(second.body.id)) === 'delivered');
  const page = await app.get(o.page, { ...PAGE, session: o.session });
  const rows = [...page.text.matchAll(/<tr class="delivery" data-delivery="([^"]+)">(.*?)<\/tr>/gs)];
  expect(rows.map((r) => r[1])).toEqual([second.body.id, first.body.id]);
  expect(rows[1][2]).toContain('<td>2</td>');
});

/** The value of one sample of /metrics (0 when absent). */
function sample(text: string, name: string, labels: Record<string, string>): number {
  const wanted = Object.entries(labels)
    .map(([k, v]) => `${k}="${v}"`)
    .sort();
  for (const line of text.split('\n')) {
    const match = /^([a-z_]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const have = (match[2] ?? '').split(',').filter(Boolean).sort();
    if (JSON.stringify(have) === JSON.stringify(wanted)) return Number(match[3]);
  }
  return 0;
}

const scrape = async () => {
  const res = await app.get('/metrics', { unvalidated: true, headers: { Authorization: `Bearer ${METRICS_TOKEN}` } });
  expect(res.status).toBe(200);
  return res.text;
};

test('housekeeping forgets deliveries that ended more than 90 days ago; newer and pending ones stay', async () => {
  const o = await ownedApp();
  const endpoint = await endpointOf(o);
  const ids: string[] = [];
  for (let i = 0; i < 4; i++) ids.push((await app.post(`/api/2/webhooks/${endpoint.id}/test/`, { headers: o.auth })).body.id);
  await waitUntil('the four deliveries', async () => (await Promise.all(ids.map(deliveryStatus))).every((status) => status === 'delivered'));
  const [oldDelivered, oldFailed, oldPending, recent] = ids;
  const longAgo = new Date(Date.now() - DELIVERY_RETENTION_MS - 60_000);
  await app.db('webhook_deliveries').whereIn('message_id', [oldDelivered, oldFailed, oldPending]).update({ created_at: longAgo });
  await app.db('webhook_deliveries').where({ message_id: oldFailed }).update({ status: 'failed' });
  await app.db('webhook_deliveries').where({ message_id: oldPending }).update({ status: 'pending' });
  const before = await app.get(`/api/2/webhooks/${endpoint.id}/deliveries/`, { headers: o.auth });
  expect(before.body.results.map((d: { id: string }) => d.id).sort()).toEqual([...ids].sort());

  const swept = await sweepExpired(app.db, new Date());
  expect(swept.webhookDeliveries).toBeGreaterThanOrEqual(2);
  expect(await app.db('webhook_deliveries').whereIn('message_id', [oldDelivered, oldFailed])).toEqual([]);
  const after = await app.get(`/api/2/webhooks/${endpoint.id}/deliveries/`, { headers: o.auth });
  expect(after.body.results.map((d: { id: string }) => d.id).sort()).toEqual([oldPending, recent].sort());
});

test('/metrics counts delivery attempts, their durations, deliveries delivered and failed for good, and what is pending, from the database', async () => {
  const before = await scrape();
  const o = await ownedApp();
  const endpoint = await endpointOf(o);
  const test = { event: 'webhook.test' };

  // One delivery that fails once (HTTP 500), then succeeds.
  receiver.answerNext(500);
  const retried = await app.post(`/api/2/webhooks/${endpoint.id}/test/`, { headers: o.auth });
  await waitUntil('the retried delivery', async () => (await deliveryStatus(retried.body.id)) === 'delivered', 30_000);

  // One that fails for good: its endpoint has failed for 25 hours, so this failure disables it.
  const failing = await endpointOf(o);
  await app
    .db('webhook_endpoints')
    .where({ public_id: failing.id })
    .update({ failing_since: new Date(Date.now() - 25 * 3600_000) });
  receiver.answerNext(503);
  const lost = await app.post(`/api/2/webhooks/${failing.id}/test/`, { headers: o.auth });
  await waitUntil('the failed delivery', async () => (await deliveryStatus(lost.body.id)) === 'failed');

  const after = await scrape();
  const delta = (name: string, labels: Record<string, string>) => sample(after, name, labels) - sample(before, name, labels);
  expect(delta('daybook_webhook_attempts_total', { ...test, outcome: 'success' })).toBe(1);
  expect(delta('daybook_webhook_attempts_total', { ...test, outcome: 'http_error' })).toBe(2);
  expect(delta('daybook_webhook_deliveries_total', { ...test, outcome: 'delivered' })).toBe(1);
  expect(delta('daybook_webhook_deliveries_total', { ...test, outcome: 'failed' })).toBe(1);
  expect(delta('daybook_webhook_attempt_duration_seconds_count', { ...test, outcome: 'http_error' })).toBe(2);
  expect(delta('daybook_webhook_attempt_duration_seconds_bucket', { ...test, outcome: 'http_error', le: '+Inf' })).toBe(2);
  expect(delta('daybook_webhook_attempt_duration_seconds_bucket', { ...test, outcome: 'success', le: '60' })).toBe(1);
  expect(sample(after, 'daybook_webhook_attempt_duration_seconds_sum', { ...test, outcome: 'success' })).toBeGreaterThan(0);
  expect(after).toMatch(/^# TYPE daybook_webhook_attempt_duration_seconds histogram$/m);
  expect(sample(after, 'daybook_webhook_endpoints', { state: 'disabled' })).toBeGreaterThanOrEqual(1);
  expect(after).toMatch(/^daybook_webhook_deliveries_pending\{state="queued"\} \d+$/m);
  expect(after).toMatch(/^daybook_webhook_deliveries_pending\{state="retrying"\} \d+$/m);
  expect(after).toMatch(/^daybook_webhook_oldest_pending_seconds \d/m);
});

/**
 * Issue 30, item 6: the webhook page as a port scanner. Outside production any app owner could
 * register `http://127.0.0.1:<port>/` and read back the socket's own error ("socket hang up" for an
 * open port, "connect ECONNREFUSED" for a closed one). Now loopback and private addresses need the
 * operator's WEBHOOK_ALLOW_PRIVATE_URLS=1 (NODE_ENV plays no part), at registration and at every
 * delivery, and the owner reads one "connection failed" for every connection failure.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestApp, type TestApp } from '../support/app';
import { freePort } from '../support/clusters';
import { makeClient, makeSession, makeUser } from '../support/fixtures';
import { PAGE } from '../support/web';
import { startReceiver, waitUntil, type Receiver } from '../support/webhook-receiver';
import { createEndpoint } from '../../src/domain/webhooks/endpoints';

const WORKER_ENV = { WORKERS: '1', WEBHOOK_POLL_MS: '100', WEBHOOK_RETRY_DELAY_SECONDS: '1' };

let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
});

async function ownerOf(app: TestApp) {
  const { user } = await makeUser(app);
  const { client, secret } = await makeClient(app, user, 'Scanner');
  return {
    client,
    session: await makeSession(app, user),
    auth: { Authorization: `Basic ${Buffer.from(`${client.client_id}:${secret}`).toString('base64')}` },
  };
}

/** Sends the test event to the endpoint and waits until its first attempt is recorded; answers the API's delivery. */
async function firstAttempt(app: TestApp, auth: Record<string, string>, endpointId: string) {
  const sent = await app.post(`/api/2/webhooks/${endpointId}/test/`, { headers: auth });
  expect(sent.status).toBe(202);
  const attempted = async () => ((await app.db('webhook_deliveries').where({ message_id: sent.body.id }).first())?.attempts ?? 0) > 0;
  await waitUntil('the first attempt', attempted);
  const listed = await app.get(`/api/2/webhooks/${endpointId}/deliveries/`, { headers: auth });
  return listed.body.results.find((d: { id: string }) => d.id === sent.body.id);
}

describe('without WEBHOOK_ALLOW_PRIVATE_URLS (in development too)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ ...WORKER_ENV, NODE_ENV: 'development', WEBHOOK_ALLOW_PRIVATE_URLS: '0' });
  });
  afterAll(async () => {
    await app.close();
  });

  test('a loopback or private endpoint URL is refused at registration', async () => {
    const { auth } = await ownerOf(app);
    for (const url of [receiver.url, receiver.url.replace('127.0.0.1', 'localhost'), 'http://[::1]:9/', 'https://10.0.0.8/h', 'https://192.168.1.1/']) {
      const res = await app.post('/api/2/webhooks/', { headers: auth, json: { url, events: ['values.updated'] } });
      expect({ url, status: res.status, detail: res.body.detail }).toEqual({ url, status: 400, detail: expect.stringMatching(/loopback|private/) });
    }
  });

  test('an endpoint saved while the setting was on is refused at delivery, and nothing reaches it', async () => {
    const { client, auth } = await ownerOf(app);
    const endpoint = await createEndpoint(app.db, client.id, { url: receiver.url, events: ['values.updated'] }, true);
    const before = receiver.received.length;
    const delivery = await firstAttempt(app, auth, endpoint.public_id);
    expect(delivery).toMatchObject({ last_status: null, last_error: 'refused: the host has a loopback, private or reserved address' });
    expect(receiver.received.length).toBe(before);
  });
});

describe('with WEBHOOK_ALLOW_PRIVATE_URLS=1', () => {
  let app: TestApp;
  let hangUp: http.Server;
  beforeAll(async () => {
    app = await startTestApp({ ...WORKER_ENV, WEBHOOK_ALLOW_PRIVATE_URLS: '1' });
    // An open port whose server drops every request: "socket hang up" before the fix.
    hangUp = http.createServer((request) => request.socket.destroy());
    await new Promise<void>((resolve) => hangUp.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    hangUp.closeAllConnections();
    await new Promise((resolve) => hangUp.close(resolve));
    await app.close();
  });

  test('an open port and a closed port read the same to the owner, on the API and on the page', async () => {
    const { auth, session, client } = await ownerOf(app);
    const open = `http://127.0.0.1:${(hangUp.address() as AddressInfo).port}/`;
    const closed = `http://127.0.0.1:${await freePort()}/`;
    const errors: string[] = [];
    for (const url of [open, closed]) {
      const created = await app.post('/api/2/webhooks/', { headers: auth, json: { url, events: ['values.updated'] } });
      expect(created.status).toBe(201);
      const delivery = await firstAttempt(app, auth, created.body.id);
      errors.push(delivery.last_error);
    }
    expect(errors).toEqual(['connection failed', 'connection failed']);
    const page = await app.get(`/settings/apps/${encodeURIComponent(client.client_id)}/webhooks`, { ...PAGE, session });
    expect(page.status).toBe(200);
    expect(page.text).toContain('connection failed');
    expect(page.text).not.toMatch(/ECONN|hang up|socket/i);
  });
});

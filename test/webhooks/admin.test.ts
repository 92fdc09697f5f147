/** `npm run -s admin -- add-webhook | list-webhooks | test-webhook`, run as operators run them (compiled, one JSON object on stdout). */
import { startTestApp, type TestApp } from '../support/app';
import { runAdmin } from '../support/admin-cli';
import { makeClient, makeUser } from '../support/fixtures';

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

const admin = (...args: string[]) => runAdmin(app, args, { env: { WEBHOOK_ALLOW_PRIVATE_URLS: '1' } });

test('add-webhook prints the endpoint id and its secret; the app then lists the endpoint over the API', async () => {
  const { user } = await makeUser(app);
  const { client, secret } = await makeClient(app, user, 'Operator hooked');
  const result = await admin('add-webhook', '--client', client.client_id, '--url', 'http://127.0.0.1:9/hooks', '--events', 'values.updated,grant.revoked');
  expect(result.code).toBe(0);
  const printed = JSON.parse(result.stdout);
  expect(printed).toEqual({ id: expect.stringMatching(/^ep_/), secret: expect.stringMatching(/^whsec_/) });
  const listed = await app.get('/api/2/webhooks/', { headers: { Authorization: `Basic ${Buffer.from(`${client.client_id}:${secret}`).toString('base64')}` } });
  expect(listed.body.results).toEqual([
    expect.objectContaining({ id: printed.id, url: 'http://127.0.0.1:9/hooks', events: ['values.updated', 'grant.revoked'] }),
  ]);
});

test('add-webhook refuses an unknown client, an unknown event and an internal address with exit code 2', async () => {
  const { user } = await makeUser(app);
  const { client } = await makeClient(app, user, 'Operator refused');
  const unknownClient = await admin('add-webhook', '--client', 'nobody', '--url', 'https://example.org/h', '--events', 'values.updated');
  expect(unknownClient.code).toBe(2);
  expect(unknownClient.stderr).toMatch(/No client/);
  const unknownEvent = await admin('add-webhook', '--client', client.client_id, '--url', 'http://127.0.0.1:9/h', '--events', 'values.exploded');
  expect(unknownEvent.code).toBe(2);
  expect(unknownEvent.stderr).toMatch(/Unknown event type values.exploded/);
  const internal = await admin('add-webhook', '--client', client.client_id, '--url', 'https://169.254.169.254/h', '--events', 'values.updated');
  expect(internal.code).toBe(2);
  expect(internal.stderr).toMatch(/link-local/);
  expect(await app.db('webhook_endpoints').where({ client_pk: client.id })).toEqual([]);
});

test('test-webhook queues a webhook.test delivery for the endpoint; list-webhooks shows the endpoints with their latest deliveries', async () => {
  const { user } = await makeUser(app);
  const { client } = await makeClient(app, user, 'Operator tested');
  const added = JSON.parse(
    (await admin('add-webhook', '--client', client.client_id, '--url', 'http://127.0.0.1:9/hooks', '--events', 'values.updated')).stdout,
  );
  const tested = await admin('test-webhook', '--client', client.client_id, '--endpoint', added.id);
  expect(tested.code).toBe(0);
  const delivery = JSON.parse(tested.stdout);
  expect(delivery).toMatchObject({ id: expect.stringMatching(/^msg_/), event: 'webhook.test', status: 'pending', attempts: 0 });
  // Queued for the workers' dispatcher, like a re-send.
  expect(await app.db('webhook_deliveries').where({ message_id: delivery.id }).whereNotNull('resend_requested_at')).toHaveLength(1);
  const listed = await admin('list-webhooks', '--client', client.client_id);
  expect(listed.code).toBe(0);
  expect(JSON.parse(listed.stdout)).toEqual({
    endpoints: [expect.objectContaining({ id: added.id, url: 'http://127.0.0.1:9/hooks', enabled: true, last_deliveries: [delivery] })],
  });
  expect(listed.stdout).not.toContain(added.secret);
  const unknown = await admin('test-webhook', '--client', client.client_id, '--endpoint', 'ep_nothing');
  expect(unknown.code).toBe(2);
  expect(unknown.stderr).toMatch(/no webhook endpoint ep_nothing/);
});

/**
 * The app owner's webhooks page: adding an endpoint (secret shown once), refused input, the latest
 * deliveries and re-sending, and an endpoint disabled after 24 hours of failures showing why.
 * Runs the workers, with a real receiver.
 */
import crypto from 'node:crypto';
import { startTestApp, type TestApp } from '../support/app';
import { makeClient, makeSession, makeToken, makeUser } from '../support/fixtures';
import { PAGE, sessionCsrf } from '../support/web';
import { startReceiver, waitUntil, type Receiver } from '../support/webhook-receiver';
import type { OAuthClient } from '../../src/domain/apps-and-grants/clients';
import type { User } from '../../src/domain/identity/users';

let app: TestApp;
let receiver: Receiver;
beforeAll(async () => {
  app = await startTestApp({ WORKERS: '1', WEBHOOK_COALESCE_MS: '100', WEBHOOK_POLL_MS: '100', WEBHOOK_RETRY_DELAY_SECONDS: '1' });
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await app?.close();
});

interface Owner {
  owner: User;
  session: string;
  client: OAuthClient;
  path: string;
}

async function owner(): Promise<Owner> {
  const { user } = await makeUser(app);
  const { client } = await makeClient(app, user, 'Paged App');
  return { owner: user, session: await makeSession(app, user), client, path: `/settings/apps/${encodeURIComponent(client.client_id)}/webhooks` };
}

async function post(o: Owner, path: string, form: Array<[string, string]> = []) {
  const csrf = await sessionCsrf(app, o.session, o.path);
  return app.post(path, { ...PAGE, session: o.session, form: [...form, ['csrf_token', csrf]] });
}

const secretOf = (page: string) => /data-secret="Signing secret">([^<]+)</.exec(page)?.[1];

/** The app's own data changes for `person`, through the API with the app's token (it owns steps). */
async function writeSteps(o: Owner, person: User, date: string): Promise<void> {
  const bearer = (await makeToken(app, person, o.client, ['activity_read', 'activity_write'])).access_token;
  await app.post('/api/2/attributes/acquire/', { bearer, json: [{ template: 'steps' }] });
  const res = await app.post('/api/2/attributes/update/', { bearer, json: [{ name: 'steps', date, value: 1 }] });
  expect(res.status).toBe(200);
}

test('the owner adds an endpoint on the page: the secret is shown once, the endpoint listed after', async () => {
  const o = await owner();
  expect((await app.get(`/settings/apps/${encodeURIComponent(o.client.client_id)}`, { ...PAGE, session: o.session })).text).toContain(`href="${o.path}"`);
  const added = await post(o, o.path, [
    ['url', receiver.url],
    ['events', 'values.updated'],
    ['events', 'grant.revoked'],
  ]);
  expect(added.status).toBe(200);
  const secret = secretOf(added.text);
  expect(secret).toMatch(/^whsec_/);
  const listed = await app.get(o.path, { ...PAGE, session: o.session });
  expect(listed.text).toContain(receiver.url);
  expect(listed.text).toContain('<code>grant.revoked</code>');
  expect(listed.text).not.toContain(secret!);
});

test('a refused URL shows the form again with the reason (400) and adds nothing; another person cannot see the page', async () => {
  const o = await owner();
  const refused = await post(o, o.path, [
    ['url', 'https://169.254.169.254/'],
    ['events', 'values.updated'],
  ]);
  expect(refused.status).toBe(400);
  expect(refused.text).toMatch(/link-local or reserved/);
  const noEvents = await post(o, o.path, [['url', receiver.url]]);
  expect(noEvents.status).toBe(400);
  expect(await app.db('webhook_endpoints').where({ client_pk: o.client.id })).toEqual([]);
  const { user: stranger } = await makeUser(app);
  expect((await app.get(o.path, { ...PAGE, session: await makeSession(app, stranger) })).status).toBe(404);
});

test('the latest deliveries are listed with time, event, status and latency, and one can be re-sent with the same webhook-id', async () => {
  const o = await owner();
  await post(o, o.path, [
    ['url', receiver.url],
    ['events', 'values.updated'],
  ]);
  const { user: person } = await makeUser(app);
  await writeSteps(o, person, '2026-11-10');
  const mine = () => receiver.received.filter((m) => JSON.parse(m.body).data?.username === person.username);
  await waitUntil('the delivery', () => mine().length === 1);
  const messageId = String(mine()[0].headers['webhook-id']);
  await waitUntil('the delivery recorded', async () => (await app.db('webhook_deliveries').where({ message_id: messageId }).first())?.status === 'delivered');
  const listed = await app.get(o.path, { ...PAGE, session: o.session });
  const row = new RegExp(`<tr class="delivery" data-delivery="${messageId}">(.*?)</tr>`, 's').exec(listed.text)?.[1] ?? '';
  expect(row).toMatch(/\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC/);
  expect(row).toContain('<code>values.updated</code>');
  expect(row).toContain('delivered: HTTP 200');
  expect(row).toMatch(/\d+ ms/);
  const endpointId = (await app.db('webhook_endpoints').where({ client_pk: o.client.id }).first()).public_id;
  const resent = await post(o, `${o.path}/${endpointId}/deliveries/${messageId}/resend`);
  expect(resent.status).toBe(303);
  await waitUntil('the re-sent delivery', () => mine().length === 2);
  expect(mine()[1].headers['webhook-id']).toBe(messageId);
});

test('an endpoint whose deliveries failed for 24 hours is disabled, and its page says why; enabling it again clears that', async () => {
  const o = await owner();
  await post(o, o.path, [
    ['url', receiver.url],
    ['events', 'values.updated'],
  ]);
  const endpoint = await app.db('webhook_endpoints').where({ client_pk: o.client.id }).first();
  // Its failures began 25 hours ago (earlier deliveries, not replayed here).
  await app
    .db('webhook_endpoints')
    .where({ id: endpoint.id })
    .update({ failing_since: new Date(Date.now() - 25 * 3600_000) });
  receiver.answerNext(503);
  const { user: person } = await makeUser(app);
  await writeSteps(o, person, '2026-11-11');
  await waitUntil('the endpoint disabled', async () => (await app.db('webhook_endpoints').where({ id: endpoint.id }).first()).disabled_at !== null);
  const listed = await app.get(o.path, { ...PAGE, session: o.session });
  expect(listed.text).toMatch(/Disabled\. Disabled [^<]*every delivery failed for 24 hours \(the last: HTTP 503\)/);
  const delivery = await app.db('webhook_deliveries').where({ endpoint_id: endpoint.id }).first();
  expect(delivery.status).toBe('failed');
  const enabled = await post(o, `${o.path}/${endpoint.public_id}/enable`);
  expect(enabled.status).toBe(303);
  const after = await app.db('webhook_endpoints').where({ id: endpoint.id }).first();
  expect(after).toMatchObject({ disabled_at: null, disabled_reason: null, failing_since: null });
});

test('rotating on the page shows a new secret; for 24 hours messages carry both signatures', async () => {
  const o = await owner();
  const added = await post(o, o.path, [
    ['url', receiver.url],
    ['events', 'values.updated'],
  ]);
  const oldSecret = secretOf(added.text)!;
  const endpoint = await app.db('webhook_endpoints').where({ client_pk: o.client.id }).first();
  const rotated = await post(o, `${o.path}/${endpoint.public_id}/rotate`);
  const newSecret = secretOf(rotated.text)!;
  expect(newSecret).toMatch(/^whsec_/);
  expect(newSecret).not.toBe(oldSecret);
  const { user: person } = await makeUser(app);
  await writeSteps(o, person, '2026-11-12');
  const mine = () => receiver.received.filter((m) => JSON.parse(m.body).data?.username === person.username);
  await waitUntil('the delivery', () => mine().length === 1);
  const message = mine()[0];
  const sign = (secret: string) =>
    `v1,${crypto
      .createHmac('sha256', Buffer.from(secret.slice(6), 'base64'))
      .update(`${message.headers['webhook-id']}.${message.headers['webhook-timestamp']}.${message.body}`)
      .digest('base64')}`;
  expect(String(message.headers['webhook-signature']).split(' ')).toEqual([sign(newSecret), sign(oldSecret)]);
});

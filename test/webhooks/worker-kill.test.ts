/**
 * At-least-once across a dead worker: the worker process is killed (SIGKILL) while its delivery
 * is in flight; the job expires and another worker sends the same message (same webhook-id)
 * again, and records it delivered.
 */
import pino from 'pino';
import { startTestApp, type TestApp } from '../support/app';
import { makeClient, makeToken, makeUser } from '../support/fixtures';
import { startService, type RunningService } from '../support/process';
import { startReceiver, waitUntil, type Receiver } from '../support/webhook-receiver';
import { startJobs, type Jobs } from '../../src/jobs/queues';

const WEBHOOK_ENV = {
  WEBHOOK_ALLOW_PRIVATE_URLS: '1', // the receiver listens on loopback
  WEBHOOK_COALESCE_MS: '100',
  WEBHOOK_POLL_MS: '100',
  WEBHOOK_RETRY_DELAY_SECONDS: '1',
  WEBHOOK_TIMEOUT_MS: '1000',
  WEBHOOK_EXPIRE_SECONDS: '2',
};

let app: TestApp;
let receiver: Receiver;
let worker: RunningService | undefined;
let jobs: Jobs | undefined;

beforeAll(async () => {
  app = await startTestApp(WEBHOOK_ENV);
  receiver = await startReceiver();
});
afterAll(async () => {
  worker?.child.kill('SIGKILL');
  await jobs?.stop(5000);
  await receiver?.close();
  await app?.close();
});

test('SIGKILL of the worker mid-delivery loses no event: another worker sends the same webhook-id and records it', async () => {
  const { user: person } = await makeUser(app);
  const { user: developer } = await makeUser(app);
  const { client, secret } = await makeClient(app, developer, 'Survivor');
  const bearer = (await makeToken(app, person, client, ['activity_read', 'activity_write'])).access_token;
  await app.post('/api/2/attributes/acquire/', { bearer, json: [{ template: 'steps' }] });
  const created = await app.post('/api/2/webhooks/', {
    headers: { Authorization: `Basic ${Buffer.from(`${client.client_id}:${secret}`).toString('base64')}` },
    json: { url: receiver.url, events: ['values.updated'] },
  });
  expect(created.status).toBe(201);

  worker = await startService({ DATABASE_URL: app.deps.config.databaseUrl!, SECRET_KEY: 'x'.repeat(40), ...WEBHOOK_ENV }, 60_000, {
    script: 'dist/src/bin/worker.js',
    ready: 'Daybook worker running',
  });
  const held = receiver.holdNext();
  await app.post('/api/2/attributes/update/', { bearer, json: [{ name: 'steps', date: '2026-11-20', value: 42 }] });
  await held.arrived;
  worker.child.kill('SIGKILL');
  expect(await worker.exited).toBe('SIGKILL');
  worker = undefined;
  held.release();
  const mine = () => receiver.received.filter((m) => JSON.parse(m.body).data?.username === person.username);
  await waitUntil('the held request recorded', () => mine().length === 1);
  const messageId = mine()[0].headers['webhook-id'];
  expect((await app.db('webhook_deliveries').where({ message_id: messageId }).first()).status).toBe('pending');

  // Another worker (in this process), with pg-boss's maintenance every second so the dead job expires soon.
  jobs = await startJobs({
    connectionString: app.deps.config.databaseUrl!,
    db: app.db,
    logger: pino({ level: 'silent' }),
    now: () => new Date(),
    pollingIntervalSeconds: 0.5,
    maintenanceIntervalSeconds: 1,
    webhooks: app.deps.config.webhooks,
  });
  await waitUntil('the message sent again', () => mine().length === 2, 60_000);
  expect(mine()[1].headers['webhook-id']).toBe(messageId);
  await waitUntil('the delivery recorded', async () => (await app.db('webhook_deliveries').where({ message_id: messageId }).first()).status === 'delivered');
}, 120_000);

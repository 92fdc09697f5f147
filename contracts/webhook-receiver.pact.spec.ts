/**
 * Consumer contract of a webhook receiver (Pact V4: one HTTP interaction and four asynchronous
 * messages): an app registers an endpoint for every event with its own client credentials in HTTP
 * Basic, then receives Daybook's events. The receiver checks each message's Standard Webhooks
 * signature (`webhook-id`, `webhook-timestamp`, `webhook-signature`) with the typed client's
 * `verifyWebhook`, then acts on the event's `type` and `data`. Each message names the v2 document's
 * webhook operation it is (the `AsyncAPI` reference), which the comparison with the documents uses.
 */
import crypto from 'node:crypto';
import { verifyWebhook } from '../client/src';
import { consumerPactV4 } from './support/pact';
import { date, dateTime, M } from './support/matchers';
import { STATES, WEBHOOK_MESSAGES, type WebhookMessageType } from './support/states';

const pact = consumerPactV4('daybook-webhook-receiver');

const RECEIVER_URL = 'http://localhost:4100/daybook/webhooks';
const EVENTS = Object.keys(WEBHOOK_MESSAGES);
/** The endpoint's secret as Daybook showed it when the endpoint was made (an example). */
const SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
/** When the example messages were sent (seconds), and the receiver's clock then. */
const SENT_AT = 1795608000;
const MESSAGE_ID = 'msg_2Kc4fTqg0v9mXbLw7sRz1A';

/** The body's bytes as the receiver sees them: the JSON with its keys sorted (as Pact hands it over). */
function rawBody(content: unknown): string {
  const sorted = (value: unknown): unknown =>
    Array.isArray(value)
      ? value.map(sorted)
      : value && typeof value === 'object'
        ? Object.fromEntries(
            Object.keys(value)
              .sort()
              .map((key) => [key, sorted((value as Record<string, unknown>)[key])]),
          )
        : value;
  return JSON.stringify(sorted(content));
}

/** The Standard Webhooks headers of the example message, signed with the example secret. */
function signedMetadata(content: unknown) {
  const key = Buffer.from(SECRET.slice('whsec_'.length), 'base64');
  const signature = `v1,${crypto
    .createHmac('sha256', key)
    .update(`${MESSAGE_ID}.${SENT_AT}.${rawBody(M.reify(content))}`)
    .digest('base64')}`;
  return {
    'webhook-id': M.regex('^msg_[A-Za-z0-9_-]+$', MESSAGE_ID),
    'webhook-timestamp': M.regex('^\\d+$', String(SENT_AT)),
    'webhook-signature': M.regex('^v1,[A-Za-z0-9+/]+=*( v1,[A-Za-z0-9+/]+=*)*$', signature),
    'content-type': 'application/json',
  };
}

/** What the receiver does with a message: refuse a bad signature, else one line per action. */
function receive(metadata: Record<string, unknown>, content: unknown): string[] {
  const headers = Object.fromEntries(Object.entries(metadata).map(([name, value]) => [name, String(value)]));
  const verified = verifyWebhook(SECRET, headers, rawBody(content), { now: new Date(SENT_AT * 1000) });
  if (!verified.ok) throw new Error(`refused: ${verified.reason}`);
  const event = verified.event as { type: string; data: Record<string, unknown> };
  const data = event.data;
  switch (event.type) {
    case 'values.updated':
      return (data.attributes as Array<{ name: string; dates: string[] }>).flatMap((a) =>
        a.dates.map((day) => `read ${a.name} of ${day} for ${data.username}`),
      );
    case 'attribute.ownership_changed':
      return [`${data.attribute} of ${data.username} ${data.change}, owned by ${data.owner}, active: ${data.active}`];
    case 'derived.updated':
      return [`read ${(data.kinds as string[]).join(' and ')} of ${data.date} for ${data.username}`];
    case 'grant.revoked':
      return [`forget ${data.username}`];
    default:
      return [];
  }
}

/** A message the receiver expects, named after its event type and the webhook operation of the v2 document. */
function expectMessage(type: WebhookMessageType, operationId: string, states: Array<[string, { scope?: string }?]>, content: Record<string, unknown>) {
  let builder = pact.addAsynchronousInteraction();
  for (const [state, params] of states) builder = builder.given(state, params);
  return builder
    .reference('AsyncAPI', 'operationId', operationId)
    .expectsToReceive(WEBHOOK_MESSAGES[type], (message) => message.withMetadata(signedMetadata(content)).withJSONContent(content));
}

const connected = (scope: string): Array<[string, { scope?: string }?]> => [[STATES.person], [STATES.connected, { scope }], [STATES.endpoint]];
const timestamp = dateTime('2026-11-20T12:00:02.000Z');

describe('a webhook receiver', () => {
  test('registers its endpoint for every event with the app credentials', async () => {
    const basic = `Basic ${Buffer.from('example-client-id:example-client-secret').toString('base64')}`;
    await pact
      .addInteraction()
      .given(STATES.registered)
      .uponReceiving('a request to register a webhook endpoint for every event')
      .withRequest('POST', '/api/2/webhooks/', (request) =>
        request
          .headers({ Authorization: M.regex('^Basic [A-Za-z0-9+/]+=*$', basic), 'Content-Type': 'application/json' })
          .jsonBody({ url: RECEIVER_URL, events: EVENTS }),
      )
      .willRespondWith(201, (response) =>
        response.headers({ 'Content-Type': 'application/json' }).jsonBody({
          id: M.regex('^ep_[A-Za-z0-9_-]+$', 'ep_3q2Xw9vLk1mZc0aB7dE4'),
          url: RECEIVER_URL,
          events: EVENTS,
          enabled: true,
          disabled_reason: null,
          failing_since: null,
          created: dateTime(),
          secret: M.regex('^whsec_[A-Za-z0-9+/]+=*$', SECRET),
        }),
      )
      .executeTest(async (server) => {
        const response = await fetch(`${server.url}/api/2/webhooks/`, {
          method: 'POST',
          headers: { Authorization: basic, 'Content-Type': 'application/json' },
          body: JSON.stringify({ url: RECEIVER_URL, events: EVENTS }),
        });
        expect(response.status).toBe(201);
        const endpoint = (await response.json()) as { secret: string };
        expect(endpoint.secret).toBe(SECRET);
      });
  });

  test('reads the changed days of a values.updated event', async () => {
    const content = {
      type: 'values.updated',
      timestamp,
      data: { username: M.string('alice'), attributes: M.eachLike({ name: 'steps', dates: M.eachLike(date('2026-11-18')) }) },
    };
    await expectMessage('values.updated', 'receiveValuesUpdated', [...connected('activity_read'), [STATES.gap]], content).executeTest(async (message) => {
      expect(receive(message.metadata ?? {}, message.contents.content)).toEqual(['read steps of 2026-11-18 for alice']);
    });
  });

  test('learns the new owner from an attribute.ownership_changed event', async () => {
    const content = {
      type: 'attribute.ownership_changed',
      timestamp,
      data: {
        username: M.string('alice'),
        attribute: 'sleep',
        change: 'handed_over',
        previous_owner: M.string('sleeptracker'),
        owner: M.string('receiver'),
        active: true,
      },
    };
    const states: Array<[string, { scope?: string }?]> = [...connected('sleep_read sleep_write'), [STATES.otherOwnsSleep], [STATES.tookOverSleep]];
    await expectMessage('attribute.ownership_changed', 'receiveOwnershipChanged', states, content).executeTest(async (message) => {
      expect(receive(message.metadata ?? {}, message.contents.content)).toEqual(['sleep of alice handed_over, owned by receiver, active: true']);
    });
  });

  test('reads new derived data after a derived.updated event', async () => {
    const content = {
      type: 'derived.updated',
      timestamp,
      data: { username: M.string('alice'), kinds: M.eachLike(M.regex('^(averages|correlations|insights)$', 'averages')), date: date('2026-11-16') },
    };
    const scope = 'activity_read sleep_read mood_read';
    await expectMessage('derived.updated', 'receiveDerivedUpdated', [...connected(scope), [STATES.derived]], content).executeTest(async (message) => {
      expect(receive(message.metadata ?? {}, message.contents.content)).toEqual(['read averages of 2026-11-16 for alice']);
    });
  });

  test('forgets the person after a grant.revoked event', async () => {
    const content = { type: 'grant.revoked', timestamp, data: { username: M.string('alice') } };
    await expectMessage('grant.revoked', 'receiveGrantRevoked', [...connected('activity_read'), [STATES.disconnected]], content).executeTest(
      async (message) => {
        expect(receive(message.metadata ?? {}, message.contents.content)).toEqual(['forget alice']);
      },
    );
  });

  test('refuses a message whose signature does not match', () => {
    const content = { type: 'grant.revoked', timestamp: '2026-11-20T12:00:02.000Z', data: { username: 'alice' } };
    const metadata = { ...(M.reify(signedMetadata(content)) as Record<string, string>), 'webhook-signature': 'v1,AAAA' };
    expect(() => receive(metadata, content)).toThrow(/no signature matches/);
  });
});

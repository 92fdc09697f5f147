/**
 * The pacts and the documents agree: every interaction of every committed pact is checked by
 * PactFlow's comparator (openapi-comparison.ts) against the document it belongs to: HTTP
 * interactions against the v2, v1 or OAuth document, webhook messages against the v2 document's
 * `webhooks`. A consumer cannot rely on something the documents do not promise, and the documents
 * cannot drift from what consumers rely on, without this failing.
 */
import fs from 'node:fs';
import path from 'node:path';
import { PACTS_DIR } from '../../contracts/support/pact';
import { comparePact, type PactDocument } from './openapi-comparison';

const pacts: Array<[string, PactDocument]> = fs
  .readdirSync(PACTS_DIR)
  .filter((file) => file.endsWith('.json'))
  .sort()
  .map((file) => [file, JSON.parse(fs.readFileSync(path.join(PACTS_DIR, file), 'utf8')) as PactDocument]);

test('there are pacts to check', () => {
  expect(pacts.length).toBeGreaterThanOrEqual(4);
});

test.each(pacts)('%s agrees with the documents', async (_file, pact) => {
  const problems = await comparePact(pact);
  if (problems.length > 0) throw new Error(`The pact departs from the documents:\n  - ${problems.join('\n  - ')}`);
});

/** A V3 pact of one HTTP interaction. */
function httpPact(interaction: Record<string, unknown>): PactDocument {
  return {
    consumer: { name: 'check' },
    provider: { name: 'Daybook' },
    interactions: [{ description: 'an interaction', ...interaction }],
    metadata: { pactSpecification: { version: '3.0.0' } },
  };
}

/** A V4 pact of one webhook message. */
function messagePact(operationId: string, content: unknown, metadata: Record<string, string>): PactDocument {
  return {
    consumer: { name: 'check' },
    provider: { name: 'Daybook' },
    interactions: [
      {
        type: 'Asynchronous/Messages',
        description: 'a message',
        comments: { references: { AsyncAPI: { operationId } } },
        contents: { content, contentType: 'application/json', encoded: false },
        metadata,
        pending: false,
      },
    ],
    metadata: { pactSpecification: { version: '4.0' } },
  };
}

describe('the comparison itself', () => {
  // The app's own client credentials in HTTP Basic: the document's `ClientCredentials` scheme.
  const createWebhook = {
    request: {
      method: 'POST',
      path: '/api/2/webhooks/',
      headers: { Authorization: 'Basic ZXhhbXBsZS1jbGllbnQtaWQ6ZXhhbXBsZS1zZWNyZXQ=', 'Content-Type': 'application/json' },
      body: { url: 'https://stepcounter.example.com/daybook/webhooks', events: ['values.updated'] },
    },
    response: {
      status: 201,
      headers: { 'Content-Type': 'application/json' },
      body: {
        id: 'ep_3q2Xw9vLk1mZc0aB7dE4',
        url: 'https://stepcounter.example.com/daybook/webhooks',
        events: ['values.updated'],
        enabled: true,
        disabled_reason: null,
        failing_since: null,
        created: '2026-11-24T09:30:00.000Z',
        secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      },
    },
  };

  test('accepts a webhook endpoint created with the app credentials in HTTP Basic', async () => {
    expect(await comparePact(httpPact(createWebhook))).toEqual([]);
  });

  test('reports a person’s token where the operation takes the app credentials', async () => {
    const withBearer = {
      ...createWebhook,
      request: { ...createWebhook.request, headers: { ...createWebhook.request.headers, Authorization: 'Bearer token' } },
    };
    expect(await comparePact(httpPact(withBearer))).toEqual([expect.stringMatching(/request\.authorization\.missing/)]);
  });

  test('reports a response field the document does not have, and an undocumented status', async () => {
    const profile = {
      request: { method: 'GET', path: '/api/2/accounts/profile/', headers: { Authorization: 'Bearer token' } },
      response: { status: 200, headers: { 'Content-Type': 'application/json' }, body: { username: 'alice', nickname: 'al' } },
    };
    expect(await comparePact(httpPact(profile))).toEqual([expect.stringMatching(/response\.body\.incompatible.*additional properties.*nickname/)]);
    expect(await comparePact(httpPact({ ...profile, response: { status: 418 } }))).toEqual([expect.stringMatching(/response\.status\.unknown.*418/)]);
  });

  test('reports a path under none of the documents, and one the document lacks', async () => {
    const at = (p: string) => httpPact({ request: { method: 'GET', path: p }, response: { status: 200 } });
    expect(await comparePact(at('/api/3/profile/'))).toEqual([expect.stringMatching(/under none of the documents/)]);
    expect(await comparePact(at('/api/2/accounts/profiles/'))).toEqual([expect.stringMatching(/request\.path-or-method\.unknown/)]);
  });

  const signed = { 'webhook-id': 'msg_1', 'webhook-timestamp': '1795608662', 'webhook-signature': 'v1,abc=', 'content-type': 'application/json' };
  const valuesUpdated = {
    type: 'values.updated',
    timestamp: '2026-11-24T09:31:02.120Z',
    data: { username: 'alice', attributes: [{ name: 'steps', dates: ['2026-11-23'] }] },
  };

  test('accepts a webhook message the v2 document describes', async () => {
    expect(await comparePact(messagePact('receiveValuesUpdated', valuesUpdated, signed))).toEqual([]);
  });

  test('reports a webhook message with a field the event does not have, or a header it is not sent with', async () => {
    const extra = { ...valuesUpdated, data: { ...valuesUpdated.data, steps_total: 9000 } };
    expect(await comparePact(messagePact('receiveValuesUpdated', extra, signed))).toEqual([expect.stringMatching(/message\.no\.match.*steps_total/)]);
    const asText = { ...signed, 'content-type': 'text/plain' };
    expect(await comparePact(messagePact('receiveValuesUpdated', valuesUpdated, asText))).toEqual([expect.stringMatching(/message\.no\.match.*content-type/)]);
    expect(await comparePact(messagePact('receiveValueUpdates', valuesUpdated, signed))).toEqual([expect.stringMatching(/message\.operation\.unknown/)]);
  });
});

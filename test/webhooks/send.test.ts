/**
 * One delivery attempt against real local servers: the safety rules of docs/webhooks.md (the
 * address checked at delivery time, no redirects, a bounded read, a hard timeout).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { postWebhook, MAX_BODY_BYTES } from '../../src/domain/webhooks/send';
import { startReceiver, type Receiver } from '../support/webhook-receiver';

let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
});

const HEADERS = { 'webhook-id': 'msg_test', 'webhook-timestamp': '1', 'webhook-signature': 'v1,x' };

/** A server answering every request with `handler`. */
async function server(handler: http.RequestListener): Promise<{ url: string; close(): Promise<void> }> {
  const s = http.createServer(handler);
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(s.address() as AddressInfo).port}/`,
    close: async () => {
      s.closeAllConnections();
      await new Promise<void>((resolve) => s.close(() => resolve()));
    },
  };
}

test('a 2xx answer is a success with its status and latency', async () => {
  const result = await postWebhook(receiver.url, HEADERS, '{"a":1}', { timeoutMs: 5000, allowPrivate: true });
  expect(result).toMatchObject({ status: 200, error: null });
  expect(result.latencyMs).toBeGreaterThan(0);
  expect(receiver.received.at(-1)!.body).toBe('{"a":1}');
});

test('without WEBHOOK_ALLOW_PRIVATE_URLS a loopback endpoint is refused at delivery time and nothing is sent', async () => {
  const before = receiver.received.length;
  const literal = await postWebhook(receiver.url, HEADERS, '{}', { timeoutMs: 5000, allowPrivate: false });
  expect(literal).toMatchObject({ status: null, error: expect.stringMatching(/refused.*loopback/) });
  // A name is checked on the address it resolves to, when connecting.
  const named = await postWebhook(receiver.url.replace('127.0.0.1', 'localhost'), HEADERS, '{}', { timeoutMs: 5000, allowPrivate: false });
  expect(named).toMatchObject({ status: null, error: expect.stringMatching(/loopback/) });
  expect(receiver.received.length).toBe(before);
});

test('a redirect is not followed: the 3xx is the outcome (a failure)', async () => {
  const redirecting = await server((_req, res) => {
    res.writeHead(307, { Location: receiver.url });
    res.end();
  });
  const before = receiver.received.length;
  try {
    expect(await postWebhook(redirecting.url, HEADERS, '{}', { timeoutMs: 5000, allowPrivate: true })).toMatchObject({ status: 307 });
    expect(receiver.received.length).toBe(before);
  } finally {
    await redirecting.close();
  }
});

test('a slow endpoint is cut off at the timeout', async () => {
  const slow = await server(() => {
    // never answers
  });
  try {
    const started = Date.now();
    const result = await postWebhook(slow.url, HEADERS, '{}', { timeoutMs: 300, allowPrivate: true });
    expect(result).toMatchObject({ status: null, error: 'timed out', detail: 'timed out after 0.3 s' });
    expect(Date.now() - started).toBeLessThan(2000);
  } finally {
    await slow.close();
  }
});

test('an endless answer is not read past the limit', async () => {
  let written = 0;
  const endless = await server((_req, res) => {
    res.writeHead(200);
    const chunk = Buffer.alloc(1024, 'x');
    const pump = () => {
      while (written < 50 * 1024 * 1024 && res.write(chunk)) written += chunk.length;
      if (written < 50 * 1024 * 1024) res.once('drain', pump);
      else res.end();
    };
    pump();
  });
  try {
    const result = await postWebhook(endless.url, HEADERS, '{}', { timeoutMs: 5000, allowPrivate: true });
    expect(result.status).toBe(200);
    // The server could only push what the socket buffers took before the client hung up.
    expect(written).toBeLessThan(10 * 1024 * 1024);
    expect(MAX_BODY_BYTES).toBe(4096);
  } finally {
    await endless.close();
  }
});

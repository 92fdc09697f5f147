/**
 * Error answers a person can act on, over real HTTP: a body that was not sent, a number too large
 * for JSON to hold, and a request whose line and headers are over the server's limit (refused by
 * Node's parser before the app sees it, so sent over a raw socket to the server the process runs).
 */
import net from 'node:net';
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestApp, type TestApp } from '../support/app';
import { makeClient, makeToken, makeUser } from '../support/fixtures';
import { createApp } from '../../src/app';
import { createHttpServer } from '../../src/http/server';

let app: TestApp;
let bearer: string;

beforeAll(async () => {
  app = await startTestApp();
  const { user } = await makeUser(app);
  const { client } = await makeClient(app, user);
  bearer = (await makeToken(app, user, client, ['activity_read', 'activity_write'])).access_token;
});
afterAll(async () => {
  await app.close();
});

test('a JSON operation sent without a body is told to send one, as a body problem', async () => {
  const res = await app.post('/api/2/attributes/update/', { bearer });
  expect(res.status).toBe(400);
  expect(res.body.detail).toBe('The request needs a JSON body (Content-Type: application/json), as this operation describes in the API documents.');
  expect(res.body.errors).toEqual([{ in: 'body', name: '', message: 'is required' }]);
});

test('a number beyond what JSON numbers can hold is reported as out of range, where it is', async () => {
  const raw = '[{"name": "steps", "date": "2026-11-21", "value": 1e400}]';
  const res = await app.post('/api/2/attributes/update/', { bearer, raw, headers: { 'Content-Type': 'application/json' } });
  expect(res.status).toBe(400);
  expect(res.body.detail).toBe('Invalid request body /0/value: is a number out of range (beyond ±1.8e308, the largest a JSON number may be here).');
  expect(res.body.errors).toEqual([{ in: 'body', name: '/0/value', message: expect.stringContaining('out of range') }]);
  expect(Number((await app.db('attribute_values').count<{ count: string }[]>({ count: '*' }))[0].count)).toBe(0);

  const negative = await app.post('/api/2/webhooks/', { bearer, raw: '{"url": -1e999}', headers: { 'Content-Type': 'application/json' } });
  expect([negative.status, negative.body.errors?.[0]?.name]).toEqual([400, '/url']);
});

describe('a request line or headers over the server limit', () => {
  let server: http.Server;
  let port: number;

  beforeAll(async () => {
    const { app: koa } = await createApp(app.deps);
    server = createHttpServer(koa.callback(), app.deps.config);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  /** Sends `request` as raw bytes and reads the whole answer (the server closes the connection). */
  function rawExchange(request: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1', () => socket.write(request));
      const chunks: Buffer[] = [];
      socket.on('data', (chunk: Buffer) => chunks.push(chunk));
      socket.on('error', reject);
      socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
    });
  }

  function parse(answer: string): { status: number; headers: string; body: unknown } {
    const [head, body] = answer.split('\r\n\r\n');
    return { status: Number(head.split(' ')[1]), headers: head.toLowerCase(), body: JSON.parse(body) };
  }

  test('a long URL and a large header are answered 431 with the usual error body and what to change', async () => {
    const longUrl = `GET /api/2/accounts/profile/?filler=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${bearer}\r\n\r\n`;
    const bigHeader = `GET /api/2/accounts/profile/ HTTP/1.1\r\nHost: localhost\r\nCookie: junk=${'b'.repeat(20_000)}\r\n\r\n`;
    for (const request of [longUrl, bigHeader]) {
      const answer = parse(await rawExchange(request));
      expect(answer.status).toBe(431);
      expect(answer.headers).toContain('content-type: application/json');
      expect(answer.body).toEqual({ detail: expect.stringMatching(/larger than 16384 bytes: send a shorter URL/) });
    }
  });

  test('bytes that are not HTTP get 400 with the error body; the same server answers a proper request', async () => {
    const garbage = parse(await rawExchange('HELLO THERE\r\n\r\n'));
    expect([garbage.status, garbage.body]).toEqual([400, { detail: expect.stringContaining('not valid HTTP/1.1') }]);
    const fine = await rawExchange(`GET /api/2/accounts/profile/ HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${bearer}\r\nConnection: close\r\n\r\n`);
    expect(fine).toMatch(/^HTTP\/1\.1 200 /);
  });
});

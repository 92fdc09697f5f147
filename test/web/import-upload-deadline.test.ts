/**
 * How long a body may take (docs/operating.md, "Slow clients and long uploads"; http/body-deadline.ts),
 * over real HTTP against the app behind the process's own server (createHttpServer), with small
 * limits: a whole request within HTTP_REQUEST_TIMEOUT_MS (1 s), except an upload to
 * /settings/import, which may take longer as long as it keeps arriving (no pause of
 * IMPORT_UPLOAD_IDLE_MS, 600 ms). The client is a raw socket writing its body in chunks on a
 * schedule of its own.
 */
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { createApp } from '../../src/app';
import { ConfigError, loadConfig } from '../../src/config';
import { stopServer } from '../../src/http/graceful-stop';
import { createHttpServer } from '../../src/http/server';
import { startTestApp, type TestApp } from '../support/app';
import { makeSession, makeUser } from '../support/fixtures';
import { PAGE, csrfOf } from '../support/web';

jest.setTimeout(60_000);

const REQUEST_TIMEOUT_MS = 1000;
const IDLE_MS = 600;
/** The client's pace: well inside the idle time, even on a busy machine. */
const CHUNK_EVERY_MS = 100;

let app: TestApp;
let importDir: string;
let session: string;
let csrf: string;

beforeAll(async () => {
  importDir = fs.mkdtempSync(path.join(os.tmpdir(), 'daybook-upload-deadline-'));
  app = await startTestApp({
    WORKERS: '1',
    IMPORT_DIR: importDir,
    HTTP_HEADERS_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
    HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
    IMPORT_UPLOAD_IDLE_MS: String(IDLE_MS),
  });
  const { user } = await makeUser(app, { timezone: 'UTC' });
  session = await makeSession(app, user);
  csrf = csrfOf((await app.get('/settings/import', { ...PAGE, session })).text);
}, 120_000);

afterAll(async () => {
  await app?.close();
  fs.rmSync(importDir, { recursive: true, force: true });
});

/** The app behind the process's own HTTP server, with the test's limits (and `config`'s). */
async function serve(config: Partial<TestApp['deps']['config']> = {}): Promise<{ server: http.Server; port: number }> {
  const { app: koa } = await createApp({ ...app.deps, config: { ...app.deps.config, ...config } });
  const server = createHttpServer(koa.callback(), app.deps.config);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

async function closed(server: http.Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

/** Resolves after `ms`: the client's own schedule between two chunks. */
function pace(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Resolves once `condition` holds, looking every 20 ms (fails the test after 10 s). */
async function until(condition: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met within 10 s');
    await pace(20);
  }
}

interface Exchange {
  /** The whole answer, once the server has closed the connection. */
  answer: Promise<string>;
  /** Writes the body's chunks, one every `everyMs`; stops early (a stalled client) after `upTo` of them. */
  send(chunks: Buffer[], everyMs: number, upTo?: number): Promise<void>;
}

/** A raw connection sending `head` at once; the server closes it after answering (Connection: close). */
function exchange(port: number, head: string): Exchange {
  const socket = net.connect(port, '127.0.0.1');
  socket.on('error', () => undefined); // a cut connection shows as its (partial) answer
  const received: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => received.push(chunk));
  const answer = new Promise<string>((resolve) => socket.on('close', () => resolve(Buffer.concat(received).toString('utf8'))));
  socket.write(head);
  return {
    answer,
    async send(chunks, everyMs, upTo = chunks.length) {
      for (const chunk of chunks.slice(0, upTo)) {
        if (socket.destroyed) return;
        await pace(everyMs);
        socket.write(chunk);
      }
    },
  };
}

/** `buffer` cut into `count` nearly equal chunks. */
function chunksOf(buffer: Buffer, count: number): Buffer[] {
  const size = Math.ceil(buffer.length / count);
  return Array.from({ length: Math.ceil(buffer.length / size) }, (_, i) => buffer.subarray(i * size, (i + 1) * size));
}

/** The import form's multipart body with a CSV of `days` days of steps, and the request's head. */
function uploadRequest(days: number): { head: string; body: Buffer } {
  const boundary = '----daybook-deadline-test';
  const csv =
    ['date,steps', ...Array.from({ length: days }, (_, i) => `${new Date(Date.UTC(2026, 0, 1 + i)).toISOString().slice(0, 10)},${5000 + i}`)].join('\n') + '\n';
  const body = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="csrf_token"\r\n\r\n${csrf}\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="steps.csv"\r\nContent-Type: text/csv\r\n\r\n${csv}\r\n` +
      `--${boundary}--\r\n`,
  );
  const head = [
    'POST /settings/import HTTP/1.1',
    'Host: 127.0.0.1',
    `Cookie: daybook_session=${session}`,
    `Content-Type: multipart/form-data; boundary=${boundary}`,
    `Content-Length: ${body.length}`,
    'Connection: close',
    '',
    '',
  ].join('\r\n');
  return { head, body };
}

const statusOf = (answer: string): number => Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1]);
const filesIn = (): string[] => fs.readdirSync(importDir).sort();
async function uploadRows(): Promise<number> {
  return Number((await app.db('import_uploads').count<[{ count: string }]>('* as count'))[0].count);
}

test('an ordinary POST whose body trickles past HTTP_REQUEST_TIMEOUT_MS is answered 408 and cut off', async () => {
  const { server, port } = await serve();
  try {
    const body = Buffer.from(`csrf_token=${csrf}&display_name=${'x'.repeat(60)}`);
    const client = exchange(
      port,
      `POST /settings/profile HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: daybook_session=${session}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    const started = Date.now();
    void client.send(chunksOf(body, body.length), CHUNK_EVERY_MS);
    const answer = await client.answer;
    expect(statusOf(answer)).toBe(408);
    expect(answer).toContain('{"detail":"The request took too long to arrive');
    expect(Date.now() - started).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS);
  } finally {
    await closed(server);
  }
});

test('an upload taking longer than HTTP_REQUEST_TIMEOUT_MS in all, never pausing for IMPORT_UPLOAD_IDLE_MS, is taken and previewed', async () => {
  const { server, port } = await serve();
  try {
    const { head, body } = uploadRequest(60);
    const chunks = chunksOf(body, Math.ceil((2.5 * REQUEST_TIMEOUT_MS) / CHUNK_EVERY_MS));
    const client = exchange(port, head);
    const started = Date.now();
    await client.send(chunks, CHUNK_EVERY_MS);
    const answer = await client.answer;
    expect(Date.now() - started).toBeGreaterThan(2 * REQUEST_TIMEOUT_MS);
    expect(statusOf(answer)).toBe(303);
    const at = /\r\nLocation: (\/settings\/import\/[0-9a-f-]{36})\r\n/i.exec(answer)?.[1];
    expect(at).toBeDefined();
    // The job reads the file: its page shows what each column becomes.
    let text = '';
    await until(async () => {
      text = (await app.get(at!, { ...PAGE, session })).text;
      return text.includes('Waiting for your choices');
    });
    expect(text).toContain('steps');
  } finally {
    await closed(server);
  }
});

test('an upload that pauses longer than IMPORT_UPLOAD_IDLE_MS is answered 408 with the page, and nothing of it is kept', async () => {
  const { server, port } = await serve();
  try {
    const files = filesIn();
    const rows = await uploadRows();
    const { head, body } = uploadRequest(2000);
    const chunks = chunksOf(body, 10);
    const client = exchange(port, head);
    await client.send(chunks, CHUNK_EVERY_MS, 5); // half the file, then nothing more
    const answer = await client.answer;
    expect(statusOf(answer)).toBe(408);
    expect(answer).toMatch(/\r\nConnection: close\r\n/i);
    expect(answer).toContain('Nothing of the file arrived for 600 ms, so the upload was stopped. Nothing of it was kept');
    expect(filesIn()).toEqual(files);
    expect(await uploadRows()).toBe(rows);
  } finally {
    await closed(server);
  }
});

test('an upload that keeps arriving but takes longer than IMPORT_UPLOAD_TIMEOUT_MS in all is answered 408, nothing kept', async () => {
  const { server, port } = await serve({ importUploadTimeoutMs: 1500 });
  try {
    const files = filesIn();
    const rows = await uploadRows();
    const { head, body } = uploadRequest(2000);
    const client = exchange(port, head);
    void client.send(chunksOf(body, 100), CHUNK_EVERY_MS); // 10 s at this pace
    const answer = await client.answer;
    expect(statusOf(answer)).toBe(408);
    expect(answer).toContain('The upload took longer than 1500 ms, the longest Daybook waits for one. Nothing of it was kept');
    expect(filesIn()).toEqual(files);
    expect(await uploadRows()).toBe(rows);
  } finally {
    await closed(server);
  }
});

test('an upload still arriving when the server stops is cut after the grace time and removed', async () => {
  const { server, port } = await serve();
  const files = filesIn();
  const rows = await uploadRows();
  const { head, body } = uploadRequest(2000);
  const chunks = chunksOf(body, 100);
  const client = exchange(port, head);
  const sending = client.send(chunks, CHUNK_EVERY_MS);
  await until(() => filesIn().length > files.length); // its file is being written
  await stopServer(server, 200);
  await client.answer;
  await sending;
  await until(() => filesIn().length === files.length);
  expect(filesIn()).toEqual(files);
  expect(await uploadRows()).toBe(rows);
});

test('the upload limits are checked against each other', () => {
  const defaults = loadConfig({});
  expect([defaults.importUploadIdleMs, defaults.importUploadTimeoutMs]).toEqual([60_000, 4 * 60 * 60 * 1000]);
  expect(() => loadConfig({ HTTP_REQUEST_TIMEOUT_MS: '120000', IMPORT_UPLOAD_TIMEOUT_MS: '60000' })).toThrow(ConfigError);
  expect(() => loadConfig({ IMPORT_UPLOAD_IDLE_MS: '3600000', IMPORT_UPLOAD_TIMEOUT_MS: '3600000' })).toThrow(ConfigError);
  expect(() => loadConfig({ IMPORT_UPLOAD_IDLE_MS: '50' })).toThrow(ConfigError);
});

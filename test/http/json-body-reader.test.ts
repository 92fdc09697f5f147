/**
 * How a JSON request body is read (http/body.ts; docs/request-path.md, "Issue 35, fourth stop"):
 * every rule a client meets, pinned with the answer the client sees, over real HTTP against the
 * app. Written against the former reader (koa-body, co-body, raw-body, inflation, @hapi/bourne) and
 * kept unchanged when Daybook's own reader replaced it, so that it shows every rule was kept: the
 * 1 MiB limit (declared or counted, chunked too), the Content-Encodings accepted (gzip, deflate, br,
 * identity) and the answer to another, the charset parameter (ignored: a body is read as UTF-8), a
 * leading byte order mark, the messages of malformed JSON, `__proto__` keys, bodies on GET and HEAD,
 * a client that goes away mid-body, and a body too slow to arrive.
 */
import http from 'node:http';
import net from 'node:net';
import zlib from 'node:zlib';
import type { AddressInfo } from 'node:net';
import { createApp } from '../../src/app';
import { createHttpServer } from '../../src/http/server';
import { startTestApp, type TestApp } from '../support/app';
import { assertDocumented } from '../support/contract';
import { sendDocumented, type RawAnswer } from '../robustness/support/raw-http';
import { acquire, writer, type Writer } from '../api/v2/writes/setup';

const REQUEST_TIMEOUT_MS = 1000;
const MIB = 1024 * 1024;
const UPDATE = '/api/2/attributes/update/';

let app: TestApp;
let w: Writer;
beforeAll(async () => {
  app = await startTestApp({ HTTP_HEADERS_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS), HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS) }, { captureLogs: true });
  w = await writer(app);
  await acquire(app, w.a, ['steps', 'mood_note']);
});
afterAll(async () => {
  await app.close();
});

/** A POST of `body` to the update endpoint with these headers (Content-Length unless `chunked`), its answer checked against the document. */
function post(body: Buffer | string, headers: Record<string, string> = { 'Content-Type': 'application/json' }, chunked = false): Promise<RawAnswer> {
  return sendDocumented(app.baseUrl, {
    method: 'POST',
    target: UPDATE,
    headers: { Authorization: `Bearer ${w.a}`, ...headers, ...(chunked ? { 'Transfer-Encoding': 'chunked' } : {}) },
    body: typeof body === 'string' ? Buffer.from(body, 'utf8') : body,
    chunked,
  });
}

const ONE_ITEM = [{ name: 'steps', date: '2026-11-01', value: 8412 }];
const ONE_ITEM_TEXT = JSON.stringify(ONE_ITEM);
const applied = (items: unknown[]) => ({ success: items, failed: [] });

/** The answer to a body that does not parse: JSON.parse's own message (this Node's), as body.ts words it. */
function notParsed(text: string): { detail: string } {
  let message = '';
  try {
    JSON.parse(text);
  } catch (error) {
    message = (error as Error).message;
  }
  return { detail: `The request body could not be parsed: ${message.replace(/\s+/g, ' ').slice(0, 200)}.` };
}

const TOO_LARGE = { detail: 'The request body is larger than 1 MiB.' };
const FORBIDDEN_PROTO = { detail: 'The request body could not be parsed: Object contains forbidden prototype property.' };
const BAD_ENCODING = { detail: 'Unsupported media type (this charset): send UTF-8.' };
const NOT_AN_ARRAY = { detail: 'Invalid request body /: must be array.', errors: [{ in: 'body', name: '/', message: 'must be array' }] };

describe('media type and charset', () => {
  test('application/json is read, whatever its case and parameters', async () => {
    for (const type of ['application/json', 'APPLICATION/JSON', 'application/json; charset=utf-8', 'Application/Json ; charset="UTF-8"']) {
      const res = await post(ONE_ITEM_TEXT, { 'Content-Type': type });
      expect([type, res.status, res.body]).toEqual([type, 200, applied(ONE_ITEM)]);
    }
  });

  test('a body without Content-Type is read as JSON where the operation takes JSON', async () => {
    const res = await post(ONE_ITEM_TEXT, {});
    expect(res.status).toBe(200);
    expect(res.body).toEqual(applied(ONE_ITEM));
  });

  test('the charset parameter is not looked at: every body is read as UTF-8 (a latin1, utf-16 or unknown charset too)', async () => {
    const items = [{ name: 'mood_note', date: '2026-11-02', value: 'café ☕ 𝄞' }];
    for (const charset of ['iso-8859-1', 'utf-16', 'nonsense']) {
      const res = await post(JSON.stringify(items), { 'Content-Type': `application/json; charset=${charset}` });
      expect([charset, res.status, res.body]).toEqual([charset, 200, applied(items)]);
    }
  });

  test('a leading UTF-8 byte order mark is dropped; bytes that are not UTF-8 are read as U+FFFD', async () => {
    const withBom = await post(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(ONE_ITEM_TEXT)]));
    expect(withBom.status).toBe(200);
    expect(withBom.body).toEqual(applied(ONE_ITEM));
    const invalid = Buffer.concat([Buffer.from('[{"name":"mood_note","date":"2026-11-03","value":"a'), Buffer.from([0xff, 0xc3, 0x28]), Buffer.from('b"}]')]);
    const res = await post(invalid);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(applied([{ name: 'mood_note', date: '2026-11-03', value: 'a\ufffd\ufffd(b' }]));
  });

  test('another media type is 415 naming what to send; a +json type is not JSON here', async () => {
    const res = await post(ONE_ITEM_TEXT, { 'Content-Type': 'application/vnd.api+json' });
    expect(res.status).toBe(415);
    expect(res.body).toEqual({ detail: 'Unsupported media type application/vnd.api+json: send application/json.' });
  });
});

describe('the 1 MiB limit', () => {
  /** The one-item batch padded with trailing whitespace (still valid JSON) to exactly `bytes`. */
  const padded = (bytes: number) => ONE_ITEM_TEXT + ' '.repeat(bytes - ONE_ITEM_TEXT.length);

  test('a body of exactly 1 MiB is read, declared or chunked', async () => {
    expect((await post(padded(MIB))).status).toBe(200);
    expect((await post(padded(MIB), undefined, true)).status).toBe(200);
  });

  test('one byte more is 413, declared by Content-Length or counted as a chunked body arrives', async () => {
    const declared = await post(padded(MIB + 1));
    expect([declared.status, declared.body]).toEqual([413, TOO_LARGE]);
    const chunked = await post(padded(MIB + 1), undefined, true);
    expect([chunked.status, chunked.body]).toEqual([413, TOO_LARGE]);
  });

  test('a compressed body is limited by what it inflates to', async () => {
    const bomb = zlib.gzipSync(Buffer.from(padded(MIB + 1)));
    expect(bomb.length).toBeLessThan(10_000);
    const res = await post(bomb, { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' });
    expect([res.status, res.body]).toEqual([413, TOO_LARGE]);
    const fits = await post(zlib.gzipSync(Buffer.from(padded(MIB))), { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' }, true);
    expect(fits.status).toBe(200);
  });
});

describe('Content-Encoding', () => {
  const text = Buffer.from(ONE_ITEM_TEXT);

  test('gzip, deflate, br and identity bodies are read (gzip and deflate each accept the other: zlib tells them apart)', async () => {
    const bodies: Array<[string, Buffer]> = [
      ['gzip', zlib.gzipSync(text)],
      ['deflate', zlib.deflateSync(text)],
      ['deflate', zlib.gzipSync(text)],
      ['gzip', zlib.deflateSync(text)],
      ['br', zlib.brotliCompressSync(text)],
      ['identity', text],
    ];
    for (const [encoding, body] of bodies) {
      const res = await post(body, { 'Content-Type': 'application/json', 'Content-Encoding': encoding });
      expect([encoding, res.status, res.body]).toEqual([encoding, 200, applied(ONE_ITEM)]);
    }
  });

  test('another encoding, or one spelled otherwise, is 415 (with the message the former reader gave)', async () => {
    for (const encoding of ['compress', 'GZIP', 'x-gzip', 'gzip, identity']) {
      const res = await post(zlib.gzipSync(text), { 'Content-Type': 'application/json', 'Content-Encoding': encoding });
      expect([encoding, res.status, res.body]).toEqual([encoding, 415, BAD_ENCODING]);
    }
  });

  // zlib's reason, as a real process gave it. (Under jest the former reader answered
  // `{"errno":-3,"code":"Z_DATA_ERROR"}` here: koa-body's `instanceof Error` failed for an error made
  // by Node's zlib outside jest's sandbox, and it wrote the error's fields instead of its message.)
  test('a body that does not inflate is 400 with zlib’s reason', async () => {
    const garbage = await post(text, { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' });
    expect([garbage.status, garbage.body]).toEqual([400, { detail: 'The request body could not be parsed: incorrect header check.' }]);
    const gzipped = zlib.gzipSync(text);
    const truncated = await post(gzipped.subarray(0, gzipped.length - 10), { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' });
    expect([truncated.status, truncated.body]).toEqual([400, { detail: 'The request body could not be parsed: unexpected end of file.' }]);
  });
});

describe('what is not JSON, or not a batch', () => {
  test('malformed JSON is 400 with JSON.parse’s reason', async () => {
    for (const text of ['[{"name": ', '[{"name":"steps"}]]', '{name: 1}', '[1,]', '   ', '\n']) {
      const res = await post(text);
      expect([text, res.status, res.body]).toEqual([text, 400, notParsed(text)]);
    }
  });

  test('the reason’s whitespace is folded to one space, and it is cut at 200 characters', async () => {
    const long = `[${'{"name":"steps","date":"2026-11-01","value":1},'.repeat(8)}{"name":"steps",\n\n\t"date" "2026-11-01"}]`;
    for (const text of ['[1,\n\n  x]', long]) {
      const res = await post(text);
      expect([text, res.status, res.body]).toEqual([text, 400, notParsed(text)]);
    }
  });

  test('a malformed body is 400 whatever its text says (the former reader answered 413 when the reason quoted "exceeded")', async () => {
    for (const text of ['exceeded', '[{"name":"steps","date":"2026-11-01","value":1}, maxFileSize]']) {
      const res = await post(text);
      expect([text, res.status, res.body]).toEqual([text, 400, notParsed(text)]);
    }
  });

  test('an empty chunked body is not a parse error: it is no batch', async () => {
    const res = await post('', { 'Content-Type': 'application/json' }, true);
    expect(res.status).toBe(400);
    expect(res.body).toEqual(NOT_AN_ARRAY);
  });

  test('a body declared empty (Content-Length: 0) is a missing body', async () => {
    const res = await post('');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      detail: 'The request needs a JSON body (Content-Type: application/json), as this operation describes in the API documents.',
      errors: [{ in: 'body', name: '', message: 'is required' }],
    });
  });

  test('a top level that is not an array (a number, a string, null, an object) is a validation error, not a parse error', async () => {
    for (const text of ['5', '"steps"', 'null', 'true', '{"name":"steps"}']) {
      const res = await post(text);
      expect([text, res.status, res.body]).toEqual([text, 400, NOT_AN_ARRAY]);
    }
  });
});

describe('prototype keys', () => {
  test('an own "__proto__" key anywhere, however it is escaped, is refused', async () => {
    const bodies = [
      '[{"name":"steps","date":"2026-11-01","value":1,"__proto__":{"x":1}}]',
      '[{"name":"steps","date":"2026-11-01","value":1,"\\u005f_proto_\\u005F":1}]',
      '[{"name":"steps","date":"2026-11-01","value":[[{"a":{"__proto__" :null}}]]}]',
      '{"__proto__":[]}',
      // before the depth limit and the number range are looked at
      `[{"name":"steps","date":"2026-11-01","value":${'['.repeat(40)}{"__proto__":1}${']'.repeat(40)}}]`,
      '[{"name":"steps","date":"2026-11-01","value":1e400,"__proto__":1}]',
    ];
    for (const text of bodies) {
      const res = await post(text);
      expect([text, res.status, res.body]).toEqual([text, 400, FORBIDDEN_PROTO]);
    }
  });

  test('"__proto__" as a value, or "constructor" and "prototype" keys, are not refused by the reader', async () => {
    const asValue = [{ name: 'mood_note', date: '2026-11-04', value: '"__proto__": {}' }];
    const res = await post(JSON.stringify(asValue));
    expect([res.status, res.body]).toEqual([200, applied(asValue)]);
    const withConstructor = [{ name: 'steps', date: '2026-11-01', value: 1, constructor: { prototype: { polluted: true } } }];
    const constructor = await post(JSON.stringify(withConstructor));
    expect([constructor.status, constructor.body]).toEqual([200, applied(withConstructor)]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('nesting and numbers (checked in the same walk)', () => {
  test('nesting deeper than 32 levels is 400', async () => {
    const res = await post(`[{"name":"steps","date":"2026-11-01","value":${'['.repeat(40)}${']'.repeat(40)}}]`);
    expect([res.status, res.body]).toEqual([400, { detail: 'The request body nests arrays and objects more than 32 levels deep.' }]);
  });

  test('a number beyond a double is 400 naming where it is', async () => {
    const res = await post('[{"name":"steps","date":"2026-11-01","value":1e400}]');
    expect(res.status).toBe(400);
    const message = 'is a number out of range (beyond ±1.8e308, the largest a JSON number may be here)';
    expect(res.body).toEqual({ detail: `Invalid request body /0/value: ${message}.`, errors: [{ in: 'body', name: '/0/value', message }] });
  });
});

describe('bodies where none is read', () => {
  test('a body on GET or HEAD is not read', async () => {
    for (const method of ['GET', 'HEAD']) {
      const res = await sendDocumented(app.baseUrl, {
        method,
        target: '/api/2/accounts/profile/',
        headers: { Authorization: `Bearer ${w.a}`, 'Content-Type': 'application/json' },
        body: Buffer.from('{not json'),
      });
      expect([method, res.status]).toEqual([method, 200]);
    }
  });
});

describe('a body that does not arrive', () => {
  /** Resolves once `condition` holds, looking every 20 ms (fails the test after 10 s). */
  async function until(condition: () => boolean): Promise<void> {
    const deadline = Date.now() + 10_000;
    while (!condition()) {
      if (Date.now() > deadline) throw new Error('condition not met within 10 s');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  const loggedStatus = (requestId: string): unknown =>
    app.logs.map((line) => JSON.parse(line) as Record<string, unknown>).find((line) => line.requestId === requestId && line.msg === 'request')?.status;

  test('a client that goes away mid-body is logged 400 (never a 500), and the next request is served', async () => {
    const socket = net.connect(Number(new URL(app.baseUrl).port), '127.0.0.1');
    socket.on('error', () => undefined);
    const head = `POST ${UPDATE} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${w.a}\r\nContent-Type: application/json\r\nContent-Length: 100\r\nX-Request-Id: json-body-aborted\r\n\r\n`;
    await new Promise<void>((resolve) => socket.write(head + '[{"name":"st', () => resolve()));
    socket.destroy();
    await until(() => loggedStatus('json-body-aborted') !== undefined);
    expect(loggedStatus('json-body-aborted')).toBe(400);
    expect((await post(ONE_ITEM_TEXT)).status).toBe(200);
  });

  test('so does one whose body is compressed (the former reader waited for ever: its inflating stream was not told of the abort)', async () => {
    const socket = net.connect(Number(new URL(app.baseUrl).port), '127.0.0.1');
    socket.on('error', () => undefined);
    const gzipped = zlib.gzipSync(Buffer.from(ONE_ITEM_TEXT));
    const head = `POST ${UPDATE} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${w.a}\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\nContent-Length: ${gzipped.length}\r\nX-Request-Id: json-body-aborted-gzip\r\n\r\n`;
    await new Promise<void>((resolve) => socket.write(Buffer.concat([Buffer.from(head), gzipped.subarray(0, 12)]), () => resolve()));
    socket.destroy();
    await until(() => loggedStatus('json-body-aborted-gzip') !== undefined);
    expect(loggedStatus('json-body-aborted-gzip')).toBe(400);
  });

  test('a JSON body that trickles past HTTP_REQUEST_TIMEOUT_MS is answered 408 and cut off (the process’s own server)', async () => {
    const { app: koa } = await createApp(app.deps);
    const server = createHttpServer(koa.callback(), app.deps.config);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const socket = net.connect((server.address() as AddressInfo).port, '127.0.0.1');
      socket.on('error', () => undefined);
      const received: Buffer[] = [];
      socket.on('data', (chunk: Buffer) => received.push(chunk));
      const answer = new Promise<string>((resolve) => socket.on('close', () => resolve(Buffer.concat(received).toString('utf8'))));
      const body = Buffer.from(ONE_ITEM_TEXT);
      const started = Date.now();
      socket.write(
        `POST ${UPDATE} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${w.a}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
      );
      // One byte every 100 ms: the whole body would take longer than the request timeout.
      let sent = 0;
      const timer = setInterval(() => {
        if (socket.destroyed || sent >= body.length) return clearInterval(timer);
        socket.write(body.subarray(sent, ++sent));
      }, 100);
      const text = await answer;
      clearInterval(timer);
      expect(text).toMatch(/^HTTP\/1\.1 408 /);
      expect(text).toContain('{"detail":"The request took too long to arrive');
      expect(Date.now() - started).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  test('a character split between two chunks of the body is read whole', async () => {
    const items = [{ name: 'mood_note', date: '2026-11-05', value: 'é𝄞' }];
    const bytes = Buffer.from(JSON.stringify(items));
    const split = bytes.indexOf(0xc3) + 1; // inside é's two bytes
    const res = await new Promise<{ status: number; type: string; body: string }>((resolve, reject) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port: new URL(app.baseUrl).port,
          method: 'POST',
          path: UPDATE,
          headers: { Authorization: `Bearer ${w.a}`, 'Content-Type': 'application/json' },
        },
        (answer) => {
          const chunks: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => chunks.push(chunk));
          answer.on('end', () =>
            resolve({ status: answer.statusCode ?? 0, type: String(answer.headers['content-type']), body: Buffer.concat(chunks).toString('utf8') }),
          );
        },
      );
      req.on('error', reject);
      req.write(bytes.subarray(0, split), () => setImmediate(() => req.end(bytes.subarray(split))));
    });
    const parsed: unknown = JSON.parse(res.body);
    await assertDocumented({ method: 'POST', path: UPDATE, status: res.status, contentType: res.type, body: parsed, location: null });
    expect(res.status).toBe(200);
    expect(parsed).toEqual(applied(items));
  });
});

/**
 * Compressed answers (docs/decisions.md, "Compressed answers"): pages and API answers go as Brotli
 * or gzip to a client that accepts it, small answers and clients that accept neither get them as
 * they are, and the streamed export stays a stream (no Content-Length) that decodes to the CSV.
 */
import http from 'node:http';
import zlib from 'node:zlib';
import { startTestApp, type TestApp } from '../support/app';
import { makeSession, makeUser } from '../support/fixtures';
import { addAttribute, addValues } from '../support/seed';
import { addDays } from '../../src/domain/time';

let app: TestApp;
let session: string;
let token: string;

beforeAll(async () => {
  app = await startTestApp();
  const made = await makeUser(app, { timezone: 'UTC' });
  token = made.simpleToken;
  session = await makeSession(app, made.user);
  const steps = await addAttribute(app, made.user.id, { name: 'steps' });
  const values: Record<string, number> = {};
  for (let ago = 0; ago < 200; ago++) values[addDays('2026-11-20', -ago)] = 5000 + ago;
  await addValues(app, made.user.id, steps, values);
});
afterAll(async () => {
  await app.close();
});

/** One GET read as raw bytes (no automatic decoding), with its headers. */
function rawGet(path: string, headers: Record<string, string>): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const request = http.get(app.baseUrl + path, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    request.on('error', reject);
  });
}

const cookie = () => ({ Cookie: `daybook_session=${session}` });

test('a page goes as Brotli or gzip, whichever the browser accepts, and as it is to one that accepts neither', async () => {
  const br = await rawGet('/data/steps?days=90', { ...cookie(), 'Accept-Encoding': 'br' });
  expect(br.status).toBe(200);
  expect(br.headers['content-encoding']).toBe('br');
  expect(br.headers.vary).toMatch(/Accept-Encoding/i);
  const page = zlib.brotliDecompressSync(br.body).toString();
  expect(page).toMatch(/^<!doctype html>/i);
  expect(br.body.length).toBeLessThan(page.length / 3);

  const gz = await rawGet('/data/steps?days=90', { ...cookie(), 'Accept-Encoding': 'gzip' });
  expect(gz.headers['content-encoding']).toBe('gzip');
  expect(zlib.gunzipSync(gz.body).toString()).toMatch(/^<!doctype html>/i);

  const plain = await rawGet('/data/steps?days=90', { ...cookie(), 'Accept-Encoding': 'identity' });
  expect(plain.headers['content-encoding']).toBeUndefined();
  expect(plain.body.toString()).toMatch(/^<!doctype html>/i);
});

test('a large API answer is compressed; a small one is sent as it is', async () => {
  const large = await rawGet('/api/2/attributes/values/?attribute=steps&limit=100', { Authorization: `Token ${token}`, 'Accept-Encoding': 'gzip' });
  expect(large.status).toBe(200);
  expect(large.headers['content-encoding']).toBe('gzip');
  expect(JSON.parse(zlib.gunzipSync(large.body).toString()).results).toHaveLength(100);

  const small = await rawGet('/api/2/attributes/values/?attribute=steps&limit=1', { Authorization: `Token ${token}`, 'Accept-Encoding': 'gzip' });
  expect(small.status).toBe(200);
  expect(small.headers['content-encoding']).toBeUndefined();
  expect(small.body.length).toBeLessThan(1024);
  expect(JSON.parse(small.body.toString()).results).toHaveLength(1);
});

test('the streamed export is compressed as a stream and decodes to the CSV', async () => {
  const res = await rawGet('/settings/account/export/values.csv', { ...cookie(), 'Accept-Encoding': 'gzip' });
  expect(res.status).toBe(200);
  expect(res.headers['content-encoding']).toBe('gzip');
  expect(res.headers['content-length']).toBeUndefined();
  expect(res.headers['transfer-encoding']).toBe('chunked');
  expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
  const csv = zlib.gunzipSync(res.body).toString();
  expect(csv.split('\n')[0]).toMatch(/^\uFEFF?date,attribute,label,group,value\r?$/);
  const plain = await rawGet('/settings/account/export/values.csv', { ...cookie(), 'Accept-Encoding': 'identity' });
  expect(plain.headers['content-encoding']).toBeUndefined();
  expect(csv).toBe(plain.body.toString());
});

test('the API client the tests use (fetch) reads compressed answers as before', async () => {
  const res = await app.get('/api/2/attributes/values/?attribute=steps&limit=100', { token });
  expect(res.headers.get('content-encoding')).toMatch(/^(br|gzip)$/);
  expect(res.body.results).toHaveLength(100);
});

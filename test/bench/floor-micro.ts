/**
 * CPU micro-benchmarks of issue 35's third, fourth and fifth stops (docs/request-path.md, "Every request",
 * "The floor, again" and "The floor at 32 connections"): each per-request step that was replaced, its former code (the library's,
 * or floor-former.ts) against the current one, in one process, interleaved blocks, CPU time
 * (`process.cpuUsage`), medians; each pair is first checked to give the same answer. Run after `npm run build`:
 * `tsc -p tsconfig.bench.json && node dist/test/bench/floor-micro.js [--fourth|--fifth]`. Say the load average beside
 * the figures: the machine is shared.
 */
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import { createRequire } from 'node:module';
import Koa from 'koa';
import helmet from 'koa-helmet';
import pino from 'pino';
import { securityHeaders } from '../../src/http/security-headers';
import { lineWriter } from '../../src/logger';
import { hashCredential } from '../../src/domain/identity/credentials';
import { fullFormats } from 'ajv-formats/dist/formats';
import type { Request as ApiRequest } from 'openapi-backend';
import { createBackend, loadBundle, type ApiName, type Backend } from '../../src/http/backends';
import { declaredQuery, findOperation, parameterProblems } from '../../src/http/serve';
import { isFullDate } from '../../src/domain/time';
import { formerDeclaredQuery, formerRequestReader } from './floor-former';

const BLOCKS = 15;

/** CPU µs per call of `run`, over `count` calls. */
async function cpuPerCall(run: (index: number) => unknown, count: number): Promise<number> {
  const start = process.cpuUsage();
  for (let index = 0; index < count; index++) await run(index);
  const used = process.cpuUsage(start);
  return (used.user + used.system) / count;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1];

/** Old and new, block after block, so that both see the same machine; `setup` runs untimed before each block. */
async function compare(name: string, count: number, old: (index: number) => unknown, current: (index: number) => unknown, setup = () => {}): Promise<void> {
  const pairs: [number, number][] = [];
  for (let block = 0; block < BLOCKS; block++) {
    setup();
    const before = await cpuPerCall(old, count);
    setup();
    pairs.push([before, await cpuPerCall(current, count)]);
  }
  const [before, after] = [median(pairs.map((p) => p[0])), median(pairs.map((p) => p[1]))];
  console.log(`${name}: ${before.toFixed(2)} -> ${after.toFixed(2)} µs per request`);
}

/** Fresh Koa contexts on unsent responses, as many as one block uses. */
function contexts(count: number): Koa.Context[] {
  const app = new Koa();
  return Array.from({ length: count }, () => {
    const req = new http.IncomingMessage(new net.Socket());
    return app.createContext(req, new http.ServerResponse(req)) as Koa.Context;
  });
}

async function main(): Promise<void> {
  console.log(
    `load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(', ')}`,
  );
  const next = async () => undefined;

  const helmetPerRequest = helmet({ contentSecurityPolicy: { directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } } });
  const replayed = await securityHeaders();
  let fresh = contexts(2000);
  await compare(
    'security headers (koa-helmet per request -> replayed)',
    2000,
    (i) => helmetPerRequest(fresh[i], next),
    (i) => replayed(fresh[i], next),
    () => (fresh = contexts(2000)),
  );

  // The request line to a 12 KB-buffered destination: pino's path to a text-mode sonic-boom (the
  // former logger) against lineWriter to a buffer-mode one (logger.ts).
  const options = { level: 'info', base: { service: 'daybook' } };
  const textBlocks = pino.destination({ dest: '/dev/null', sync: false, minLength: 12 * 1024 });
  const byteBlocks = pino.destination({ dest: '/dev/null', sync: false, minLength: 12 * 1024, contentMode: 'buffer' });
  const writeBytes = byteBlocks.write.bind(byteBlocks) as unknown as (bytes: Buffer) => boolean;
  const former = pino(options, textBlocks).child({}, { redact: [] });
  const write = lineWriter(pino(options, { write: (line: string) => writeBytes(Buffer.from(line)) }));
  const ids = Array.from({ length: 1000 }, () => crypto.randomUUID());
  const line = (i: number) => ({
    requestId: ids[i % 1000],
    method: 'GET',
    path: '/api/2/accounts/profile/',
    status: 200,
    ms: (i % 97) / 7,
    address: '127.0.0.1',
    auth: { client: 'abcdefabcdef', kind: 'oauth', user: i % 200 },
  });
  await compare(
    'request line (pino, text blocks -> lineWriter, byte blocks)',
    20_000,
    (i) => former.info(line(i), 'request'),
    (i) => write('info', line(i), 'request'),
  );

  const token = crypto.randomBytes(32).toString('base64url');
  await compare(
    'credential hash (createHash -> crypto.hash)',
    20_000,
    () => crypto.createHash('sha256').update(token, 'utf8').digest('hex'),
    () => hashCredential(token),
  );
}

/** A document's backend with a do-nothing handler per operation (only its router and validators are used). */
async function backendOf(name: ApiName): Promise<Backend> {
  const handlers: Record<string, () => void> = {};
  for (const item of Object.values(loadBundle(name).paths ?? {})) {
    for (const operation of Object.values(item ?? {}) as Array<{ operationId?: string }>) {
      if (operation?.operationId) handlers[operation.operationId] = () => undefined;
    }
  }
  return createBackend(name, handlers);
}

/** Issue 35's fourth stop ("The floor, again"). */
async function fourthStop(): Promise<void> {
  const v2 = await backendOf('v2');
  const headers = { host: '127.0.0.1:4000', authorization: `Bearer ${'a'.repeat(43)}`, connection: 'keep-alive' };
  for (const [operationId, path, query] of [
    ['getProfile', '/api/2/accounts/profile/', {}],
    ['listAttributeValues', '/api/2/attributes/values/', { attribute: 'steps', limit: '100' }],
  ] as const) {
    const operation = v2.api.getOperation(operationId)!;
    const former = formerRequestReader(v2.api, operation);
    const current = v2.readers.get(operationId)!;
    const request = (): ApiRequest => ({ method: 'get', path, query: { ...query }, headers, body: undefined });
    assert.deepEqual(current(request()), former(request()));
    await compare(
      `request reader, ${operationId} (spreads and two header copies -> fields written out)`,
      20_000,
      () => former(request()),
      () => current(request()),
    );
  }

  const profilePath = '/api/2/accounts/profile/';
  assert.equal(findOperation(v2, 'get', profilePath), v2.api.matchOperation({ method: 'get', path: profilePath, headers: {}, query: {} }));
  await compare(
    'operation match (openapi-backend matchOperation -> table of paths without parameters)',
    100_000,
    () => v2.api.matchOperation({ method: 'get', path: profilePath, headers: {}, query: {} }),
    () => findOperation(v2, 'get', profilePath),
  );

  const values = v2.api.getOperation('listAttributeValues')!;
  const declared = v2.queryNames.get('listAttributeValues')!;
  const queries = Array.from({ length: 1000 }, (_, i) => `attribute=steps&limit=100&_=${i}`);
  const currentQuery = (i: number) => {
    const ctx = { querystring: queries[i % 1000], path: '/api/2/attributes/values/' } as unknown as Parameters<typeof declaredQuery>[0];
    const query = declaredQuery(ctx, declared);
    return [parameterProblems(ctx, values, query), query];
  };
  assert.deepEqual(currentQuery(0)[1], formerDeclaredQuery(queries[0], declared)[1]);
  await compare(
    "declared query and NUL check (Koa's parse, entries, filter, fromEntries, flat -> one URLSearchParams pass)",
    100_000,
    (i) => formerDeclaredQuery(queries[i % 1000], declared),
    currentQuery,
  );

  const fullDate = (fullFormats.date as { validate: (text: string) => boolean }).validate;
  const dates = Array.from({ length: 1000 }, (_, i) => `2026-${String(1 + (i % 12)).padStart(2, '0')}-${String(1 + (i % 28)).padStart(2, '0')}`);
  const batch = dates.slice(0, 35);
  await compare(
    "ajv's date format, 35 fields (an update's items; ajv-formats full -> isFullDate)",
    20_000,
    () => batch.every(fullDate),
    () => batch.every(isFullDate),
  );
}

/** A fresh response on its own unconnected socket, as Node makes one per request. */
function freshResponse(): http.ServerResponse {
  const req = new http.IncomingMessage(new net.Socket());
  return new http.ServerResponse(req);
}

/** The header block Node built for `res`, without its Date line (which changes with the second). */
const headerBlock = (res: http.ServerResponse) => (res as unknown as { _header: string })._header.replace(/^Date: .*\r\n/m, '');

/**
 * The fields of a `GET /api/2/accounts/profile/` answer, in the order the chain sets them: the
 * request id, helmet's (replayed by security-headers.ts), no-store, the rate limit's five, Koa's
 * type and length, CORS's two and Vary. Read from a real run of the security headers layer.
 */
async function profileAnswerFields(bodyBytes: number): Promise<[string, string][]> {
  const fields: [string, string][] = [['X-Request-Id', crypto.randomUUID()]];
  const recorder = { setHeader: (name: string, value: string) => fields.push([name, value]), removeHeader: () => undefined };
  await (
    await securityHeaders()
  )({ res: recorder } as unknown as Koa.Context, async () => undefined);
  fields.push(
    ['Cache-Control', 'no-store'],
    ['X-RateLimit-Limit', '100000000'],
    ['X-RateLimit-Remaining', '99998765'],
    ['X-RateLimit-Reset', '3412'],
    ['RateLimit-Policy', '"default";q=100000000;w=3600'],
    ['RateLimit', '"default";r=99998765;t=3412'],
    ['Content-Type', 'application/json; charset=utf-8'],
    ['Content-Length', String(bodyBytes)],
    ['Access-Control-Allow-Origin', '*'],
    ['Access-Control-Expose-Headers', 'X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, RateLimit, RateLimit-Policy, Retry-After'],
    ['Vary', 'Accept-Encoding'],
  );
  return fields;
}

/**
 * Issue 35's fifth stop ("The floor at 32 connections"): what the floor's headers and Koa's
 * per-response `onFinished` cost, each against what would replace it. Nothing of this was kept:
 * the figures are the reasons (docs/request-path.md).
 */
async function fifthStop(): Promise<void> {
  const body = JSON.stringify({ id: 17, username: 'bench-17', created: '2026-01-01T00:00:00.000Z' });
  const fields = await profileAnswerFields(Buffer.byteLength(body));
  const raw = fields.flat();
  let responses: http.ServerResponse[] = [];
  const setEach = (res: http.ServerResponse) => {
    for (const [name, value] of fields) res.setHeader(name, value);
    res.statusCode = 200;
    res.end(body);
  };
  const writeHeadOnce = (res: http.ServerResponse) => {
    res.writeHead(200, raw);
    res.end(body);
  };
  const [a, b] = [freshResponse(), freshResponse()];
  setEach(a);
  writeHeadOnce(b);
  assert.equal(headerBlock(a), headerBlock(b));
  console.log(`(${fields.length} fields, header block ${headerBlock(a).length} bytes)`);
  await compare(
    `an API answer's ${fields.length} fields: setHeader each, then end -> one writeHead(status, list), then end`,
    5000,
    (i) => setEach(responses[i]),
    (i) => writeHeadOnce(responses[i]),
    () => (responses = Array.from({ length: 5000 }, freshResponse)),
  );
  const token = /^[\^_`a-zA-Z\-0-9!#$%&'*+.|~]+$/;
  const invalid = /[^\t\x20-\x7e\x80-\xff]/;
  await compare(
    `of which Node's name and value checks, ${fields.length} fields (no checks -> both regular expressions)`,
    100_000,
    () => fields.length,
    () => fields.every(([name, value]) => token.test(name) && !invalid.test(value)),
  );

  // Koa's handleRequest registers on-finished on every response (its socket's error reported after
  // the answer): ee-first's four listeners, an AsyncResource, removed when the response finishes.
  const onFinished = createRequire(require.resolve('koa'))('on-finished') as (res: http.ServerResponse, listener: (error: unknown) => void) => void;
  const finishAlone = (res: http.ServerResponse) => res.emit('finish');
  const withOnFinished = (res: http.ServerResponse) => {
    onFinished(res, () => undefined);
    res.emit('finish');
  };
  const onSocket = () =>
    Array.from({ length: 5000 }, () => {
      const res = freshResponse();
      (res as unknown as { socket: net.Socket }).socket = new net.Socket();
      return res;
    });
  await compare(
    "Koa's per-response onFinished (a response finishing: with it -> without it)",
    5000,
    (i) => withOnFinished(responses[i]),
    (i) => finishAlone(responses[i]),
    () => (responses = onSocket()),
  );
}

// `--fourth`, `--fifth`: that stop's comparisons only.
const only = process.argv.includes('--fifth') ? fifthStop : process.argv.includes('--fourth') ? fourthStop : undefined;
void (only ? only() : main().then(fourthStop).then(fifthStop));

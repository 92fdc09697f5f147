/**
 * CPU micro-benchmark of issue 35's fourth stop (docs/request-path.md, "The body reader"): reading
 * the update bench's real 35-item JSON body, the former path (koa-body → co-body → raw-body →
 * @hapi/bourne, then body.ts's walk) against the current one (http/json-body-reader.ts, the walk
 * with its `__proto__` check), in one process, interleaved blocks, CPU time (`process.cpuUsage`),
 * medians. Each request is a real IncomingMessage holding the body, read through a Koa context.
 * Run after `npm run build`: `tsc -p tsconfig.bench.json && node dist/test/bench/body-micro.js`.
 * Say the load average beside the figures: the machine is shared.
 */
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import Koa from 'koa';
import { koaBody } from 'koa-body';
import coBody from 'co-body';
import { BODY_LIMIT_BYTES, BODY_MAX_DEPTH, FORM_FIELD_LIMIT, parseBody } from '../../src/http/body';
import { readJsonBody } from '../../src/http/json-body-reader';
import { allScenarios } from './scenarios';

const BLOCKS = 21;
const PER_BLOCK = 2000;

/** The former koa-body options of body.ts, JSON included. */
const formerParser = koaBody({
  json: true,
  jsonStrict: false,
  urlencoded: true,
  multipart: true,
  text: false,
  jsonLimit: BODY_LIMIT_BYTES,
  formLimit: BODY_LIMIT_BYTES,
  queryString: { parameterLimit: FORM_FIELD_LIMIT, arrayLimit: FORM_FIELD_LIMIT },
  parsedMethods: ['POST', 'PUT', 'PATCH', 'DELETE'] as never,
  formidable: { maxFileSize: BODY_LIMIT_BYTES, maxTotalFileSize: BODY_LIMIT_BYTES, maxFieldsSize: BODY_LIMIT_BYTES, maxFiles: 0 },
  onError: (error: Error) => {
    throw error;
  },
});

/** The former walk (its depth and number checks; the key check was bourne's). */
function formerScan(value: unknown, depth: number): number {
  if (typeof value === 'number') return Number.isFinite(value) ? 0 : 1;
  if (value === null || typeof value !== 'object') return 0;
  if (depth >= BODY_MAX_DEPTH) return 2;
  let found = 0;
  for (const child of Array.isArray(value) ? value : Object.values(value)) {
    const result = formerScan(child, depth + 1);
    if (result === 2) return 2;
    found |= result;
  }
  return found;
}

/** body.ts's former parseBody for a JSON body: its header checks, koa-body, the walk. */
async function formerParseBody(ctx: Koa.Context): Promise<void> {
  const declared = Number(ctx.get('Content-Length'));
  if (Number.isFinite(declared) && declared > BODY_LIMIT_BYTES) throw new Error('413');
  const type = (ctx.get('Content-Type').split(';')[0] ?? '').trim().toLowerCase();
  if (!['application/json'].includes(type)) throw new Error('415');
  await formerParser(ctx, async () => undefined);
  if (formerScan(ctx.request.body, 0) !== 0) throw new Error('400');
}

/**
 * Koa contexts of POSTs whose body (`bytes`, one chunk) is waiting to be read: arrived in full
 * (`complete`, as Node's parser marks it: the bench's case) or not yet marked so.
 */
function contexts(count: number, bytes: Buffer, complete = true): Koa.Context[] {
  const app = new Koa();
  return Array.from({ length: count }, () => {
    const req = new http.IncomingMessage(new net.Socket());
    req.method = 'POST';
    req.url = '/api/2/attributes/update/';
    req.headers = { host: 'localhost', 'content-type': 'application/json', 'content-length': String(bytes.length) };
    req.push(bytes);
    req.push(null);
    req.complete = complete;
    return app.createContext(req, new http.ServerResponse(req)) as Koa.Context;
  });
}

/** CPU µs per call of `run`, over `count` calls. */
async function cpuPerCall(run: (index: number) => Promise<unknown>, count: number): Promise<number> {
  const start = process.cpuUsage();
  for (let index = 0; index < count; index++) await run(index);
  const used = process.cpuUsage(start);
  return (used.user + used.system) / count;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1];

/** Former and current, block after block on fresh requests, so that both see the same machine. */
async function compare(
  name: string,
  bytes: Buffer,
  former: (ctx: Koa.Context) => Promise<unknown>,
  current: (ctx: Koa.Context) => Promise<unknown>,
  complete = true,
): Promise<void> {
  const pairs: [number, number][] = [];
  for (let block = 0; block < BLOCKS; block++) {
    let fresh = contexts(PER_BLOCK, bytes, complete);
    const before = await cpuPerCall((i) => former(fresh[i]), PER_BLOCK);
    fresh = contexts(PER_BLOCK, bytes, complete);
    pairs.push([before, await cpuPerCall((i) => current(fresh[i]), PER_BLOCK)]);
  }
  const [before, after] = [median(pairs.map((p) => p[0])), median(pairs.map((p) => p[1]))];
  console.log(`${name}: ${before.toFixed(2)} -> ${after.toFixed(2)} µs per request (ratio ${(after / before).toFixed(2)})`);
}

async function main(): Promise<void> {
  const load = () =>
    os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(', ');
  const update = allScenarios('2026-11-27').find((s) => s.name === 'update')!;
  const bytes = Buffer.from(update.body!, 'utf8');
  console.log(`update body: ${bytes.length} bytes; load average ${load()}`);

  // The same value either way, checked before anything is timed.
  const [a] = contexts(1, bytes);
  const [b] = contexts(1, bytes);
  await formerParseBody(a);
  await parseBody(b, ['application/json']);
  if (JSON.stringify(a.request.body) !== JSON.stringify(b.request.body) || JSON.stringify(b.request.body) !== update.body) {
    throw new Error('the two readers disagree');
  }

  await compare(
    'the reader alone (co-body.json -> readJsonBody)',
    bytes,
    (ctx) => coBody.json(ctx.req, { limit: BODY_LIMIT_BYTES, strict: false }),
    (ctx) => readJsonBody(ctx.req, BODY_LIMIT_BYTES),
  );
  await compare('parseBody of a JSON body (koa-body + walk -> reader + walk)', bytes, formerParseBody, (ctx) => parseBody(ctx, ['application/json']));
  // Marked complete only once the reader has started: the stream path (a body that arrives after
  // its read began), as Node's parser marks a request before its stream's end is emitted.
  const completeAfter = (read: (ctx: Koa.Context) => Promise<unknown>) => (ctx: Koa.Context) => {
    const reading = read(ctx);
    ctx.req.complete = true;
    return reading;
  };
  await compare(
    'parseBody of a body read as a stream',
    bytes,
    completeAfter(formerParseBody),
    completeAfter((ctx) => parseBody(ctx, ['application/json'])),
    false,
  );
  console.log(`load average ${load()}`);
}

void main();

/**
 * CPU micro-benchmarks of issue 35's third stop (docs/request-path.md, "Every request"): each
 * per-request step that was replaced, its former code against the current one, in one process,
 * interleaved blocks, CPU time (`process.cpuUsage`), medians. Run after `npm run build`:
 * `tsc -p tsconfig.bench.json && node dist/test/bench/floor-micro.js`. Say the load average beside
 * the figures: the machine is shared.
 */
import crypto from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import Koa from 'koa';
import helmet from 'koa-helmet';
import pino from 'pino';
import { securityHeaders } from '../../src/http/security-headers';
import { lineWriter } from '../../src/logger';
import { hashCredential } from '../../src/domain/identity/credentials';

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

void main();

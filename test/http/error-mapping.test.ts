/**
 * The error mapper at the top of the chain: an unexpected exception is a 500 with the error body
 * and a logged stack, the process keeps serving; a database outage is a 503.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import pino from 'pino';
import { Writable } from 'node:stream';
import { requestContext } from '../../src/http/request-context';

async function serve(handler: Koa.Middleware) {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  const app = new Koa();
  app.use(requestContext(pino({ level: 'info' }, sink), 0));
  app.use(handler);
  const server = http.createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, lines, close: () => new Promise((r) => server.close(r)) };
}

test('an unexpected exception is a 500 with the error body naming the request id, logged with its stack', async () => {
  let calls = 0;
  const s = await serve(async (ctx) => {
    calls += 1;
    if (calls === 1) throw new Error('boom: secret internals');
    ctx.body = { ok: true };
  });
  try {
    const res = await fetch(`${s.url}/x`);
    const body = (await res.json()) as { detail: string };
    expect(res.status).toBe(500);
    expect(body.detail).toContain(res.headers.get('x-request-id')!);
    expect(body.detail).not.toContain('boom');
    const logged = s.lines.find((l) => l.msg === 'request failed')!;
    expect((logged.err as { stack: string }).stack).toContain('boom: secret internals');
    // The process (and the app) keep serving.
    expect((await fetch(`${s.url}/x`)).status).toBe(200);
  } finally {
    await s.close();
  }
});

test('a refused database connection is a 503 with Retry-After, not a 500', async () => {
  const s = await serve(async () => {
    throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
  });
  try {
    const res = await fetch(`${s.url}/x`);
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('5');
    expect(((await res.json()) as { detail: string }).detail).toMatch(/temporarily unavailable/);
  } finally {
    await s.close();
  }
});

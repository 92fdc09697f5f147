/**
 * `dispatch` reads an operation's declared query parameters itself (http/serve.ts `declaredQuery`):
 * they must be what Koa's `ctx.query` gives for those names, for any query string a client sends.
 */
import http from 'node:http';
import net from 'node:net';
import Koa from 'koa';
import { declaredQuery } from '../../src/http/serve';

const app = new Koa();

/** A real Koa context for a request to `url`. */
function contextOf(url: string): Koa.Context {
  const req = new http.IncomingMessage(new net.Socket());
  req.url = url;
  req.method = 'GET';
  return app.createContext(req, new http.ServerResponse(req)) as Koa.Context;
}

const declared = new Set(['attribute', 'limit', 'page', 'date_max', 'a b', 'é', '']);

/** Koa's query, only the declared names, in its order. */
function koaDeclared(ctx: Koa.Context): Record<string, unknown> {
  return Object.fromEntries(Object.entries(ctx.query).filter(([name]) => declared.has(name)));
}

test('the declared parameters of odd query strings are what Koa parses', () => {
  const queries = [
    '',
    '?',
    '?attribute=steps&limit=100',
    '?limit=1&attribute=steps&limit=2&limit=3',
    '?attribute=a+b&page=%2B1&date_max=%zz&x=1',
    '?attribute&limit=&=5&&page',
    '?a+b=1&a%20b=2&%C3%A9=3&é=4',
    '?attribute=%00&attribute=%E2%82%AC&__proto__=1&constructor=2',
    '?page=1#fragment&limit=3',
    '?attribute=1;limit=2',
  ];
  const odd = ['attribute', 'limit', 'page', 'x', '', '%', '+', '=', '&', '%2', '%C3', 'é', ' ', '__proto__'];
  for (let i = 0; i < 2000; i++) {
    const parts = Array.from({ length: 1 + (i % 6) }, (_, j) => `${odd[(i * 7 + j * 3) % odd.length]}=${odd[(i + j * 5) % odd.length]}${j}`);
    queries.push(`?${parts.join(i % 3 === 0 ? '&' : '&&')}`);
  }
  for (const query of queries) {
    const ctx = contextOf(`/api/2/attributes/values/${query}`);
    const ours = declaredQuery(ctx, declared);
    expect([query, JSON.stringify(ours)]).toEqual([query, JSON.stringify(koaDeclared(contextOf(`/api/2/attributes/values/${query}`)))]);
    expect(ours).toEqual(koaDeclared(ctx));
  }
});

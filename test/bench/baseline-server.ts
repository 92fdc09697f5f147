/**
 * The bare baseline the bench compares Daybook with: `node:http` and `pg`, answering the bench's
 * requests with the same SQL and the same JSON (baseline-queries.ts) and nothing else: no framework,
 * no request validation, no authentication (the bench's tokens are looked up in a map handed over
 * at start, which also holds each user's time zone), no rate limit, no logging.
 *
 * Run compiled: `node dist/test/bench/baseline-server.js` with DATABASE_URL, PORT (0: any),
 * BASELINE_TOKENS (a JSON file of the bench's tokens) and DB_POOL_MAX (Daybook's pool size).
 * Prints one JSON line `{"listening": <port>}` when ready; SIGTERM closes it.
 */
import fs from 'node:fs';
import http from 'node:http';
import pg from 'pg';
import { localDate, localDateTime } from '../../src/domain/time';
import * as q from './baseline-queries';

// The same type parsers as Daybook's knex module: dates stay YYYY-mm-dd, int8 becomes a number.
pg.types.setTypeParser(pg.types.builtins.DATE, (value: string) => value);
pg.types.setTypeParser(pg.types.builtins.INT8, (value: string) => Number(value));

interface Caller {
  userId: number;
  clientPk: number;
  timezone: string;
}

const MAX_PAGE_SIZE = 100;

function send(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

function intParam(params: URLSearchParams, name: string, fallback: number): number {
  const raw = params.get(name);
  return raw === null || raw === '' ? fallback : Number(raw);
}

/** The paged envelope, with next/previous built as Daybook builds them (from the request's host). */
function envelope(req: http.IncomingMessage, url: URL, page: number, limit: number, result: q.Page<unknown>) {
  const link = (to: number) => {
    const target = new URL(`http://${req.headers.host}${url.pathname}`);
    for (const [name, value] of url.searchParams) if (name !== 'page') target.searchParams.append(name, value);
    target.searchParams.set('page', String(to));
    return target.toString();
  };
  const offset = (page - 1) * limit;
  return {
    count: result.count,
    next: offset + result.results.length < result.count ? link(page + 1) : null,
    previous: page > 1 ? link(page - 1) : null,
    results: result.results,
  };
}

async function readJson(req: http.IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

function main(): void {
  const callers = new Map<string, Caller>(
    (JSON.parse(fs.readFileSync(process.env.BASELINE_TOKENS!, 'utf8')) as Array<Caller & { token: string }>).map((t) => [
      t.token,
      { userId: t.userId, clientPk: t.clientPk, timezone: t.timezone },
    ]),
  );
  const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.DB_POOL_MAX ?? 10) });

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://baseline');
    const caller = callers.get((req.headers.authorization ?? '').replace(/^Bearer /, ''));
    if (!caller) return send(res, 401, { detail: 'Unknown token.' });
    const now = new Date();
    const today = localDate(now, caller.timezone);
    const page = intParam(url.searchParams, 'page', 1);
    const limit = Math.min(intParam(url.searchParams, 'limit', 20), MAX_PAGE_SIZE);
    const offset = (page - 1) * limit;
    const route = `${req.method} ${url.pathname}`;
    const answer = async (): Promise<[number, unknown]> => {
      switch (route) {
        case 'GET /api/2/attributes/with-values/':
          return [
            200,
            envelope(
              req,
              url,
              page,
              limit,
              await q.withValues(pool, caller.userId, url.searchParams.get('date_max') ?? today, intParam(url.searchParams, 'days', 1), limit, offset),
            ),
          ];
        case 'GET /api/2/attributes/values/':
          return [
            200,
            envelope(
              req,
              url,
              page,
              limit,
              await q.values(pool, caller.userId, url.searchParams.get('attribute') ?? '', url.searchParams.get('date_max') ?? today, limit, offset),
            ),
          ];
        case 'GET /api/2/attributes/':
          return [200, envelope(req, url, page, limit, await q.attributes(pool, caller.userId, now, limit, offset))];
        case 'GET /api/2/correlations/':
          return [200, envelope(req, url, page, limit, await q.correlations(pool, caller.userId, limit, offset))];
        case 'GET /api/2/accounts/profile/': {
          const user = await q.profile(pool, caller.userId);
          if (!user) return [404, { detail: 'This account no longer exists.' }];
          return [
            200,
            {
              username: user.username,
              first_name: user.first_name,
              last_name: user.last_name,
              avatar: user.avatar,
              timezone: user.timezone,
              local_time: localDateTime(now, user.timezone as string),
              imperial_distance: user.imperial_distance,
              imperial_weight: user.imperial_weight,
              imperial_energy: user.imperial_energy,
              imperial_liquid: user.imperial_liquid,
              imperial_temperature: user.imperial_temperature,
              trial: user.trial,
              delinquent: user.delinquent,
            },
          ];
        }
        case 'POST /api/2/attributes/update/':
        case 'POST /api/2/attributes/increment/':
        case 'POST /api/2/attributes/acquire/':
        case 'POST /api/2/attributes/create/': {
          const items = (await readJson(req)) as Array<Record<string, unknown>>;
          const writer = { userId: caller.userId, clientPk: caller.clientPk, today };
          const write = { update: q.update, increment: q.increment, acquire: q.acquire, create: q.create }[url.pathname.split('/')[4] as 'update'];
          const result = await write(pool, writer, items, now);
          return [result.failed.length === 0 ? 200 : 202, result];
        }
        default:
          return [404, { detail: `Nothing is served at ${url.pathname}.` }];
      }
    };
    answer().then(
      ([status, body]) => send(res, status, body),
      (error: unknown) => send(res, 500, { detail: error instanceof Error ? error.message : String(error) }),
    );
  });
  server.keepAliveTimeout = 65_000;
  server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
    const address = server.address();
    process.stdout.write(JSON.stringify({ listening: typeof address === 'object' && address ? address.port : 0 }) + '\n');
  });
  process.on('SIGTERM', () => {
    server.close(() => void pool.end().then(() => process.exit(0)));
    server.closeAllConnections();
  });
}

main();

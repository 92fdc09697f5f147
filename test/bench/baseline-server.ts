/**
 * The baseline the bench compares Daybook with: the fastest correct plain server, `node:http` and
 * `pg`, answering the bench's requests with the same JSON (baseline-queries.ts) and nothing else:
 * no framework, no request validation, no logging. Correct means what the spec asks of every API
 * request: the Bearer token is checked against the database (a revoked, replaced or expired token
 * is refused at once, a new one works at once) and every request is counted against the rate limit
 * on the shared table (RATE_LIMIT_PER_HOUR per hour, per person and app), with the X-RateLimit-*
 * and RateLimit headers on every answer and 429 past the limit; the check, the count and the data
 * are one statement per request.
 *
 * BASELINE_MODE=bare is the old bare server, kept to measure what authentication and the count
 * cost: the token is looked up in a map handed over at start (BASELINE_TOKENS, a JSON file of the
 * bench's tokens with each user's id and time zone), nothing is counted, no rate-limit headers.
 *
 * Run compiled: `node dist/test/bench/baseline-server.js` with DATABASE_URL, PORT (0: any),
 * DB_POOL_MAX (Daybook's pool size), RATE_LIMIT_PER_HOUR (Daybook's), and in the bare mode
 * BASELINE_MODE=bare and BASELINE_TOKENS. Prints one JSON line `{"listening": <port>}` when ready;
 * SIGTERM closes it. Imported, `startBaselineServer` starts one in-process (its test:
 * test/bench/baseline.test.ts).
 */
import fs from 'node:fs';
import http from 'node:http';
import pg from 'pg';
import { localDate, localDateTime } from '../../src/domain/time';
import * as q from './baseline-queries';

// The same type parsers as Daybook's knex module: dates stay YYYY-mm-dd, int8 becomes a number.
pg.types.setTypeParser(pg.types.builtins.DATE, (value: string) => value);
pg.types.setTypeParser(pg.types.builtins.INT8, (value: string) => Number(value));

const MAX_PAGE_SIZE = 100;
/** The window of the rate limit, in seconds (http/rate-limit.ts WINDOW_SECONDS). */
const WINDOW_SECONDS = q.WINDOW_MS / 1000;

/** Daybook's answers to a Bearer token it cannot use (http/auth.ts). */
const TOKEN_PROBLEMS = {
  unknown: 'The access token is invalid.',
  expired: 'The access token has expired: refresh it with the refresh token.',
  revoked: 'The access token has been revoked or replaced by a refresh.',
} as const;

/** The challenge of a refused Bearer token (RFC 6750), as Daybook words it. */
function bearerChallenge(detail: string): string {
  return `Bearer realm="daybook", error="invalid_token", error_description="${detail.replace(/"/g, "'")}"`;
}

type Headers = Record<string, string | number>;

function send(res: http.ServerResponse, status: number, body: unknown, headers: Headers = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { ...headers, 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

/** The rate-limit headers of a counted request, computed as http/rate-limit.ts computes them. */
function rateLimitHeaders(count: { points: number; expire: number }, limit: number): { headers: Headers; reset: number } {
  const reset = Math.max(0, Math.ceil(Math.max(0, count.expire - Date.now()) / 1000));
  const remaining = Math.max(0, limit - count.points);
  return {
    reset,
    headers: {
      'X-RateLimit-Limit': String(limit),
      'X-RateLimit-Remaining': String(remaining),
      'X-RateLimit-Reset': String(reset),
      'RateLimit-Policy': `"default";q=${limit};w=${WINDOW_SECONDS}`,
      RateLimit: `"default";r=${remaining};t=${reset}`,
    },
  };
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

type BareCaller = { userId: number; clientPk: number; timezone: string };

/** The bare mode's map of tokens (the BASELINE_TOKENS file). */
function bareCallers(file: string): Map<string, BareCaller> {
  const tokens = JSON.parse(fs.readFileSync(file, 'utf8')) as Array<BareCaller & { token: string }>;
  return new Map(tokens.map((t) => [t.token, { userId: t.userId, clientPk: t.clientPk, timezone: t.timezone }]));
}

export interface BaselineOptions {
  databaseUrl: string;
  poolMax: number;
  /** Requests per hour per person and app (Daybook's RATE_LIMIT_PER_HOUR). */
  rateLimit: number;
  /** The bare mode: these callers by token, nothing looked up or counted. */
  bareCallers?: Map<string, BareCaller>;
}

/** A running baseline: its HTTP server (listening on `port` of 127.0.0.1) and its pool. */
export interface Baseline {
  server: http.Server;
  port: number;
  close(): Promise<void>;
}

/** Starts the baseline on 127.0.0.1:`port` (0: any). */
export async function startBaselineServer(options: BaselineOptions, port = 0): Promise<Baseline> {
  const { rateLimit, bareCallers: callers } = options;
  const pool = new pg.Pool({ connectionString: options.databaseUrl, max: options.poolMax });

  /** Who asks; undefined when the bare mode does not know the token. */
  const askerOf = (req: http.IncomingMessage, now: Date): q.Asker | undefined => {
    const token = (req.headers.authorization ?? '').replace(/^Bearer /, '');
    if (!callers) return { mode: 'checked', token, now, limit: rateLimit, address: req.socket.remoteAddress ?? '' };
    const caller = callers.get(token);
    return caller && { mode: 'bare', userId: caller.userId, clientPk: caller.clientPk, today: localDate(now, caller.timezone), now };
  };

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://baseline');
    const now = new Date();
    const asker = askerOf(req, now);
    if (!asker) return send(res, 401, { detail: TOKEN_PROBLEMS.unknown }, { 'WWW-Authenticate': bearerChallenge(TOKEN_PROBLEMS.unknown) });
    const page = intParam(url.searchParams, 'page', 1);
    const limit = Math.min(intParam(url.searchParams, 'limit', 20), MAX_PAGE_SIZE);
    const offset = (page - 1) * limit;
    const paged = (answer: q.Answered<q.Page<unknown>>) => ({
      gate: answer.gate,
      status: 200,
      body: answer.ok && envelope(req, url, page, limit, answer.result),
    });
    const route = `${req.method} ${url.pathname}`;
    const answer = async (): Promise<{ gate: q.Gate; status: number; body: unknown } | undefined> => {
      switch (route) {
        case 'GET /api/2/attributes/with-values/':
          return paged(await q.withValues(pool, asker, url.searchParams.get('date_max'), intParam(url.searchParams, 'days', 1), limit, offset));
        case 'GET /api/2/attributes/values/':
          return paged(await q.values(pool, asker, url.searchParams.get('attribute') ?? '', url.searchParams.get('date_max'), limit, offset));
        case 'GET /api/2/attributes/':
          return paged(await q.attributes(pool, asker, limit, offset));
        case 'GET /api/2/correlations/':
          return paged(await q.correlations(pool, asker, limit, offset));
        case 'GET /api/2/accounts/profile/': {
          const answer = await q.profile(pool, asker);
          if (!answer.ok) return { gate: answer.gate, status: 200, body: undefined };
          const user = answer.result;
          if (!user) return { gate: answer.gate, status: 404, body: { detail: 'This account no longer exists.' } };
          return {
            gate: answer.gate,
            status: 200,
            body: {
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
          };
        }
        case 'POST /api/2/attributes/update/':
        case 'POST /api/2/attributes/increment/':
        case 'POST /api/2/attributes/acquire/':
        case 'POST /api/2/attributes/create/': {
          const items = (await readJson(req)) as Array<Record<string, unknown>>;
          const write = { update: q.update, increment: q.increment, acquire: q.acquire, create: q.create }[url.pathname.split('/')[4] as 'update'];
          const answer = await write(pool, asker, items);
          return { gate: answer.gate, status: answer.ok && answer.result.failed.length > 0 ? 202 : 200, body: answer.ok && answer.result };
        }
        default:
          return undefined;
      }
    };
    answer().then(
      (answer) => {
        if (!answer) return send(res, 404, { detail: `Nothing is served at ${url.pathname}.` });
        const { gate } = answer;
        const counted = gate.count && rateLimitHeaders(gate.count, rateLimit);
        const headers = counted?.headers ?? {};
        if (gate.pass) return send(res, answer.status, answer.body, headers);
        if (gate.problem === 'limited') {
          const retryAfter = counted!.reset;
          return send(
            res,
            429,
            { detail: `Request limit exceeded: ${rateLimit} requests per hour. Try again in ${retryAfter} seconds.` },
            { ...headers, 'Retry-After': retryAfter },
          );
        }
        const detail = TOKEN_PROBLEMS[gate.problem];
        return send(res, 401, { detail }, { ...headers, 'WWW-Authenticate': bearerChallenge(detail) });
      },
      (error: unknown) => send(res, 500, { detail: error instanceof Error ? error.message : String(error) }),
    );
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const address = server.address();
  return {
    server,
    port: typeof address === 'object' && address ? address.port : 0,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await pool.end();
    },
  };
}

async function main(): Promise<void> {
  const bare = process.env.BASELINE_MODE === 'bare';
  if (bare && !process.env.BASELINE_TOKENS) throw new Error('BASELINE_MODE=bare needs BASELINE_TOKENS (a JSON file of the bench tokens).');
  const baseline = await startBaselineServer(
    {
      databaseUrl: process.env.DATABASE_URL!,
      poolMax: Number(process.env.DB_POOL_MAX ?? 10),
      rateLimit: Number(process.env.RATE_LIMIT_PER_HOUR ?? 300),
      bareCallers: bare ? bareCallers(process.env.BASELINE_TOKENS!) : undefined,
    },
    Number(process.env.PORT ?? 0),
  );
  process.stdout.write(JSON.stringify({ listening: baseline.port }) + '\n');
  process.on('SIGTERM', () => void baseline.close().then(() => process.exit(0)));
}

// Run as a program (the bench's child process); imported, it only exports startBaselineServer.
if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  });
}

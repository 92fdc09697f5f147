/**
 * CPU and allocation micro-benchmark of issue 35's fifth stop for the values list (docs/request-path.md,
 * "Issue 35, fifth stop", "Values and the reads' tail"): the former read (a row per value, each
 * column parsed by pg, a `Value` object shaped by `typedValue`, the answer serialised by
 * `JSON.stringify`) against the current one (`listValuesText`: one row whose text PostgreSQL wrote,
 * carried into the answer as it is), on the bench's dataset, for the bench's request
 * (`?attribute=steps&limit=100`, every scope), behind a guard shaped like a steady request's recheck.
 * The answers' texts are checked equal first.
 *
 * Per request: CPU time of this process (`process.cpuUsage`) and of the connection's PostgreSQL
 * backend (/proc/<pid>/stat), and the bytes this process allocated (the heap's growth over a block
 * of requests after a full collection, with a young generation large enough that no scavenge falls
 * in a block, plus the growth of ArrayBuffers: pg's socket reads), old and new in interleaved
 * blocks, medians. Run after a bench has loaded its dataset (`npm run bench -- --small`): `npm run
 * build && npx tsc -p tsconfig.bench.json && node --expose-gc --min-semi-space-size=64
 * --max-semi-space-size=64 dist/test/bench/values-micro.js [--users 100] [--calls 300] [--blocks 9]`.
 * Say the load average beside the figures: the machine is shared.
 */
import os from 'node:os';
import type { Knex } from 'knex';
import { createKnex } from '../../src/db/knex';
import { guardedDatabase, type Database, type FirstStatementGuard } from '../../src/db/database';
import { raw, sql } from '../../src/db/sql';
import { V2_SCOPE_NAMES } from '../../src/domain/apps-and-grants/scopes';
import { readOrWriteVisibility, visibleTo } from '../../src/domain/apps-and-grants/visibility';
import { listValuesText, typedValue, type ListValuesInput } from '../../src/domain/tracking/values';
import { openBenchServer, loadedSpec } from './database';
import { onInterrupt } from './cleanup';
import { CLIENT_NAME } from './fixtures';
import { backendCpuMs } from './sql-measure';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1];
const loadAverage = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(', ');

/** A guard like a steady request's recheck and count: its columns on every row of the read. */
function benchGuard(): FirstStatementGuard {
  return {
    ctes: sql`guard as (select 1::integer as quota_points, ${Date.now() + 3_600_000}::bigint as quota_expire, true as guard_proceed)`,
    take: () => undefined,
    columnCount: 3,
    takeValues: () => undefined,
    runAlone: async () => undefined,
  };
}

/** The former values list (commit e7e351d): a row per value, shaped by `typedValue`. */
async function formerValues(db: Database, input: ListValuesInput): Promise<{ count: number; results: unknown[] }> {
  type Row = { date: string; value_num: number | null; value_text: string | null; value_type: number; total: number };
  const rows = await db.read<Row>(sql`select v.date, v.value_num, v.value_text, a.value_type, n.total
  from attributes a
  cross join lateral (
    select count(*) as total from attribute_values c
     where c.user_id = a.user_id and c.attribute_id = a.id and c.date <= ${input.dateMax}::date
  ) as n
  cross join lateral (
    select v.date, v.value_num, v.value_text from attribute_values v
     where v.user_id = a.user_id and v.attribute_id = a.id and v.date <= ${input.dateMax}::date
     order by v.date desc limit ${input.limit}::bigint offset ${input.offset}::bigint
  ) as v
 where a.user_id = ${input.userId} and a.name = ${input.attribute} and ${visibleTo(input.visibility, raw('a'))}
 order by v.date desc`);
  return { count: rows[0]?.total ?? 0, results: rows.map((row) => ({ date: row.date, value: typedValue(row.value_type, row.value_num, row.value_text) })) };
}

/** A read and its answer's text, as the handler makes it (the envelope of page 1). */
type Answer = (db: Database) => Promise<string>;

interface Figures {
  serviceUs: number;
  backendUs: number;
  heapBytes: number;
  bufferBytes: number;
}

const collect = (globalThis as { gc?: () => void }).gc;

/** Per request over `calls` requests, each on a fresh guarded handle: CPU µs here and in the backend `pid`, bytes allocated here. */
async function measure(knex: Knex, pid: number, answer: Answer, calls: number): Promise<Figures> {
  collect?.();
  const memory = process.memoryUsage();
  const start = process.cpuUsage();
  const backendStart = backendCpuMs(pid);
  for (let i = 0; i < calls; i++) await answer(guardedDatabase(knex, benchGuard()));
  const used = process.cpuUsage(start);
  const backendUs = ((backendCpuMs(pid) - backendStart) * 1000) / calls;
  const after = process.memoryUsage();
  return {
    serviceUs: (used.user + used.system) / calls,
    backendUs,
    heapBytes: (after.heapUsed - memory.heapUsed) / calls,
    bufferBytes: (after.arrayBuffers - memory.arrayBuffers) / calls,
  };
}

async function compare(knex: Knex, pid: number, old: Answer, current: Answer, calls: number, blocks: number): Promise<void> {
  const [before, after] = [await old(guardedDatabase(knex, benchGuard())), await current(guardedDatabase(knex, benchGuard()))];
  if (before !== after) throw new Error(`the answers differ:\n${before.slice(0, 400)}\n${after.slice(0, 400)}`);
  const runs: Array<[Figures, Figures]> = [];
  // Each block measures both, the first of the pair alternating.
  for (let block = 0; block < blocks; block++) {
    if (block % 2 === 0) runs.push([await measure(knex, pid, old, calls), await measure(knex, pid, current, calls)]);
    else {
      const second = await measure(knex, pid, current, calls);
      runs.push([await measure(knex, pid, old, calls), second]);
    }
  }
  const figure = (which: 0 | 1, key: keyof Figures) => median(runs.map((run) => run[which][key])).toFixed(0);
  const results = JSON.parse(after) as { results: unknown[] };
  console.log(`values (${results.results.length} objects, ${after.length} bytes, the same text), per request, former -> current:`);
  console.log(`  CPU µs: service ${figure(0, 'serviceUs')} -> ${figure(1, 'serviceUs')}, PostgreSQL ${figure(0, 'backendUs')} -> ${figure(1, 'backendUs')}`);
  console.log(
    `  bytes allocated: heap ${figure(0, 'heapBytes')} -> ${figure(1, 'heapBytes')}, ArrayBuffers ${figure(0, 'bufferBytes')} -> ${figure(1, 'bufferBytes')}`,
  );
}

async function main(): Promise<void> {
  const users = Number(arg('users', '100'));
  const calls = Number(arg('calls', '300'));
  const blocks = Number(arg('blocks', '9'));
  if (!collect) console.log('(run with --expose-gc for the allocation figures)');
  const server = await openBenchServer(process.env.DATABASE_URL);
  const unregister = onInterrupt(() => server.stop());
  try {
    const database = `daybook_bench_${users}`;
    if (!(await loadedSpec(server, database))) throw new Error(`${database} is not loaded: run \`npm run bench -- --small\` first.`);
    const knex = createKnex(server.urlOf(database), { pool: { min: 1, max: 1 } });
    try {
      const client = await knex('oauth_clients').where({ name: CLIENT_NAME }).first('id');
      const people = await knex('tokens').where({ client_pk: client.id }).distinct('user_id').orderBy('user_id');
      const userId = Number(people[Math.floor(people.length / 2)].user_id);
      const pid = Number((await knex.raw('select pg_backend_pid() as pid')).rows[0].pid);
      const dateMax = String((await knex.raw('select max(date)::text as d from attribute_values where user_id = ?', [userId])).rows[0].d);
      const input: ListValuesInput = {
        userId,
        attribute: 'steps',
        visibility: readOrWriteVisibility(new Set(V2_SCOPE_NAMES)),
        dateMax,
        limit: 100,
        offset: 0,
      };
      console.log(`${database}, person ${userId}; load average ${loadAverage()}`);
      await compare(
        knex,
        pid,
        async (db) => {
          const page = await formerValues(db, input);
          return JSON.stringify({ count: page.count, next: null, previous: null, results: page.results });
        },
        async (db) => {
          const page = await listValuesText(db, input);
          return `{"count":${page.count},"next":null,"previous":null,"results":${page.results}}`;
        },
        calls,
        blocks,
      );
      console.log(`load average ${loadAverage()}`);
    } finally {
      await knex.destroy();
    }
  } finally {
    unregister();
    await server.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});

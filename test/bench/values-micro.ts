/**
 * CPU and allocation micro-benchmark of the values list's read (`listValuesText`, issue 35's fifth
 * stop: docs/request-path.md, "Values and the reads' tail"), on the bench's dataset, for the bench's
 * request (`?attribute=steps&limit=100`, every scope), behind a guard shaped like a steady request's
 * recheck, the answer's text made as the handler makes it. It measures the current read against a
 * control: the same read on both sides, so the two sides' figures differ by the machine's noise
 * alone, and a change is measured by running this before and after it. (The former read against
 * the current one, recorded in that section, was measured with this file as of commit f6300ee.)
 *
 * Per request: CPU time of this process (`process.cpuUsage`) and of the connection's PostgreSQL
 * backend (/proc/<pid>/stat), and the bytes this process allocated (the heap's growth over a block
 * of requests after a full collection, with a young generation large enough that no scavenge falls
 * in a block, plus the growth of ArrayBuffers: pg's socket reads), the sides in interleaved blocks,
 * medians. Run after a bench has loaded its dataset (`npm run bench -- --small`): `npm run build &&
 * npx tsc -p tsconfig.bench.json && node --expose-gc --min-semi-space-size=64
 * --max-semi-space-size=64 dist/test/bench/values-micro.js [--users 100] [--calls 300] [--blocks 9]`.
 * Say the load average beside the figures: the machine is shared.
 */
import { guardedDatabase, type Database } from '../../src/db/database';
import { V2_SCOPE_NAMES } from '../../src/domain/apps-and-grants/scopes';
import { readOrWriteVisibility } from '../../src/domain/apps-and-grants/visibility';
import { listValuesText, type ListValuesInput } from '../../src/domain/tracking/values';
import { arg, benchGuard, cpuPerCall, interleaved, loadAverage, median, onBenchDataset, runScript, type BenchConnection, type CallCpu } from './micro-harness';

/** A read and its answer's text, as the handler makes it (the envelope of page 1). */
type Answer = (db: Database) => Promise<string>;

interface Figures extends CallCpu {
  heapBytes: number;
  bufferBytes: number;
}

const collect = (globalThis as { gc?: () => void }).gc;

/** Per request over `calls` requests, each on a fresh guarded handle: CPU µs here and in the backend, bytes allocated here. */
async function measure(bench: BenchConnection, answer: Answer, calls: number): Promise<Figures> {
  collect?.();
  const memory = process.memoryUsage();
  const cpu = await cpuPerCall(bench.pid, calls, () => answer(guardedDatabase(bench.knex, benchGuard())));
  const after = process.memoryUsage();
  return {
    ...cpu,
    heapBytes: (after.heapUsed - memory.heapUsed) / calls,
    bufferBytes: (after.arrayBuffers - memory.arrayBuffers) / calls,
  };
}

async function main(): Promise<void> {
  const users = Number(arg('users', '100'));
  const calls = Number(arg('calls', '300'));
  const blocks = Number(arg('blocks', '9'));
  if (!collect) console.log('(run with --expose-gc for the allocation figures)');
  await onBenchDataset(users, async (bench) => {
    const { knex, userId } = bench;
    const dateMax = String((await knex.raw('select max(date)::text as d from attribute_values where user_id = ?', [userId])).rows[0].d);
    const input: ListValuesInput = {
      userId,
      attribute: 'steps',
      visibility: readOrWriteVisibility(new Set(V2_SCOPE_NAMES)),
      dateMax,
      limit: 100,
      offset: 0,
    };
    const current: Answer = async (db) => {
      const page = await listValuesText(db, input);
      return `{"count":${page.count},"next":null,"previous":null,"results":${page.results}}`;
    };
    console.log(`${bench.database}, person ${userId}; load average ${loadAverage()}`);
    const text = await current(guardedDatabase(knex, benchGuard()));
    const runs = await interleaved(
      blocks,
      () => measure(bench, current, calls),
      () => measure(bench, current, calls),
    );
    const figure = (side: 0 | 1, key: keyof Figures) => median(runs[side].map((run) => run[key])).toFixed(0);
    const both = (key: keyof Figures) => `${figure(0, key)} | ${figure(1, key)}`;
    const results = JSON.parse(text) as { results: unknown[] };
    console.log(`values (${results.results.length} objects, ${text.length} bytes), per request, the same read on both sides (a control):`);
    console.log(`  CPU µs: service ${both('serviceUs')}, PostgreSQL ${both('backendUs')}`);
    console.log(`  bytes allocated: heap ${both('heapBytes')}, ArrayBuffers ${both('bufferBytes')}`);
    console.log(`load average ${loadAverage()}`);
  });
}

runScript(main);

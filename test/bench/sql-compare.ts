/**
 * Each hot statement of Daybook against the plainest correct statement for the same answer (issue
 * 35 item 3; docs/request-path.md, "Issue 35, third stop", "The SQL"):
 *
 *   npm run bench:sql -- [--users 100] [--runs 15] [--loop 1000] [--rounds 3] [--scenarios a,b] [--plan-mode generic] [--plan-survey] [--show]
 *
 * on a dataset a bench run loaded (`npm run bench -- --small --reuse-data …` loads
 * `daybook_bench_100`; the embedded cluster of .data/bench, or DATABASE_URL's server). Daybook's
 * statements are taken from the real app serving the bench's requests (sql-capture.ts); the
 * plainest ones are written by hand in sql-plainest.ts and checked to answer the same rows first.
 * For each: EXPLAIN (ANALYZE, BUFFERS) `--runs` times, alternating (median planning + execution
 * ms, buffers, plan shape), then `--rounds` alternating loops of `--loop` executions timed by the
 * backend's own CPU (sql-measure.ts). `--show` prints the statements and one plan of each;
 * `--plan-survey` only counts, per read, the people whose named statement keeps a generic plan
 * (sql-plans.ts).
 */
import os from 'node:os';
import type pg from 'pg';
import { createKnex } from '../../src/db/knex';
import { issueTokens } from '../../src/domain/apps-and-grants/tokens';
import { V2_SCOPE_NAMES } from '../../src/domain/apps-and-grants/scopes';
import { openBenchServer, loadedSpec, withClient } from './database';
import { onInterrupt } from './cleanup';
import { CLIENT_NAME } from './fixtures';
import { CREATED_LABEL_PREFIX } from './scenarios';
import { captureStatements, type Captured, type Statement } from './sql-capture';
import { explainOnce, loop, median, personWriteMarks, transactionCpuMs, type ExplainFigures } from './sql-measure';
import { planSurvey } from './sql-plans';
import { plainestOf, sameAnswer, type Context } from './sql-plainest';

const READS = ['with-values', 'values', 'attributes', 'correlations', 'profile', 'lookup', 'recheck'];
const ALL = [...READS, 'update', 'increment', 'acquire', 'create'];

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
}

/** A person with a bench token (so the bench service holds their write attributes), and a new token of theirs. */
async function benchPerson(url: string): Promise<{ userId: number; clientPk: number; token: string }> {
  const db = createKnex(url, { pool: { min: 0, max: 1 } });
  try {
    const client = await db('oauth_clients').where({ name: CLIENT_NAME }).first('id');
    if (!client) throw new Error(`No "${CLIENT_NAME}" in this database: run the bench on it first.`);
    const clientPk = Number(client.id);
    const people = await db('tokens').where({ client_pk: clientPk }).whereNull('revoked_at').distinct('user_id').orderBy('user_id');
    const userId = Number(people[Math.floor(people.length / 2)].user_id);
    const issued = await issueTokens(db, { userId, clientPk, scopes: [...V2_SCOPE_NAMES], now: new Date() });
    return { userId, clientPk, token: issued.access_token };
  } finally {
    await db.destroy();
  }
}

interface Variant {
  label: string;
  statements: Statement[];
  /** Measured with the replicas' person_writes triggers off (turned on again after each measure). */
  marksOff?: boolean;
}

interface Row {
  label: string;
  explain: ExplainFigures[];
  cpu: number[];
  wall: number[];
  plans: string;
  /** How the named statement was planned in the end; EXPLAIN plans the same way. */
  mode: 'generic' | 'custom';
}

const fmt = (n: number) => (n >= 10 ? n.toFixed(1) : n.toFixed(3));

/** Measures every variant of one scenario, alternating, and prints its table. */
async function compare(
  client: pg.Client,
  pid: number,
  scenario: string,
  variants: Variant[],
  options: { runs: number; loop: number; rounds: number; show: boolean },
) {
  const write = !READS.includes(scenario);
  const rows: Row[] = variants.map((v) => ({ label: v.label, explain: [], cpu: [], wall: [], plans: '', mode: 'custom' }));
  const transaction = write ? await transactionCpuMs(client, pid, options.loop) : 0;
  for (let round = 0; round < options.rounds; round++) {
    for (const [i, variant] of variants.entries()) {
      let cpu = 0;
      let wall = 0;
      const plans: string[] = [];
      if (variant.marksOff) await personWriteMarks(client, false);
      try {
        for (const statement of variant.statements) {
          const figures = await loop(client, pid, statement, write, options.loop);
          cpu += figures.cpuMs - transaction;
          wall += figures.wallMs;
          plans.push(figures.plans);
          rows[i].mode = figures.generic ? 'generic' : 'custom';
        }
      } finally {
        if (variant.marksOff) await personWriteMarks(client, true);
      }
      rows[i].cpu.push(cpu);
      rows[i].wall.push(wall);
      rows[i].plans = plans.join(' + ');
    }
  }
  // EXPLAIN plans the way the named statement ended up planned (mostly generic after five runs).
  for (let run = 0; run < options.runs; run++) {
    for (const [i, variant] of variants.entries()) {
      // Several statements (a variant in two steps): their figures add up.
      let sum: ExplainFigures = { planningMs: 0, executionMs: 0, buffers: 0, shape: '', triggerMs: 0 };
      if (variant.marksOff) await personWriteMarks(client, false);
      try {
        for (const statement of variant.statements) {
          const one = await explainOnce(client, statement, write, rows[i].mode === 'generic');
          sum = {
            planningMs: sum.planningMs + one.planningMs,
            executionMs: sum.executionMs + one.executionMs,
            buffers: sum.buffers + one.buffers,
            shape: sum.shape ? `${sum.shape} ; ${one.shape}` : one.shape,
            triggerMs: sum.triggerMs + one.triggerMs,
          };
        }
      } finally {
        if (variant.marksOff) await personWriteMarks(client, true);
      }
      rows[i].explain.push(sum);
    }
  }
  process.stdout.write(`\n### ${scenario}${write ? ` (in a transaction rolled back; its ${fmt(transaction)} ms taken off)` : ''}\n\n`);
  process.stdout.write(
    '| statement | planning ms | execution ms | triggers ms | buffers | PG CPU ms / call | wall ms / call | named plans |\n|---|--:|--:|--:|--:|--:|--:|---|\n',
  );
  for (const row of rows) {
    const m = (pick: (e: ExplainFigures) => number) => median(row.explain.map(pick));
    process.stdout.write(
      `| ${row.label} | ${fmt(m((e) => e.planningMs))} | ${fmt(m((e) => e.executionMs))} | ${fmt(m((e) => e.triggerMs))} | ${m((e) => e.buffers)} | ${fmt(median(row.cpu))} | ${fmt(median(row.wall))} | ${row.plans} |\n`,
    );
  }
  const [ours, ...others] = rows;
  for (const other of others) {
    const d = median(ours.cpu) - median(other.cpu);
    process.stdout.write(`\nours - ${other.label}: ${fmt(d)} ms PG CPU per call (${((d / median(other.cpu)) * 100).toFixed(0)} %)\n`);
  }
  if (options.show) for (const row of rows) process.stdout.write(`\n${row.label} plan: ${row.explain[0].shape}\n`);
}

/** Ours and the plainest of one scenario: checked for the same answer, then measured. */
async function measureScenario(
  client: pg.Client,
  pid: number,
  taken: Captured,
  person: { userId: number; clientPk: number },
  today: string,
  options: { runs: number; loop: number; rounds: number; show: boolean },
): Promise<void> {
  if (options.show)
    for (const s of taken.steady)
      process.stdout.write(`\n-- ${taken.scenario} (${taken.status}), ours:\n${s.text}\n-- values: ${JSON.stringify(s.values).slice(0, 600)}\n`);
  if (taken.status >= 300 || taken.steady.length === 0) {
    process.stdout.write(`\n### ${taken.scenario}: answered ${taken.status} with ${taken.steady.length} statements; skipped\n`);
    return;
  }
  const context: Context = { userId: person.userId, clientPk: person.clientPk, today, ours: taken.steady };
  const plainest = plainestOf(taken.scenario, context);
  for (const variant of plainest) {
    const problem = await sameAnswer(client, taken.scenario, taken.steady, variant.statements);
    if (problem) process.stdout.write(`\n!! ${taken.scenario}, ${variant.label}: not the same answer: ${problem}\n`);
  }
  const label = `ours (${taken.steady.length} statement${taken.steady.length > 1 ? 's' : ''})`;
  // A write: the same statement without the replicas' marks (docs/statements.md's proposal to skip them).
  const unmarked = READS.includes(taken.scenario) ? [] : [{ label: 'ours, person_writes triggers off', statements: taken.steady, marksOff: true }];
  await compare(client, pid, taken.scenario, [{ label, statements: taken.steady }, ...plainest, ...unmarked], options);
}

async function main(): Promise<void> {
  const users = Number(arg('users', '100'));
  const options = {
    runs: Number(arg('runs', '15')),
    loop: Number(arg('loop', '1000')),
    rounds: Number(arg('rounds', '3')),
    show: process.argv.includes('--show'),
  };
  const names = arg('scenarios', ALL.join(',')).split(',');
  const server = await openBenchServer(process.env.DATABASE_URL);
  const unregister = onInterrupt(() => server.stop()); // Ctrl-C stops the embedded PostgreSQL too
  try {
    const database = `daybook_bench_${users}`;
    const spec = await loadedSpec(server, database);
    if (!spec) throw new Error(`${database} is not loaded: run \`npm run bench -- --small\` first.`);
    const url = server.urlOf(database);
    const person = await benchPerson(url);
    const captured = await captureStatements(url, person.token, spec.endDate, names);
    process.stdout.write(
      `# Daybook's statements against the plainest (${database}, person ${person.userId}; load average ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')})\n`,
    );
    // `--plan-mode generic`: the measuring connection plans every named statement generically
    // (plan_cache_mode = force_generic_plan), as a pool set so would; by default PostgreSQL chooses.
    const measuredUrl = arg('plan-mode', 'auto') === 'generic' ? `${url}?options=${encodeURIComponent('-c plan_cache_mode=force_generic_plan')}` : url;
    await withClient(measuredUrl, async (client) => {
      const pid = (await client.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0].pid;
      // The creates the app ran go (the bench's own clean-up does the same), so that the lists are
      // the dataset's and each run of the create statement creates its attributes again.
      await client.query(`delete from attributes where user_id = $1 and label like '${CREATED_LABEL_PREFIX} %'`, [person.userId]);
      await client.query('vacuum analyze');
      if (process.argv.includes('--plan-survey')) return planSurvey(client, captured, person.userId);
      for (const taken of captured) {
        // The profile's statements are the credential's: read in full and counted (the request
        // before the steady one), then rechecked and counted alone (the steady one).
        const measured =
          taken.scenario === 'profile'
            ? [
                { ...taken, scenario: 'lookup', steady: taken.looked },
                { ...taken, scenario: 'recheck' },
              ]
            : [taken];
        for (const one of measured) await measureScenario(client, pid, one, person, spec.endDate, options);
      }
    });
  } finally {
    unregister();
    await server.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});

/**
 * `npm run bench:replicas`: a read-heavy mix against the primary alone and against primary +
 * streaming replica (DATABASE_REPLICA_URLS; docs/operating.md, "Read replicas"), with the CPU of
 * each PostgreSQL cluster per request.
 *
 * On the bench's embedded PostgreSQL (.data/bench/postgres) it loads a dataset like `npm run bench`
 * does (--users people x 40 attributes x --days days), issues tokens, makes a real physical standby
 * of the cluster (test/support/standby.ts: the low-level backup API and a file copy), and then, in
 * alternating rounds, runs Daybook without and with the standby as its replica under the same mix:
 * with-values (31 days x 20 attributes) and values (100 days), and one write (update, 35 items) in
 * every ten requests. The standby replays the primary's WAL in both set-ups: its replay is counted
 * in both. On one machine both clusters share the same cores: read "CPU ms per request" on each as
 * the work moved off the primary.
 *
 * Options: --users N (100), --days N (365), --connections N (16), --seconds N (10), --rounds N (2),
 * --reuse-data (keep a loaded dataset).
 */
import fs from 'node:fs';
import path from 'node:path';
import autocannon from 'autocannon';
import { PROJECT_ROOT } from '../../src/paths';
import { startStandby, type Standby } from '../support/standby';
import { acquireWriteAttributes } from './check';
import { datasetDatabaseName, openBenchServer, withClient, type BenchServer } from './database';
import { quantile } from './drive';
import { createFixtures } from './fixtures';
import { loadDataset } from './load';
import { postgresCpuSeconds, processCpuSeconds } from './resources';
import { allScenarios, type Scenario } from './scenarios';
import { daybookEnv, startDaybook } from './services';

interface Options {
  users: number;
  days: number;
  connections: number;
  seconds: number;
  rounds: number;
  reuseData: boolean;
}

function parseOptions(args: string[]): Options {
  const options: Options = { users: 100, days: 365, connections: 16, seconds: 10, rounds: 2, reuseData: false };
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--reuse-data') {
      options.reuseData = true;
      continue;
    }
    const name = args[i].replace(/^--/, '') as Exclude<keyof Options, 'reuseData'>;
    const value = Number(args[++i]);
    if (!(name in options) || !Number.isInteger(value) || value < 1) throw new Error(`Unknown or bad option ${args[i - 1]} ${args[i] ?? ''}.`);
    options[name] = value;
  }
  return options;
}

interface Round {
  setup: 'primary' | 'primary + replica';
  requests: number;
  seconds: number;
  latencies: number[];
  errors: number;
  /** CPU seconds over the round. */
  service: number;
  primary: number;
  replica: number;
}

/** The mix: reads in turn, every tenth request a write. */
function mixOf(today: string): Scenario[] {
  const byName = new Map(allScenarios(today).map((scenario) => [scenario.name, scenario]));
  const reads = [byName.get('with-values')!, byName.get('values')!];
  return Array.from({ length: 10 }, (_, i) => (i === 9 ? byName.get('update')! : reads[i % 2]));
}

async function driveMix(
  port: number,
  mix: Scenario[],
  tokens: string[],
  connections: number,
  seconds: number,
): Promise<{ latencies: number[]; errors: number; seconds: number }> {
  let next = 0;
  const latencies: number[] = [];
  let errors = 0;
  const started = performance.now();
  await new Promise<void>((resolve, reject) => {
    const instance = autocannon(
      {
        url: `http://127.0.0.1:${port}`,
        connections,
        duration: seconds,
        requests: [
          {
            setupRequest: (request) => {
              const scenario = mix[next % mix.length];
              const token = tokens[next % tokens.length];
              next++;
              return {
                ...request,
                method: scenario.method,
                path: scenario.path,
                body: scenario.body,
                headers: { authorization: `Bearer ${token}`, ...(scenario.body ? { 'content-type': 'application/json' } : {}) },
              };
            },
          },
        ],
      },
      (error) => (error ? reject(error) : resolve()),
    );
    instance.on('response', (_client, status, _bytes, ms) => (status === 200 ? latencies.push(ms) : errors++));
  });
  return { latencies, errors, seconds: (performance.now() - started) / 1000 };
}

/** Waits until the standby has replayed everything the primary wrote so far. */
async function caughtUp(server: BenchServer, standby: Standby, database: string): Promise<void> {
  const [{ lsn }] = await withClient(server.adminUrl, async (client) => (await client.query<{ lsn: string }>('select pg_current_wal_lsn()::text as lsn')).rows);
  for (;;) {
    const [{ done }] = await standby.query<{ done: boolean }>(database, `select pg_last_wal_replay_lsn() >= '${lsn}'::pg_lsn as done`);
    if (done) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const server = await openBenchServer(undefined);
  let standby: Standby | undefined;
  try {
    const endDate = new Date().toISOString().slice(0, 10);
    const load = await loadDataset(server, { users: options.users, attributes: 40, days: options.days, seed: 1, endDate }, options.reuseData);
    const database = datasetDatabaseName(load.spec);
    const url = server.urlOf(database);
    const fixtures = await createFixtures(url, Math.min(200, options.users), new Date());
    const tokens = fixtures.tokens.map((t) => t.token);
    process.stderr.write('Making the standby (low-level backup API + file copy)…\n');
    standby = await startStandby({ adminUrl: server.adminUrl });
    const mix = mixOf(load.spec.endDate);
    const logs = path.join(PROJECT_ROOT, '.data', 'bench', 'logs');
    fs.mkdirSync(logs, { recursive: true });
    const rounds: Round[] = [];
    for (let round = 0; round < options.rounds; round++) {
      for (const setup of ['primary', 'primary + replica'] as const) {
        const env = { ...daybookEnv(url, 10), ...(setup === 'primary' ? {} : { DATABASE_REPLICA_URLS: standby.urlOf(url) }) };
        const daybook = await startDaybook(env, path.join(logs, `replicas-${setup.replace(/\W+/g, '-')}.log`));
        try {
          if (rounds.length === 0) await acquireWriteAttributes(daybook.port, tokens);
          await caughtUp(server, standby, database);
          await driveMix(daybook.port, mix, tokens, options.connections, 2); // warm-up, not counted
          const cpu = () => ({
            service: processCpuSeconds(daybook.pid),
            primary: postgresCpuSeconds(server.postmasterPid!),
            replica: postgresCpuSeconds(standby!.pid()!),
          });
          const before = cpu();
          const run = await driveMix(daybook.port, mix, tokens, options.connections, options.seconds);
          const after = cpu();
          rounds.push({
            setup,
            requests: run.latencies.length,
            seconds: run.seconds,
            latencies: run.latencies,
            errors: run.errors,
            service: after.service - before.service,
            primary: after.primary - before.primary,
            replica: after.replica - before.replica,
          });
          process.stderr.write(`round ${round + 1} ${setup}: ${(run.latencies.length / run.seconds).toFixed(0)} requests/s\n`);
        } finally {
          await daybook.stop();
        }
      }
    }
    report(options, rounds);
  } finally {
    await standby?.remove().catch(() => undefined);
    await server.stop();
  }
}

function report(options: Options, rounds: Round[]): void {
  const lines = [
    `Read-heavy mix (with-values and values in turn, one update of 35 items in ten requests), ${options.users} people x 40 attributes x ${options.days} days,`,
    `${options.connections} connections, ${options.rounds} rounds of ${options.seconds} s per set-up, alternating. CPU ms per request (all cores; both clusters share them):`,
    '',
    '| set-up | requests/s | p50 ms | p99 ms | errors | service CPU ms/req | primary CPU ms/req | replica CPU ms/req | both clusters ms/req |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const setup of ['primary', 'primary + replica'] as const) {
    const mine = rounds.filter((round) => round.setup === setup);
    const requests = mine.reduce((sum, round) => sum + round.requests, 0);
    const seconds = mine.reduce((sum, round) => sum + round.seconds, 0);
    const latencies = mine.flatMap((round) => round.latencies).sort((a, b) => a - b);
    const perRequest = (pick: (round: Round) => number) => ((mine.reduce((sum, round) => sum + pick(round), 0) * 1000) / requests).toFixed(3);
    lines.push(
      `| ${setup} | ${(requests / seconds).toFixed(0)} | ${quantile(latencies, 0.5).toFixed(1)} | ${quantile(latencies, 0.99).toFixed(1)} | ${mine.reduce((sum, round) => sum + round.errors, 0)} | ${perRequest((r) => r.service)} | ${perRequest((r) => r.primary)} | ${perRequest((r) => r.replica)} | ${perRequest((r) => r.primary + r.replica)} |`,
    );
  }
  const text = `${lines.join('\n')}\n`;
  process.stdout.write(`\n${text}`);
  const out = path.join(PROJECT_ROOT, 'test/bench/results');
  fs.mkdirSync(out, { recursive: true });
  const file = path.join(out, `replicas-${new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19)}.md`);
  fs.writeFileSync(file, text);
  process.stdout.write(`Written to ${path.relative(PROJECT_ROOT, file)}\n`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`bench:replicas failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);

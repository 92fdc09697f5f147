/**
 * `npm run bench:cores`: one Daybook process against WEB_CONCURRENCY=2 (a primary and two HTTP
 * processes, src/cluster.ts) on the same dataset, in the same run, rounds alternating: throughput,
 * latency and the CPU of each (the whole process tree: primary and HTTP processes) and of
 * PostgreSQL. Takes the main bench's options (`--users`, `--days`, `--scenarios`, `--connections`,
 * `--rounds`, `--duration`, `--warmup`, `--reuse-data`...); its dataset is the main bench's, loaded
 * the same way (reused with --reuse-data). docs/scaling.md reports the figures.
 */
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/paths';
import { openBenchServer } from './database';
import { loadDataset } from './load';
import { createFixtures } from './fixtures';
import { parseOptions } from './options';
import { allScenarios } from './scenarios';
import { daybookEnv, startDaybook, type RunningServer } from './services';
import { drive, type DriveResult } from './drive';
import { postgresCpuSeconds } from './resources';
import { say } from './progress';
import { onInterrupt } from './cleanup';

const LOG_DIR = path.join(PROJECT_ROOT, '.data', 'bench', 'logs');
const SETUPS = { one: '1', two: '2' } as const;
type Setup = keyof typeof SETUPS;

interface Sample {
  drive: DriveResult;
  /** Percent of one core: the service's whole process tree, and PostgreSQL's. */
  service: number;
  postgres: number;
}

/** CPU seconds of a process and its children (live and reaped): the same count as PostgreSQL's, which is a tree too. */
const treeCpuSeconds = postgresCpuSeconds;

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)];
};

async function measure(server: RunningServer, postmasterPid: number | undefined, run: () => Promise<DriveResult>): Promise<Sample> {
  const t0 = performance.now();
  const service0 = treeCpuSeconds(server.pid);
  const postgres0 = postmasterPid ? postgresCpuSeconds(postmasterPid) : NaN;
  const result = await run();
  const wall = (performance.now() - t0) / 1000;
  return {
    drive: result,
    service: ((treeCpuSeconds(server.pid) - service0) / wall) * 100,
    postgres: postmasterPid ? ((postgresCpuSeconds(postmasterPid) - postgres0) / wall) * 100 : NaN,
  };
}

function row(scenario: string, connections: number, samples: Record<Setup, Sample[]>): string {
  const rps = (setup: Setup) => median(samples[setup].map((s) => s.drive.requestsPerSecond));
  const cell = (setup: Setup) => {
    const s = samples[setup];
    const perRequest = (pick: (x: Sample) => number) => median(s.map((x) => (pick(x) * 10) / x.drive.requestsPerSecond)); // ms of CPU per request
    return (
      `${Math.round(rps(setup))} | ${median(s.map((x) => x.drive.p50)).toFixed(1)} / ${median(s.map((x) => x.drive.p99)).toFixed(1)} | ` +
      `${Math.round(median(s.map((x) => x.service)))} / ${Math.round(median(s.map((x) => x.postgres)))} | ${perRequest((x) => x.service).toFixed(2)} / ${perRequest((x) => x.postgres).toFixed(2)}`
    );
  };
  return `| ${scenario} | ${connections} | ${cell('one')} | ${cell('two')} | ${(rps('two') / rps('one')).toFixed(2)} |`;
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const endDate = new Date().toISOString().slice(0, 10);
  const server = await openBenchServer(process.env.DATABASE_URL);
  onInterrupt(() => server.stop());
  const running: RunningServer[] = [];
  try {
    const load = await loadDataset(
      server,
      { users: options.users, attributes: options.attributes, days: options.days, seed: options.seed, endDate },
      options.reuseData,
    );
    const url = server.urlOf(load.database);
    const fixtures = await createFixtures(url, options.tokens, new Date());
    const tokens = fixtures.tokens.map((t) => t.token);
    const servers = {} as Record<Setup, RunningServer>;
    for (const setup of Object.keys(SETUPS) as Setup[]) {
      servers[setup] = await startDaybook(
        { ...daybookEnv(url, options.pool), WEB_CONCURRENCY: SETUPS[setup] },
        path.join(LOG_DIR, `daybook-cores-${setup}.log`),
      );
      running.push(servers[setup]);
    }
    say(`Daybook with one process (pid ${servers.one.pid}) and with WEB_CONCURRENCY=2 (primary pid ${servers.two.pid}); ${tokens.length} tokens`);
    const rows: string[] = [];
    const scenarios = allScenarios(load.spec.endDate, load.spec.attributes).filter((s) => s.kind === 'read' && options.scenarios.includes(s.name));
    for (const scenario of scenarios) {
      for (const connections of options.connections) {
        const samples: Record<Setup, Sample[]> = { one: [], two: [] };
        for (const setup of Object.keys(SETUPS) as Setup[]) await drive({ port: servers[setup].port, scenario, tokens, connections, seconds: options.warmup });
        for (let round = 1; round <= options.rounds; round++) {
          for (const setup of Object.keys(SETUPS) as Setup[]) {
            const sample = await measure(servers[setup], server.postmasterPid, () =>
              drive({ port: servers[setup].port, scenario, tokens, connections, seconds: options.duration }),
            );
            samples[setup].push(sample);
            say(
              `${scenario.name} c=${connections} WEB_CONCURRENCY=${SETUPS[setup]} round ${round}: ${Math.round(sample.drive.requestsPerSecond)} req/s, ` +
                `p50 ${sample.drive.p50.toFixed(1)} p99 ${sample.drive.p99.toFixed(1)} ms, errors ${sample.drive.errors}, CPU % service/Postgres ${Math.round(sample.service)}/${Math.round(sample.postgres)}`,
            );
          }
        }
        rows.push(row(scenario.name, connections, samples));
      }
    }
    const markdown = [
      `## One process against WEB_CONCURRENCY=2 (${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC)`,
      '',
      `Command: \`npm run bench:cores -- ${process.argv.slice(2).join(' ')}\`. Dataset ${load.users} users x ${load.spec.attributes} attributes x ${load.spec.days} days; ` +
        `${options.rounds} rounds of ${options.duration} s, alternating; medians. CPU: percent of one core (service = all its processes), and ms of CPU per request.`,
      '',
      '| Request | Conns | 1 process: req/s | 1: p50 / p99 ms | 1: CPU % service / PG | 1: CPU ms/req service / PG | 2 processes: req/s | 2: p50 / p99 ms | 2: CPU % service / PG | 2: CPU ms/req service / PG | req/s 2 : 1 |',
      '|---|---|---|---|---|---|---|---|---|---|---|',
      ...rows,
    ].join('\n');
    process.stdout.write('\n' + markdown + '\n\n');
    const file = path.join(PROJECT_ROOT, 'test', 'bench', 'results', `cores-${new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19)}.md`);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, markdown + '\n');
    say(`Written: ${path.relative(PROJECT_ROOT, file)}`);
  } finally {
    for (const service of running) await service.stop();
    await server.stop();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`\nThe bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);

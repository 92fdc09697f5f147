/**
 * `npm run bench`: Daybook's read and write throughput, latency, CPU, memory and derived-data cost
 * against a baseline in the same run and on the same data: the fastest correct plain server
 * (baseline-server.ts: it authenticates and counts every request), and with --bare-baseline also the
 * bare one (neither). Steps:
 *
 * 1. dataset: a fresh database on the bench's embedded PostgreSQL (or DATABASE_URL's server) with
 *    the demo generator's data, bulk-loaded with COPY (load.ts);
 * 2. derived data: every user's weekly derive, timed (derive.ts);
 * 3. callers: a service with tokens spread over the users (fixtures.ts);
 * 4. measurements: the compiled service and the baseline(s) driven over HTTP by autocannon at each
 *    concurrency, rounds alternating (measure.ts);
 * 5. scale: the reads again on datasets of other sizes;
 * 6. report: Markdown tables printed, JSON and Markdown written under test/bench/results/.
 */
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { PROJECT_ROOT } from '../../src/paths';
import { openBenchServer, withClient, type BenchServer, type DatasetSpec } from './database';
import { loadDataset, type LoadReport } from './load';
import { benchDerive, type DeriveReport } from './derive';
import { createFixtures, subscribeBenchService } from './fixtures';
import { measureDataset, type MeasureOutput } from './measure';
import { parseOptions, type BenchOptions } from './options';
import { allScenarios } from './scenarios';
import { checkTargets, currentCommit, machineFacts, resourceTable, scaleTable, targetsTable, throughputTable, writeResults, type Cell } from './report';
import { BENCH_RATE_LIMIT, type Profiling } from './services';
import { say } from './progress';
import { onInterrupt } from './cleanup';

async function datasetUsers(url: string): Promise<number[]> {
  return withClient(url, async (client) =>
    (await client.query<{ id: string }>("select id from users where username like 'bench\\_%' and username <> 'bench_owner' order by id")).rows.map((r) =>
      Number(r.id),
    ),
  );
}

async function postgresFacts(url: string): Promise<Record<string, string>> {
  return withClient(url, async (client: pg.Client) => {
    const facts: Record<string, string> = { version: (await client.query<{ v: string }>('select version() as v')).rows[0].v };
    for (const name of ['shared_buffers', 'max_connections', 'work_mem', 'effective_cache_size', 'max_wal_size', 'synchronous_commit']) {
      facts[name] = (await client.query<{ s: string }>(`select current_setting('${name}') as s`)).rows[0].s;
    }
    return facts;
  });
}

function spec(options: BenchOptions, users: number, endDate: string): DatasetSpec {
  return { users, attributes: options.attributes, days: options.days, seed: options.seed, endDate };
}

/** A scale run: the reads only, Daybook only, on a dataset of `users`. */
async function scaleRun(
  server: BenchServer,
  options: BenchOptions,
  users: number,
  endDate: string,
  now: Date,
): Promise<{ load: LoadReport; measured: MeasureOutput }> {
  const load = await loadDataset(server, spec(options, users, endDate), options.reuseData);
  const url = server.urlOf(load.database);
  const fixtures = await createFixtures(url, options.tokens, now);
  // Correlations exist only once derived: derive the users the reads ask for (untimed here).
  const tokenUsers = [...new Set(fixtures.tokens.map((t) => t.userId))];
  await benchDerive(url, tokenUsers, { now, runs: 1 });
  const reads = allScenarios(load.spec.endDate).filter((s) => s.kind === 'read' && options.scenarios.includes(s.name));
  const measured = await measureDataset({
    label: `scale-${users}`,
    databaseUrl: url,
    users,
    postmasterPid: server.postmasterPid,
    fixtures,
    scenarios: reads,
    connections: options.scaleConnections,
    targets: ['daybook'],
    rounds: options.rounds,
    duration: options.duration,
    warmup: options.warmup,
    opening: options.opening,
    pool: options.pool,
    metrics: options.metrics,
  });
  return { load, measured };
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const started = new Date();
  const stamp = started.toISOString().replace(/[:.]/g, '-').slice(0, 19);
  const commit = currentCommit();
  const endDate = started.toISOString().slice(0, 10);
  say(
    `Daybook bench${options.small ? ' (--small)' : ''}: ${options.users} users x ${options.attributes} attributes x ${options.days} days; ` +
      `scenarios ${options.scenarios.join(', ')}; connections ${options.connections.join(', ')}; ${options.rounds} rounds x ${options.duration} s; ` +
      `scales ${options.scales.join(', ') || 'none'}; commit ${commit?.slice(0, 12) ?? 'unknown'}`,
  );
  say(
    `The rate limit is raised to RATE_LIMIT_PER_HOUR=${BENCH_RATE_LIMIT} for this run, so it is not what is measured (it is still counted in Postgres on every request).`,
  );
  const server = await openBenchServer(process.env.DATABASE_URL);
  onInterrupt(() => server.stop());
  say(`Database server: ${server.description}${server.postmasterPid ? '' : '; not on this machine, so its CPU is not measured'}`);
  try {
    const load = await loadDataset(server, spec(options, options.users, endDate), options.reuseData);
    const url = server.urlOf(load.database);
    const now = new Date();
    let derive: DeriveReport | undefined;
    if (!options.skipDerive) derive = await benchDerive(url, await datasetUsers(url), { now, runs: 5 });
    const fixtures = await createFixtures(url, options.tokens, now);
    if (options.webhooks) {
      await subscribeBenchService(url, fixtures.clientPk);
      say('Webhooks: the bench service has an enabled endpoint, so every write records its changes in the webhook outbox.');
    }
    say(`Callers: ${fixtures.tokens.length} tokens of the bench service, spread over ${new Set(fixtures.tokens.map((t) => t.userId)).size} users`);
    const scenarios = allScenarios(load.spec.endDate, load.spec.attributes).filter((s) => options.scenarios.includes(s.name));
    const profiling: Profiling | undefined =
      options.cpuProf || options.allocProf
        ? { dir: path.join(PROJECT_ROOT, 'test', 'bench', 'results', `profiles-${stamp}`), cpu: options.cpuProf, allocations: options.allocProf }
        : undefined;
    const main = await measureDataset({
      label: `main-${options.users}`,
      databaseUrl: url,
      users: options.users,
      postmasterPid: server.postmasterPid,
      fixtures,
      scenarios,
      connections: options.connections,
      targets: options.bareBaseline ? ['daybook', 'baseline', 'bare'] : ['daybook', 'baseline'],
      rounds: options.rounds,
      duration: options.duration,
      warmup: options.warmup,
      opening: options.opening,
      pool: options.pool,
      metrics: options.metrics,
      profiling,
    });

    const scaleCells: Cell[] = [];
    const scaleLoads: LoadReport[] = [];
    for (const users of options.scales) {
      if (users === options.users) {
        scaleCells.push(...main.cells.filter((c) => c.kind === 'read' && options.scaleConnections.includes(c.connections)));
        continue;
      }
      const run = await scaleRun(server, options, users, endDate, now);
      scaleLoads.push(run.load);
      scaleCells.push(...run.measured.cells);
    }

    const overallPeakRss = Math.max(main.startupPeakRss, ...main.cells.flatMap((c) => c.samples.daybook.map((s) => s.peakRss)));
    const targets = checkTargets(main.cells, overallPeakRss);
    const postgres = await postgresFacts(url);
    const machine = machineFacts();
    const markdown = [
      `## Bench results ${started.toISOString().slice(0, 16).replace('T', ' ')} UTC (commit ${commit?.slice(0, 12) ?? 'unknown'})`,
      '',
      `Command: \`npm run bench${process.argv.length > 2 ? ' -- ' + process.argv.slice(2).join(' ') : ''}\`. Machine: ${machine.cpus} x ${machine.cpuModel}, ` +
        `${Math.round(os.totalmem() / 2 ** 30)} GiB, ${machine.kernel}, Node ${process.version}, ${postgres.version.split(' on ')[0]} (shared_buffers ${postgres.shared_buffers}).`,
      `Dataset: ${load.users.toLocaleString('en')} users x ${load.spec.attributes} attributes x ${load.spec.days} days = ${load.values.toLocaleString('en')} values` +
        (load.seconds
          ? `, loaded in ${load.seconds.total.toFixed(0)} s (COPY ${Math.round(load.copyRate!).toLocaleString('en')} values/s; keys and indexes ${load.seconds.indexes.toFixed(0)} s; vacuum ${load.seconds.vacuum.toFixed(0)} s)`
          : ' (reused)') +
        `, ${(load.databaseBytes / 2 ** 30).toFixed(1)} GiB.`,
      `Servers: Daybook compiled (dist/src/bin/server.js), NODE_ENV=production, WORKERS=0, LOG_LEVEL=info, DB_POOL_MAX=${options.pool}, RATE_LIMIT_PER_HOUR=${BENCH_RATE_LIMIT} (raised for the run)${options.metrics ? ', METRICS_TOKEN set (Prometheus metrics on)' : ''}${options.webhooks ? ', an enabled webhook endpoint (writes record webhook events)' : ''}; ` +
        `baseline node:http + pg, pool ${options.pool}, one statement per request: token check, rate-limit count and data${options.bareBaseline ? '; bare baseline the same without token check and count' : ''}. ${fixtures.tokens.length} tokens over ${new Set(fixtures.tokens.map((t) => t.userId)).size} users. ` +
        `${options.rounds} rounds of ${options.duration} s per cell, alternating Daybook and baseline${options.bareBaseline ? ' and bare baseline' : ''} (Daybook and baseline taking turns to go first), after ${options.warmup} s of warm-up each; each round measured after its own first ${options.opening} s (its connections' opening, driven but not measured); medians (min–max).`,
      '',
      '### Throughput and latency',
      '',
      throughputTable(main.cells),
      '',
      '### CPU (percent of one core, medians) and peak RSS',
      '',
      resourceTable(main.cells),
      '',
      '### Derived data',
      '',
      derive
        ? `One user's weekly derive (${derive.oneUser.attributes} numeric attributes, ${derive.oneUser.values.toLocaleString('en')} values loaded, ${derive.oneUser.tests} tests, ${derive.oneUser.published} published): ` +
          `median ${derive.oneUser.medianMs.toFixed(0)} ms (${derive.oneUser.minMs.toFixed(0)}–${derive.oneUser.maxMs.toFixed(0)}, ${derive.oneUser.runs} runs; ` +
          `load ${derive.oneUser.phases.loadMs.toFixed(0)} ms, compute ${derive.oneUser.phases.computeMs.toFixed(0)} ms, write ${derive.oneUser.phases.writeMs.toFixed(0)} ms). ` +
          `All ${derive.all.users.toLocaleString('en')} users one after another (one worker, \`deriveMany\`): ${derive.all.seconds.toFixed(0)} s, ${derive.all.usersPerMinute.toFixed(0)} users/minute. ` +
          '(`npm run bench:derive` is the detailed derived-data benchmark.)'
        : 'Not measured (--skip-derive).',
      '',
      '### Scale: Daybook reads by dataset size',
      '',
      scaleCells.length ? scaleTable(scaleCells) : 'Not run (--scales none).',
      '',
      '### Targets for this machine',
      '',
      targetsTable(targets),
    ].join('\n');
    process.stdout.write('\n' + markdown + '\n\n');
    const files = writeResults(
      stamp,
      {
        startedAt: started.toISOString(),
        finishedAt: new Date().toISOString(),
        commit,
        command: ['npm run bench', ...process.argv.slice(2)].join(' '),
        machine,
        postgres,
        databaseServer: server.description,
        options,
        daybookEnv: main.daybookEnv,
        datasets: [load, ...scaleLoads],
        derive,
        tokens: { count: fixtures.tokens.length, users: new Set(fixtures.tokens.map((t) => t.userId)).size },
        results: main.cells,
        scale: scaleCells,
        daybookStartupPeakRss: main.startupPeakRss,
        targets,
      },
      markdown,
    );
    say(
      `Written: ${path.relative(PROJECT_ROOT, files.json)} and ${path.relative(PROJECT_ROOT, files.markdown)}${profiling ? `; profiles in ${path.relative(PROJECT_ROOT, profiling.dir)}` : ''}`,
    );
    if (targets.some((t) => !t.met)) say('Some targets were missed: see the table above.');
  } finally {
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

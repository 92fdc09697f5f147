/**
 * `npm run bench:derive`: the cost of derived data for people with 60 attributes x 365 days.
 *
 * On a fresh embedded PostgreSQL (free port, temporary folder under the OS temp dir) it loads the
 * demo generator's data for N people (60 numeric attributes, 365 days each), then
 * 1. times one person's full derive (averages, correlations of every pair at both offsets,
 *    insights; the function the queue's workers run) over several repetitions: median and range,
 *    with where the time goes (load, compute, write) and the CPU time of this process;
 * 2. times the weekly run over all N people one after another (one worker): users per minute.
 * Prints a Markdown table and writes JSON under test/bench/results/ (git-ignored).
 *
 * Options: --users N (20), --runs N (7), --attributes N (60), --days N (365), --seed N (1).
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import cliProgress from 'cli-progress';
import { startEmbeddedPostgres } from '../../src/db/embedded';
import { createKnex } from '../../src/db/knex';
import { migrateLatest } from '../../src/db/migrate';
import { seedCatalogue } from '../../src/db/seed-catalogue';
import { loadDemoData, selectDemoTemplates } from '../../src/demo/demo-data';
import { TEMPLATES_BY_NAME, TEMPLATES } from '../../src/db/catalogue-templates';
import { VALUE_TYPES } from '../../src/db/catalogue-value-types';
import { deriveUser, type DeriveSummary } from '../../src/analytics/derive';
import { deriveMany } from '../../src/analytics/run-many';
import { PROJECT_ROOT } from '../../src/paths';

interface Options {
  users: number;
  runs: number;
  attributes: number;
  days: number;
  seed: number;
}

function parseOptions(args: string[]): Options {
  const options: Options = { users: 20, runs: 7, attributes: 60, days: 365, seed: 1 };
  for (let i = 0; i < args.length; i += 2) {
    const name = args[i].replace(/^--/, '') as keyof Options;
    const value = Number(args[i + 1]);
    if (!(name in options) || !Number.isInteger(value) || value < 1) {
      throw new Error(`Unknown or bad option ${args[i]} ${args[i + 1] ?? ''}: use --users, --runs, --attributes, --days, --seed with a positive integer.`);
    }
    options[name] = value;
  }
  return options;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

const median = (sorted: number[]) => (sorted.length % 2 ? sorted[sorted.length >> 1] : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2);
const ms = (value: number) => `${value.toFixed(0)} ms`;

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'daybook-bench-derive-'));
  fs.chmodSync(dir, 0o755); // as root the cluster runs as the postgres user, who must reach its folder
  const port = await freePort();
  process.stderr.write(`Starting PostgreSQL on port ${port} in ${dir}…\n`);
  const pg = await startEmbeddedPostgres({ dir: path.join(dir, 'pg'), port, database: 'daybook_bench' });
  const db = createKnex(pg.url, { pool: { min: 0, max: 4 } });
  try {
    await migrateLatest(db);
    await seedCatalogue(db);
    const now = new Date();
    const endDate = now.toISOString().slice(0, 10);
    // The demo generator's selection order, numeric templates only (strings are never correlated).
    const templates = selectDemoTemplates(TEMPLATES.length)
      .filter((name) => TEMPLATES_BY_NAME.get(name)!.valueType !== VALUE_TYPES.string)
      .slice(0, options.attributes);

    const load = new cliProgress.SingleBar({ format: 'Loading   |{bar}| {value}/{total} users', stream: process.stderr }, cliProgress.Presets.shades_classic);
    load.start(options.users, 0);
    const people: Array<{ id: number; username: string }> = [];
    const loadStarted = performance.now();
    for (let i = 0; i < options.users; i++) {
      const [row] = await db('users')
        .insert({ username: `bench_derive_${i + 1}`, timezone: 'UTC' })
        .returning(['id', 'username']);
      await loadDemoData(db, row.id, { seed: options.seed, user: i, days: options.days, endDate, attributes: templates });
      people.push(row);
      load.increment();
    }
    load.stop();
    const loadSeconds = (performance.now() - loadStarted) / 1000;
    await db.raw('analyze');

    // 1. One person's derive, repeated (the first run warms up the JIT and the caches, and is not counted).
    const person = people[0];
    await deriveUser(db, person.id, { now });
    const runs: DeriveSummary[] = [];
    const cpu: number[] = [];
    const bar = new cliProgress.SingleBar({ format: 'One user  |{bar}| {value}/{total} runs', stream: process.stderr }, cliProgress.Presets.shades_classic);
    bar.start(options.runs, 0);
    for (let i = 0; i < options.runs; i++) {
      const before = process.cpuUsage();
      runs.push((await deriveUser(db, person.id, { now }))!);
      const used = process.cpuUsage(before);
      cpu.push((used.user + used.system) / 1000);
      bar.increment();
    }
    bar.stop();
    const times = runs.map((r) => r.ms).sort((a, b) => a - b);
    const phase = (pick: (s: DeriveSummary) => number) => median(runs.map(pick).sort((a, b) => a - b));
    const one = {
      userId: person.id,
      runs: options.runs,
      medianMs: median(times),
      minMs: times[0],
      maxMs: times[times.length - 1],
      cpuMedianMs: median([...cpu].sort((a, b) => a - b)),
      loadMs: phase((r) => r.phases.loadMs),
      computeMs: phase((r) => r.phases.computeMs),
      writeMs: phase((r) => r.phases.writeMs),
      attributes: runs[0].attributes,
      values: runs[0].values,
      tests: runs[0].tests,
      published: runs[0].published,
      averages: runs[0].averages,
    };

    // 2. The weekly run over everyone, one worker.
    const weekly = await deriveMany(db, people, { now: () => now, label: 'Weekly    ' });

    const rows: Array<[string, string]> = [
      ['Data per user', `${one.attributes} attributes x ${options.days} days (${one.values} values)`],
      [
        'Tests per user (pairs x offsets)',
        `${one.tests} (${(one.attributes * (one.attributes - 1)) / 2} pairs; ${one.published} published, ${one.averages} averages)`,
      ],
      [`One user's derive, median of ${options.runs}`, ms(one.medianMs)],
      ["One user's derive, range", `${ms(one.minMs)} to ${ms(one.maxMs)}`],
      ['… load (lock + one query)', ms(one.loadMs)],
      ['… compute (averages, correlations, insights)', ms(one.computeMs)],
      ['… write (one transaction)', ms(one.writeMs)],
      ['CPU time of this process per derive (median)', ms(one.cpuMedianMs)],
      [
        `Weekly run, ${weekly.totals.users} users, one worker`,
        `${weekly.totals.seconds.toFixed(2)} s = ${weekly.totals.usersPerMinute.toFixed(0)} users/minute`,
      ],
      ['Target', 'under 500 ms per user, single core'],
    ];
    const table = ['| Derived data | |', '|---|---|', ...rows.map(([k, v]) => `| ${k} | ${v} |`)].join('\n');
    process.stdout.write(`\n${table}\n\n`);

    const results = {
      kind: 'derive',
      at: now.toISOString(),
      machine: { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, memoryGiB: Math.round(os.totalmem() / 2 ** 30), node: process.version },
      options,
      loadSeconds,
      oneUser: one,
      weekly: weekly.totals,
      targetMet: one.medianMs < 500,
    };
    const out = path.join(PROJECT_ROOT, 'test/bench/results');
    fs.mkdirSync(out, { recursive: true });
    const file = path.join(out, `derive-${now.toISOString().replace(/[:.]/g, '-').slice(0, 19)}.json`);
    fs.writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
    process.stdout.write(`Results written to ${path.relative(PROJECT_ROOT, file)}\n`);
  } finally {
    await db.destroy();
    await pg.stop();
    fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(`${path.join(dir, 'pg')}.password`, { force: true });
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`bench:derive failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);

/**
 * What the CPU micro-benchmarks of issue 35 share (values-micro, reads-micro, create-acquire-micro):
 * the command line's options, the bench's dataset on one connection, a guard shaped like a steady
 * request's, CPU per call of this process and of the connection's PostgreSQL backend, blocks of
 * two variants interleaved, medians, and the load average to print beside the figures (the machine
 * is shared). Each script keeps only its variants and what it prints.
 */
import os from 'node:os';
import type { Knex } from 'knex';
import type { FirstStatementGuard } from '../../src/db/database';
import { createKnex } from '../../src/db/knex';
import { sql } from '../../src/db/sql';
import { onInterrupt } from './cleanup';
import { loadedSpec, openBenchServer } from './database';
import { CLIENT_NAME } from './fixtures';
import { backendCpuMs } from './sql-measure';

/** The value after `--name` on the command line, else `fallback`. */
export function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
}

/** The middle value (of an even count, the upper of the two middle ones). */
export const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1];

/** The load averages over 1, 5 and 15 minutes. */
export const loadAverage = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(', ');

/** What a guard puts on its statement: its CTE and how many columns that CTE has. */
type GuardColumns = Pick<FirstStatementGuard, 'ctes' | 'columnCount'>;

/**
 * The `guard` CTE of a steady request's recheck and count: the request counted and within the limit,
 * the columns of CredentialsRecheck's (src/domain/apps-and-grants/credential-recheck.ts) in their order.
 */
const steadyRecheck = (): GuardColumns => ({
  ctes: sql`guard as (select 1::integer as quota_points, ${Date.now() + 3_600_000}::bigint as quota_expire, true as guard_proceed)`,
  columnCount: 3,
});

/**
 * A guard that rides on a request's first statement as the real one does (its columns on every
 * row of the read) and never stops the request: nothing is taken from its columns. `columns` is a
 * steady request's recheck unless given (a former build's own `sql`, or another CTE). Written as
 * the database's guard interface: a change to that interface breaks this file's compile.
 */
export function benchGuard(columns: GuardColumns = steadyRecheck()): FirstStatementGuard {
  return {
    ctes: columns.ctes,
    columnCount: columns.columnCount,
    take: () => undefined,
    takeValues: () => undefined,
    runAlone: async () => undefined,
  };
}

/** A loaded bench dataset on one connection. */
export interface BenchConnection {
  /** The dataset's database, `daybook_bench_<users>`. */
  database: string;
  /** A pool of one connection. */
  knex: Knex;
  /** That connection's PostgreSQL backend, whose CPU `cpuPerCall` reads. */
  pid: number;
  /** The people the bench's service holds tokens for, by id. */
  people: number[];
  /** The one in the middle of them: the person a script asks for. */
  userId: number;
}

/**
 * Runs `work` on the bench's dataset of `users` people (loaded beforehand by `npm run bench --
 * --small` or a full bench), on the bench's embedded PostgreSQL or DATABASE_URL's server, then
 * stops that server (also on an interrupt).
 */
export async function onBenchDataset(users: number, work: (bench: BenchConnection) => Promise<void>): Promise<void> {
  const server = await openBenchServer(process.env.DATABASE_URL);
  const unregister = onInterrupt(() => server.stop());
  try {
    const database = `daybook_bench_${users}`;
    if (!(await loadedSpec(server, database))) throw new Error(`${database} is not loaded: run \`npm run bench -- --small\` first.`);
    const knex = createKnex(server.urlOf(database), { pool: { min: 1, max: 1 } });
    try {
      const client = await knex('oauth_clients').where({ name: CLIENT_NAME }).first('id');
      const rows: Array<{ user_id: string }> = await knex('tokens').where({ client_pk: client.id }).distinct('user_id').orderBy('user_id');
      const people = rows.map((row) => Number(row.user_id));
      const pid = Number((await knex.raw('select pg_backend_pid() as pid')).rows[0].pid);
      await work({ database, knex, pid, people, userId: people[Math.floor(people.length / 2)] });
    } finally {
      await knex.destroy();
    }
  } finally {
    unregister();
    await server.stop();
  }
}

/** CPU µs per call, of this process and of a PostgreSQL backend. */
export interface CallCpu {
  serviceUs: number;
  backendUs: number;
}

/** CPU per call of `run` over `calls` calls one after another (each given its index), here and in the backend `pid`. */
export async function cpuPerCall(pid: number, calls: number, run: (index: number) => Promise<unknown>): Promise<CallCpu> {
  const start = process.cpuUsage();
  const backendStart = backendCpuMs(pid);
  for (let i = 0; i < calls; i++) await run(i);
  const used = process.cpuUsage(start);
  return { serviceUs: (used.user + used.system) / calls, backendUs: ((backendCpuMs(pid) - backendStart) * 1000) / calls };
}

/**
 * Two variants measured in `blocks` blocks, each block measuring both, the first of the pair
 * alternating (the second of a pair ran measurably slower on this machine, whichever it was):
 * each variant's figures, block by block.
 */
export async function interleaved<F>(blocks: number, first: () => Promise<F>, second: () => Promise<F>): Promise<[F[], F[]]> {
  const figures: [F[], F[]] = [[], []];
  for (let block = 0; block < blocks; block++) {
    if (block % 2 === 0) {
      figures[0].push(await first());
      figures[1].push(await second());
    } else {
      figures[1].push(await second());
      figures[0].push(await first());
    }
  }
  return figures;
}

/** Runs a script's `main`; an error is printed and the exit code is 1. */
export function runScript(main: () => Promise<void>): void {
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  });
}

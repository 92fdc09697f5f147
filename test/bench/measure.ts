/**
 * Measures one dataset: starts Daybook (and the baseline, and the bare baseline) on it, prepares and
 * checks, then for each scenario and connection count runs a short unmeasured warm-up of each
 * server and `rounds` rounds in alternating order, Daybook and the baseline taking turns to go first (`roundOrder`), each
 * round measured after its own unmeasured opening (see drive.ts) and started from a settled
 * database (`settleBeforeRound`), with the CPU of the server, of Postgres and of the load generator
 * and the server's peak RSS for each measurement.
 */
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/paths';
import { drive } from './drive';
import type { Fixtures } from './fixtures';
import { acquireWriteAttributes, checkSameAnswers } from './check';
import { CREATED_LABEL_PREFIX, type Scenario } from './scenarios';
import { withClient } from './database';
import { cpuMeter, peakRss, resetPeakRss } from './resources';
import { daybookEnv, startBaseline, startDaybook, type Profiling, type RunningServer } from './services';
import { say } from './progress';
import { onInterrupt } from './cleanup';
import type { Cell, Target } from './report';

export interface MeasureInput {
  label: string;
  databaseUrl: string;
  users: number;
  postmasterPid: number | undefined;
  fixtures: Fixtures;
  scenarios: Scenario[];
  connections: number[];
  targets: Target[];
  rounds: number;
  duration: number;
  warmup: number;
  /** Unmeasured seconds at the start of each round, on the round's own connections. */
  opening: number;
  pool: number;
  /** Daybook with its Prometheus metrics on (METRICS_TOKEN set). */
  metrics?: boolean;
  /** The profiles to write of the servers, when profiling. */
  profiling?: Profiling;
}

export interface MeasureOutput {
  cells: Cell[];
  /** Daybook's peak RSS from its start to its first measurement (start-up, preparation). */
  startupPeakRss: number;
  daybookEnv: Record<string, string>;
}

const LOG_DIR = path.join(PROJECT_ROOT, '.data', 'bench', 'logs');

/** The create scenario's attributes go again, so a reused dataset stays as it was loaded. */
async function removeCreatedAttributes(url: string): Promise<void> {
  const removed = await withClient(url, (client) => client.query('delete from attributes where label like $1', [`${CREATED_LABEL_PREFIX} %`]));
  say(`Removed the ${removed.rowCount ?? 0} attributes the create scenario made.`);
}

/**
 * The tables a run's writes leave dead rows in, vacuumed before measuring: a reused dataset carries
 * the last run's writes, and the create scenario's thousands of attributes, deleted at its end,
 * would otherwise leave the attributes' index bloated until autovacuum came by (with-values then
 * cost both servers several times its PostgreSQL time, in whichever run came next).
 *
 * The attributes and their services are rewritten whole (`vacuum full`, which rebuilds their
 * indexes): a plain vacuum frees the dead entries but leaves the indexes their size, and after a
 * day of runs (millions of created and removed attributes) the attributes' indexes held 1.3 GB for
 * 4,000 rows: each person's entries spread over pages mostly empty, which every statement finding
 * a person's attributes walked, so that the writes' PostgreSQL time per request grew by half from
 * one run to the next (docs/request-path.md, "Issue 35, seventh stop"). Those two tables are small
 * when clean (a few thousand rows), so the rewrite takes well under a second.
 */
const REWRITTEN_TABLES = ['attributes', 'attribute_services'];
const WRITTEN_TABLES = ['attribute_values', 'value_changes', 'rate_limits', 'person_writes'];

async function vacuumWrittenTables(url: string): Promise<void> {
  const t0 = performance.now();
  await withClient(url, async (client) => {
    await client.query(`vacuum (full, analyze) ${REWRITTEN_TABLES.join(', ')}`);
    await client.query(`vacuum (analyze) ${WRITTEN_TABLES.join(', ')}`);
  });
  const seconds = ((performance.now() - t0) / 1000).toFixed(1);
  say(`Rewrote ${REWRITTEN_TABLES.join(', ')} and vacuumed ${WRITTEN_TABLES.join(', ')} (the tables earlier runs wrote) in ${seconds} s.`);
}

/**
 * The database's own upkeep, done between rounds instead of inside them. A round of update writes
 * some 400,000 rows of attribute_values: autovacuum's analyse of that table then fell due every
 * round or so, and ran at its next minute's tick in whichever server's round that was; a timed
 * checkpoint (every five minutes) landed in a round the same way, and the rounds after it paid
 * the full-page images of every page they touched first. Either falls on one round of one server
 * alone, noise the ratio of medians carries (rounds of one server spread 940-1,309 req/s in one
 * run; docs/request-path.md, "Issue 35, tenth stop"). So, for the measured
 * rounds, autovacuum is off on the tables the scenarios write, and before every round (untimed,
 * the same for every server) they are vacuumed and analysed and a checkpoint is taken: every round
 * starts from the same clean state and none pays for another's writes. Autovacuum's settings are
 * restored when the rounds end. On a DATABASE_URL whose user may not alter the tables or take a
 * checkpoint, that step is left out and said once; the rounds still run.
 */
const SETTLED_TABLES = [...REWRITTEN_TABLES, ...WRITTEN_TABLES];

/** PostgreSQL's "insufficient privilege". */
const NOT_ALLOWED = '42501';

/** Runs one step of the upkeep; false (said once by the caller) when the database's user may not. */
async function allowedStep(run: () => Promise<unknown>): Promise<boolean> {
  try {
    await run();
    return true;
  } catch (error) {
    if ((error as { code?: string }).code !== NOT_ALLOWED) throw error;
    return false;
  }
}

/** Turns autovacuum off on the written tables (or back to their setting); false when not allowed. */
function pauseAutovacuum(url: string, paused: boolean): Promise<boolean> {
  const setting = paused ? 'set (autovacuum_enabled = off)' : 'reset (autovacuum_enabled)';
  return allowedStep(() => withClient(url, (client) => client.query(SETTLED_TABLES.map((table) => `alter table ${table} ${setting}`).join('; '))));
}

/** Vacuums and analyses the written tables and takes a checkpoint (a superuser's; skipped, and said once, without the right). */
async function settleBeforeRound(url: string, state: { checkpointRefused: boolean }): Promise<void> {
  await withClient(url, async (client) => {
    await client.query(`vacuum (analyze) ${SETTLED_TABLES.join(', ')}`);
    if (state.checkpointRefused) return;
    if (!(await allowedStep(() => client.query('checkpoint')))) {
      state.checkpointRefused = true;
      say('The database refused CHECKPOINT (insufficient privilege): rounds start without one.');
    }
  });
}

/** Autovacuum back to the tables' setting; a failure is said, not thrown (it runs on the way out). */
async function resumeAutovacuum(url: string): Promise<void> {
  await pauseAutovacuum(url, false).catch((error: Error) => say(`Could not turn autovacuum back on for ${SETTLED_TABLES.join(', ')}: ${error.message}`));
}

/**
 * The servers' order in round `round` (from 1): as given in odd rounds (Daybook, baseline[, bare]),
 * with the first two swapped in even rounds (baseline, Daybook[, bare]). In one fixed order each
 * server's round always came right after the same other server's, and a round may pay for what
 * the one before it left (the upkeep before it cleans most, not all of it): with the bare
 * baseline, the fastest writer, in the run, Daybook always came after it, and update at 32
 * connections read a median 0.885 over ten such runs against 0.95 over the runs without it
 * (docs/request-path.md, "Issue 35, twelfth stop"). Taking turns, Daybook and the baseline each
 * follow the bare baseline in every other round and each other in the rest, and each goes first
 * as often, whatever the size of that carry-over. (Rotating the order would not do: a rotation
 * keeps who follows whom.)
 */
export function roundOrder<T>(targets: readonly T[], round: number): T[] {
  if (round % 2 === 1 || targets.length < 2) return [...targets];
  const [first, second, ...rest] = targets;
  return [second, first, ...rest];
}

/** The bare baseline's tokens, handed over in a file (it looks nothing up). */
function writeBareTokens(input: MeasureInput): string {
  const tokensFile = path.join(PROJECT_ROOT, '.data', 'bench', `tokens-${input.label}.json`);
  fs.mkdirSync(path.dirname(tokensFile), { recursive: true });
  fs.writeFileSync(tokensFile, JSON.stringify(input.fixtures.tokens.map((t) => ({ ...t, clientPk: input.fixtures.clientPk }))), { mode: 0o600 });
  return tokensFile;
}

export async function measureDataset(input: MeasureInput): Promise<MeasureOutput> {
  const env = daybookEnv(input.databaseUrl, input.pool, { metrics: input.metrics ?? false });
  const servers: Partial<Record<Target, RunningServer>> = {};
  let autovacuumPaused = false;
  const forget = onInterrupt(async () => {
    await servers.daybook?.stop();
    await servers.baseline?.stop();
    await servers.bare?.stop();
    if (autovacuumPaused) await resumeAutovacuum(input.databaseUrl);
  });
  try {
    await vacuumWrittenTables(input.databaseUrl);
    servers.daybook = await startDaybook(env, path.join(LOG_DIR, `daybook-${input.label}.log`), input.profiling);
    if (input.targets.includes('baseline')) {
      servers.baseline = await startBaseline(input.databaseUrl, input.pool, path.join(LOG_DIR, `baseline-${input.label}.log`), input.profiling);
    }
    if (input.targets.includes('bare')) {
      servers.bare = await startBaseline(input.databaseUrl, input.pool, path.join(LOG_DIR, `bare-${input.label}.log`), input.profiling, writeBareTokens(input));
    }
    say(
      `Daybook (pid ${servers.daybook.pid}) on port ${servers.daybook.port}${servers.baseline ? `, baseline (pid ${servers.baseline.pid}) on port ${servers.baseline.port}` : ''}${servers.bare ? `, bare baseline (pid ${servers.bare.pid}) on port ${servers.bare.port}` : ''}; logs in ${path.relative(PROJECT_ROOT, LOG_DIR)}/`,
    );
    const tokens = input.fixtures.tokens.map((t) => t.token);
    if (input.scenarios.some((s) => s.kind === 'write')) await acquireWriteAttributes(servers.daybook.port, tokens);
    const refusedAndLive = { live: tokens[0], revoked: input.fixtures.revokedToken };
    if (servers.baseline) {
      await checkSameAnswers(servers.daybook.port, servers.baseline.port, refusedAndLive, input.scenarios, { rateLimit: true });
      say(
        'Checked: the baseline answers every scenario with the same data, X-RateLimit-Limit and shared count as Daybook, and 401 to an unknown and to a revoked token.',
      );
    }
    if (servers.bare) {
      await checkSameAnswers(servers.daybook.port, servers.bare.port, refusedAndLive, input.scenarios, { rateLimit: false });
      say('Checked: the bare baseline answers every scenario with the same data as Daybook.');
    }
    const startupPeakRss = peakRss(servers.daybook.pid);

    const cells: Cell[] = [];
    autovacuumPaused = await pauseAutovacuum(input.databaseUrl, true);
    if (!autovacuumPaused) say('The database refused to turn autovacuum off (insufficient privilege): it stays on during the rounds.');
    const settling = { checkpointRefused: false };
    const total = input.scenarios.length * input.connections.length * input.rounds * input.targets.length;
    let done = 0;
    const t0 = performance.now();
    for (const scenario of input.scenarios) {
      for (const connections of input.connections) {
        const cell: Cell = { scenario: scenario.name, kind: scenario.kind, connections, users: input.users, samples: { daybook: [], baseline: [], bare: [] } };
        cells.push(cell);
        if (input.warmup > 0) {
          for (const target of input.targets) await drive({ port: servers[target]!.port, scenario, tokens, connections, seconds: input.warmup });
        }
        for (let round = 1; round <= input.rounds; round++) {
          for (const target of roundOrder(input.targets, round)) {
            const server = servers[target]!;
            await settleBeforeRound(input.databaseUrl, settling);
            resetPeakRss(server.pid);
            let meter: ReturnType<typeof cpuMeter> | undefined;
            const result = await drive({
              port: server.port,
              scenario,
              tokens,
              connections,
              seconds: input.duration,
              opening: input.opening,
              onMeasuring: () => (meter = cpuMeter(server.pid, input.postmasterPid)),
            });
            const cpu = meter!.stop();
            cell.samples[target].push({ round, drive: result, cpu, peakRss: peakRss(server.pid) });
            done++;
            const eta = (((performance.now() - t0) / done) * (total - done)) / 1000;
            say(
              `[${input.label} ${done}/${total}, ~${Math.ceil(eta / 60)} min left] ${scenario.name} c=${connections} ${target} round ${round}: ` +
                `${Math.round(result.requestsPerSecond)} req/s, p50 ${result.p50.toFixed(2)} p99 ${result.p99.toFixed(2)} p99.9 ${result.p999.toFixed(2)} ms, ` +
                `errors ${result.errors}, CPU % service/Postgres/load gen/other ${Math.round(cpu.service)}/${Math.round(cpu.postgres)}/${Math.round(cpu.loadGenerator)}/${Math.round(cpu.others)}`,
            );
          }
        }
      }
    }
    if (input.scenarios.some((s) => s.name === 'create')) await removeCreatedAttributes(input.databaseUrl);
    return { cells, startupPeakRss, daybookEnv: { ...env, SECRET_KEY: '(random for the run)', DATABASE_URL: '(the dataset database)' } };
  } finally {
    forget();
    await servers.daybook?.stop();
    await servers.baseline?.stop();
    await servers.bare?.stop();
    if (autovacuumPaused) await resumeAutovacuum(input.databaseUrl);
  }
}

/** The bench's command line: `npm run bench -- [--small] [--users N] …` (see test/bench/README.md). */
import { SCENARIO_NAMES } from './scenarios';

export interface BenchOptions {
  small: boolean;
  users: number;
  attributes: number;
  days: number;
  seed: number;
  /** Tokens issued, spread over the dataset's users. */
  tokens: number;
  connections: number[];
  rounds: number;
  /** Seconds per measurement. */
  duration: number;
  /** Seconds of unmeasured traffic before the rounds of a scenario and connection count. */
  warmup: number;
  /** Unmeasured seconds at the start of each round, on that round's connections. */
  opening: number;
  scenarios: string[];
  /** Dataset sizes (users) the reads are also run at; the main size reuses the main measurements. */
  scales: number[];
  scaleConnections: number[];
  reuseData: boolean;
  skipDerive: boolean;
  /** DB_POOL_MAX of Daybook, and the baseline's pool size. */
  pool: number;
  cpuProf: boolean;
  /** Allocation profiles of the servers (alloc-sampler.ts). */
  allocProf: boolean;
  /** Run Daybook with METRICS_TOKEN set (the Prometheus middleware on). */
  metrics: boolean;
  /** An enabled webhook endpoint for the bench service, so writes record webhook events. */
  webhooks: boolean;
  /** Also measure the bare baseline (no authentication, no rate-limit count), in the same rounds. */
  bareBaseline: boolean;
}

const USAGE = `Usage: npm run bench -- [options]

  --small                 quick run: 100 users x 40 attributes x 365 days, 3 s per measurement, scales 25,100
  --users N               dataset users (default 1000)
  --attributes N          attributes per user (default 40)
  --days N                days of data per attribute (default 730)
  --seed N                demo generator seed (default 1)
  --tokens N              OAuth tokens spread over the users (default 200)
  --connections LIST      concurrencies (default 1,8,32,128)
  --rounds N              rounds per measurement, alternating Daybook and baseline(s) (default 3)
  --duration S            seconds per measurement (default 10)
  --warmup S              unmeasured seconds before each scenario's rounds (default 3)
  --opening S             unmeasured seconds at the start of each round, on its own connections (default 1)
  --scenarios LIST        ${SCENARIO_NAMES.join(',')} (default all)
  --scales LIST           dataset sizes for the scale runs, or none (default 100,1000)
  --scale-connections L   concurrencies of the scale runs (default 8,32)
  --reuse-data            keep a dataset database already loaded with the same parameters
  --skip-derive           do not time the derived-data step (correlations must then exist)
  --pool N                database pool of each server (default 10, Daybook's default)
  --cpu-prof              write V8 CPU profiles of both servers under test/bench/results/
  --alloc-prof            write allocation profiles of both servers there too (alloc-sampler.ts; summary: alloc-summary.js)
  --metrics               run Daybook with METRICS_TOKEN set (Prometheus metrics on), to measure their cost
  --webhooks              give the bench service an enabled webhook endpoint: every write records webhook events
  --bare-baseline         also measure the bare baseline (no authentication, no rate-limit count) in the same rounds
`;

function list(value: string): number[] {
  return value.split(',').map((v) => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < 1) throw new Error(`Expected positive integers, got "${value}".`);
    return n;
  });
}

function positive(name: string, value: string | undefined): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name} takes a positive number.`);
  return n;
}

export function parseOptions(argv: string[]): BenchOptions {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(USAGE);
    process.exit(0);
  }
  const small = argv.includes('--small');
  const options: BenchOptions = {
    small,
    users: small ? 100 : 1000,
    attributes: 40,
    days: small ? 365 : 730,
    seed: 1,
    tokens: small ? 50 : 200,
    connections: [1, 8, 32, 128],
    rounds: 3,
    duration: small ? 3 : 10,
    warmup: small ? 1 : 3,
    opening: 1,
    scenarios: SCENARIO_NAMES,
    scales: small ? [25, 100] : [100, 1000],
    scaleConnections: [8, 32],
    reuseData: false,
    skipDerive: false,
    pool: 10,
    cpuProf: false,
    allocProf: false,
    metrics: false,
    webhooks: false,
    bareBaseline: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${flag} needs a value.`);
      return v;
    };
    switch (flag) {
      case '--small':
        break;
      case '--users':
        options.users = positive('users', value());
        break;
      case '--attributes':
        options.attributes = positive('attributes', value());
        break;
      case '--days':
        options.days = positive('days', value());
        break;
      case '--seed':
        options.seed = positive('seed', value());
        break;
      case '--tokens':
        options.tokens = positive('tokens', value());
        break;
      case '--connections':
        options.connections = list(value());
        break;
      case '--rounds':
        options.rounds = positive('rounds', value());
        break;
      case '--duration':
        options.duration = positive('duration', value());
        break;
      case '--opening':
        options.opening = Number(value());
        if (!(options.opening >= 0)) throw new Error('--opening takes a number of seconds, 0 or more.');
        break;
      case '--warmup':
        options.warmup = Number(value());
        break;
      case '--scenarios': {
        options.scenarios = value().split(',');
        const unknown = options.scenarios.filter((s) => !SCENARIO_NAMES.includes(s));
        if (unknown.length > 0) throw new Error(`Unknown scenarios: ${unknown.join(', ')} (known: ${SCENARIO_NAMES.join(', ')}).`);
        break;
      }
      case '--scales': {
        const v = value();
        options.scales = v === 'none' ? [] : list(v);
        break;
      }
      case '--scale-connections':
        options.scaleConnections = list(value());
        break;
      case '--reuse-data':
        options.reuseData = true;
        break;
      case '--skip-derive':
        options.skipDerive = true;
        break;
      case '--pool':
        options.pool = positive('pool', value());
        break;
      case '--cpu-prof':
        options.cpuProf = true;
        break;
      case '--alloc-prof':
        options.allocProf = true;
        break;
      case '--metrics':
        options.metrics = true;
        break;
      case '--webhooks':
        options.webhooks = true;
        break;
      case '--bare-baseline':
        options.bareBaseline = true;
        break;
      default:
        throw new Error(`Unknown option ${flag}.\n\n${USAGE}`);
    }
  }
  return options;
}

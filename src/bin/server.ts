/**
 * Process entry of `npm start`: settings, database (embedded or DATABASE_URL), migrations and
 * catalogue, the demo account (embedded first start), the derived-data job workers (WORKERS=1, the
 * default), then listen. SIGTERM/SIGINT stop accepting connections, let requests in flight and
 * running jobs finish, close the pools, stop the embedded Postgres, exit 0.
 *
 * With WEB_CONCURRENCY > 1 this process is the primary of Node's cluster (src/cluster.ts): it does
 * all of the above but listen, and forks the HTTP processes, which run this file too and only serve
 * (docs/operating.md, "Every core").
 */
import cluster from 'node:cluster';
import type http from 'node:http';
import net from 'node:net';
import v8 from 'node:v8';
import { assertServable, loadConfig, type Config } from '../config';
import type { Logger } from 'pino';
import { createLogger } from '../logger';
import { runProcess, stopDeadlineMs, stopOnSignals } from '../process-lifecycle';
import { openDatabase, type OpenDatabase } from '../database';
import { poolDatabase } from '../db/database';
import { resolveSecretKey } from '../secret-key';
import { createApp } from '../app';
import { createHttpServer } from '../http/server';
import { stopServer } from '../http/graceful-stop';
import { ensureDemoAccount, type DemoAccount } from '../demo/demo-account';
import { startJobs, type Jobs } from '../jobs/queues';
import { StartRefused } from '../db/folder-lock';
import { buildDocsInBackground } from '../http/docs-build';
import { startHttpWorkers } from '../cluster';

/** The one line an operator reads when the port is taken (instead of an EADDRINUSE stack). */
function portInUse(host: string, port: number): StartRefused {
  return new StartRefused(`port ${port} on ${host} is already in use (another Daybook or another program); set PORT to a free port.`);
}

/**
 * Fails at once when the port is taken, before the embedded PostgreSQL is started (or even
 * initialised) for nothing. Listening itself checks again: the port may be taken in between.
 */
async function checkPortFree(host: string, port: number): Promise<void> {
  if (port === 0) return;
  await new Promise<void>((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', (error: NodeJS.ErrnoException) => reject(error.code === 'EADDRINUSE' ? portInUse(host, port) : error));
    probe.listen(port, host, () => probe.close(() => resolve()));
  });
}

/** The address a person can click: `localhost` for a wildcard or loopback bind, else the bound host. */
function browsableUrl(host: string, port: number): string {
  const local = ['0.0.0.0', '::', '127.0.0.1', '::1', 'localhost', ''].includes(host);
  const name = local ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  return `http://${name}:${port}/`;
}

/** The short plain block for the terminal: where to go and, on the first start, the demo account. */
function welcome(url: string, demo: DemoAccount | undefined): string {
  const lines = [`Daybook is running at ${url}`];
  if (demo) {
    lines.push(
      'Demo account (shown once; DEMO=0 turns it off):',
      `  username      ${demo.username}`,
      `  password      ${demo.password}`,
      `  simple token  ${demo.simpleToken}`,
    );
  }
  return lines.join('\n') + '\n';
}

/**
 * The old generation grows by a quarter past what a full collection kept, instead of V8's own factor
 * (up to 4x while allocation is fast): a busy service's garbage then no longer swells the process to
 * several times its live heap (docs/operating.md, "Memory"). A growth factor, not a cap: a burst that
 * needs more memory still gets it. V8 reads the flag at each collection, so setting it here, before
 * the service allocates, holds for the whole process.
 */
const HEAP_GROWING_PERCENT = 50;

/** What the process that owns the service's state starts before anyone is served. */
interface Prepared {
  database: OpenDatabase;
  secretKey: string;
  demo: DemoAccount | undefined;
  jobs: Jobs | undefined;
}

/** The database (started and migrated), the secret key, the demo account and, with WORKERS=1, the job workers and schedules. */
async function prepare(config: Config, logger: Logger): Promise<Prepared> {
  await checkPortFree(config.host, config.port);
  const database = await openDatabase(config, { logger });
  const secretKey = resolveSecretKey(config, logger);

  let demo: DemoAccount | undefined;
  if (database.embedded && config.demo) {
    demo = await ensureDemoAccount(database.db, secretKey, new Date());
    // The credentials go to the person at the terminal (printed once, after listening), never into the log.
    if (demo)
      logger.info({ username: demo.username, values: demo.values }, 'Demo account created (its credentials are printed once to the terminal, not logged)');
  }

  // Derived-data workers and schedules run here unless WORKERS=0 (then `npm run worker` runs them).
  let jobs: Jobs | undefined;
  if (config.workers) {
    jobs = await startJobs({
      connectionString: config.databaseUrl ?? database.embedded!.url,
      db: database.db,
      logger,
      now: () => new Date(),
      concurrency: config.workerConcurrency,
      webhooks: config.webhooks,
      replicas: database.replicas,
      importDir: config.importDir,
    });
  }
  return { database, secretKey, demo, jobs };
}

/** Builds the app on `database` and listens; the port it listens on. */
async function serve(config: Config, logger: Logger, prepared: Omit<Prepared, 'demo'>): Promise<{ server: http.Server; port: number }> {
  const { database, secretKey, jobs } = prepared;
  const now = () => new Date();
  const { app } = await createApp({ config, db: database.db, database: poolDatabase(database.db), replicas: database.replicas, logger, secretKey, now, jobs });
  const server = createHttpServer(app.callback(), config);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, config.host, resolve);
    });
  } catch (error) {
    // Nothing may outlive a failed start: the job workers and the embedded PostgreSQL stop first.
    await jobs?.stop(config.shutdownTimeoutMs).catch(() => undefined);
    await database.close().catch(() => undefined);
    throw (error as NodeJS.ErrnoException).code === 'EADDRINUSE' ? portInUse(config.host, config.port) : error;
  }
  const address = server.address();
  return { server, port: typeof address === 'object' && address ? address.port : config.port };
}

/** The start-up line and the terminal's block, once the service answers on `port`. */
function announce(config: Config, logger: Logger, prepared: Prepared, port: number, processes: number): void {
  const url = browsableUrl(config.host, port);
  const { description } = prepared.database;
  logger.info({ port, host: config.host, url, database: description, processes }, `Daybook listening on ${url} using ${description}`);
  logger.flush(); // the log is written in blocks (logger.ts): this line is for whoever waits on it now
  process.stderr.write(welcome(url, prepared.demo));
}

/** The stop after the HTTP side has stopped: running jobs finish (or roll back and are retried later), the pools close. */
async function stopPrepared(config: Config, logger: Logger, prepared: Prepared): Promise<void> {
  await prepared.jobs?.stop(config.shutdownTimeoutMs).catch((error: unknown) => logger.error({ err: error }, 'stopping the job workers failed'));
  await prepared.database.close();
}

/** WEB_CONCURRENCY=1: everything in this one process. */
async function runSingle(config: Config, logger: Logger): Promise<void> {
  const prepared = await prepare(config, logger);
  const { server, port } = await serve(config, logger, prepared);
  announce(config, logger, prepared, port, 1);
  // After listening, so that a first start answers at once; /docs/ says 503 until the pages are built.
  const docsBuild = buildDocsInBackground(logger);

  stopOnSignals(
    logger,
    { stopping: 'stopping: finishing requests in flight', stopped: 'stopped' },
    async () => {
      docsBuild.stop();
      // Idle kept-alive connections close now, busy ones after their response (graceful-stop.ts).
      await stopServer(server, config.shutdownTimeoutMs);
      await stopPrepared(config, logger, prepared);
    },
    stopDeadlineMs(config.shutdownTimeoutMs),
  );
}

/** WEB_CONCURRENCY > 1, the primary: the service's state and jobs here, the HTTP processes forked (src/cluster.ts). */
async function runPrimary(config: Config, logger: Logger): Promise<void> {
  const prepared = await prepare(config, logger);
  // Each HTTP process connects to what the primary resolved: the embedded cluster's URL, the one secret key.
  const env = { DATABASE_URL: config.databaseUrl ?? prepared.database.embedded!.url, SECRET_KEY: prepared.secretKey };
  const workers = startHttpWorkers({ count: config.webConcurrency, env, logger, shutdownTimeoutMs: config.shutdownTimeoutMs });
  let port: number;
  try {
    port = await workers.listening;
  } catch (error) {
    await workers.stop();
    await stopPrepared(config, logger, prepared);
    throw error;
  }
  announce(config, logger, prepared, port, config.webConcurrency);
  const docsBuild = buildDocsInBackground(logger);

  stopOnSignals(logger, { stopping: 'stopping: the HTTP processes finish their requests in flight', stopped: 'stopped' }, async () => {
    docsBuild.stop();
    await workers.stop();
    await stopPrepared(config, logger, prepared);
  });
}

/** WEB_CONCURRENCY > 1, an HTTP process: its own pool on the primary's database, no jobs, serves until SIGTERM. */
async function runHttpProcess(config: Config, logger: Logger): Promise<void> {
  const database = await openDatabase(config, { schemaReady: true, logger });
  const { server, port } = await serve(config, logger, { database, secretKey: resolveSecretKey(config, logger), jobs: undefined });
  logger.info({ port }, 'HTTP process listening');
  stopOnSignals(
    logger,
    { stopping: 'HTTP process stopping: finishing requests in flight', stopped: 'HTTP process stopped' },
    async () => {
      await stopServer(server, config.shutdownTimeoutMs);
      await database.close();
    },
    stopDeadlineMs(config.shutdownTimeoutMs),
  );
}

async function main(): Promise<void> {
  v8.setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  const config = loadConfig();
  assertServable(config);
  const logger = createLogger(config.logLevel);
  // Each HTTP process's lines (requests included) say which process wrote them.
  if (cluster.isWorker) await runHttpProcess(config, logger.child({ worker: cluster.worker!.id, pid: process.pid }));
  else if (config.webConcurrency > 1) await runPrimary(config, logger);
  else await runSingle(config, logger);
}

runProcess(main, { refused: 'Daybook cannot start', failed: 'Daybook failed to start' });

/**
 * Process entry of `npm run worker`: the derived-data job workers and schedules without the HTTP
 * API (run the API instances with WORKERS=0 then). Same settings as the service: DATABASE_URL, or
 * the embedded PostgreSQL under DATA_DIR (reused when the service is running). SIGTERM/SIGINT let
 * running jobs finish (a job cut short rolls back and is retried), then exit 0.
 */
import { ConfigError, loadConfig } from '../config';
import { createLogger } from '../logger';
import { openDatabase } from '../database';
import { startJobs } from '../jobs/queues';
import { StartRefused } from '../db/folder-lock';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  const database = await openDatabase(config, { reuseRunning: true });
  const connectionString = config.databaseUrl ?? database.embedded!.url;
  const jobs = await startJobs({
    connectionString,
    db: database.db,
    logger,
    now: () => new Date(),
    concurrency: config.workerConcurrency,
    webhooks: config.webhooks,
  });
  logger.info({ database: database.description, concurrency: config.workerConcurrency }, `Daybook worker running using ${database.description}`);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'worker stopping: finishing running jobs');
    await jobs.stop(config.shutdownTimeoutMs);
    await database.close();
    logger.info('worker stopped');
    logger.flush();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('unhandledRejection', (reason) => logger.error({ err: reason }, 'unhandled rejection'));
}

main().catch((error: unknown) => {
  const message =
    error instanceof ConfigError || error instanceof StartRefused ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error);
  process.stderr.write(`Daybook worker failed to start: ${message}\n`);
  process.exit(1);
});

/**
 * Process entry of `npm run worker`: the derived-data job workers and schedules without the HTTP
 * API (run the API instances with WORKERS=0 then). Same settings as the service: DATABASE_URL, or
 * the embedded PostgreSQL under DATA_DIR (reused when the service is running). SIGTERM/SIGINT let
 * running jobs finish (a job cut short rolls back and is retried), then exit 0.
 */
import { loadConfig } from '../config';
import { createLogger } from '../logger';
import { runProcess, stopOnSignals } from '../process-lifecycle';
import { openDatabase } from '../database';
import { startJobs } from '../jobs/queues';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  const database = await openDatabase(config, { reuseRunning: true, logger });
  const connectionString = config.databaseUrl ?? database.embedded!.url;
  const jobs = await startJobs({
    connectionString,
    db: database.db,
    logger,
    now: () => new Date(),
    concurrency: config.workerConcurrency,
    webhooks: config.webhooks,
    replicas: database.replicas,
    importDir: config.importDir,
  });
  logger.info({ database: database.description, concurrency: config.workerConcurrency }, `Daybook worker running using ${database.description}`);

  stopOnSignals(logger, { stopping: 'worker stopping: finishing running jobs', stopped: 'worker stopped' }, async () => {
    await jobs.stop(config.shutdownTimeoutMs);
    await database.close();
  });
}

runProcess(main, { refused: 'Daybook worker failed to start', failed: 'Daybook worker failed to start' });

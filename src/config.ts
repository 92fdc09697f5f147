/**
 * Every setting of the service, read once from the environment. Each has a doc line, a default and
 * its environment variable; `loadConfig` validates them and refuses to start on a bad value.
 */
import path from 'node:path';
import { PROJECT_ROOT } from './paths';

export interface Config {
  /** PORT: TCP port the HTTP server listens on. */
  port: number;
  /** HOST: interface to bind. */
  host: string;
  /** DATABASE_URL: Postgres to use; when unset an embedded PostgreSQL is started under DATA_DIR. */
  databaseUrl: string | undefined;
  /** DATA_DIR: folder for the embedded database, its password and the generated secret key. */
  dataDir: string;
  /** EMBEDDED_PG_PORT: loopback port of the embedded PostgreSQL. */
  embeddedPgPort: number;
  /** DB_POOL_MAX: connections per instance. */
  dbPoolMax: number;
  /** DB_CONNECT_TIMEOUT_MS: how long opening a database connection may take before the request is answered 503. */
  dbConnectTimeoutMs: number;
  /** DB_ACQUIRE_TIMEOUT_MS: how long a request may wait for a free pooled connection before it is answered 503. */
  dbAcquireTimeoutMs: number;
  /** DB_STATEMENT_TIMEOUT_MS: the server cancels a statement running longer (0 = no limit). */
  dbStatementTimeoutMs: number;
  /** DB_QUERY_TIMEOUT_MS: a query the server has not answered at all after this long drops its connection (0 = never); above DB_STATEMENT_TIMEOUT_MS. */
  dbQueryTimeoutMs: number;
  /** PUBLIC_URL: external base URL (https://…) used for absolute links; unset = the request's own host. */
  publicUrl: string | undefined;
  /** TRUST_PROXY: 1 to take protocol, host and client address from X-Forwarded-* headers. */
  trustProxy: boolean;
  /** RATE_LIMIT_PER_HOUR: requests per hour per person's connection (the spec's 300; domain/quota.ts). */
  rateLimitPerHour: number;
  /** SECRET_KEY: server secret for derived credentials (simple tokens); generated under DATA_DIR in embedded mode. */
  secretKey: string | undefined;
  /** DEMO: 1 to create the demo account with a year of data on the first embedded start. */
  demo: boolean;
  /** LOG_LEVEL: pino level (fatal, error, warn, info, debug, trace, silent). */
  logLevel: string;
  /** NODE_ENV: `production` turns insecure defaults into loud warnings. */
  nodeEnv: string;
  /** SHUTDOWN_TIMEOUT_MS: how long in-flight requests may take to finish on SIGTERM. */
  shutdownTimeoutMs: number;
  /** WORKERS: 1 to run the derived-data job workers (and schedules) inside the API process; 0 leaves them to `npm run worker`. */
  workers: boolean;
  /** WORKER_CONCURRENCY: per-person jobs one process runs at once (per queue). */
  workerConcurrency: number;
  /** METRICS_TOKEN: bearer token a Prometheus scraper sends to GET /metrics (at least 16 characters); unset = no metrics endpoint. */
  metricsToken: string | undefined;
}

/** Thrown when a setting has a value the service cannot run with. */
export class ConfigError extends Error {}

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}; got "${raw}".`);
  }
  return value;
}

function flag(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  if (/^(0|false|no|off)$/i.test(raw)) return false;
  throw new ConfigError(`${name} must be 1 or 0; got "${raw}".`);
}

function optionalUrl(env: NodeJS.ProcessEnv, name: string, protocols: string[]): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be a URL; got "${raw}".`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(`${name} must start with ${protocols.join(' or ')}; got "${raw}".`);
  }
  return raw.replace(/\/+$/, '');
}

/** Reads and validates the settings; `env` defaults to the process environment. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const logLevel = env.LOG_LEVEL || 'info';
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent; got "${logLevel}".`);
  }
  const secretKey = env.SECRET_KEY || undefined;
  if (secretKey !== undefined && secretKey.length < 32) {
    throw new ConfigError('SECRET_KEY must be at least 32 characters.');
  }
  const metricsToken = env.METRICS_TOKEN || undefined;
  if (metricsToken !== undefined && !/^\S{16,}$/.test(metricsToken)) {
    throw new ConfigError('METRICS_TOKEN must be at least 16 characters without spaces.');
  }
  const dbStatementTimeoutMs = integer(env, 'DB_STATEMENT_TIMEOUT_MS', 15_000, 0, 3_600_000);
  const dbQueryTimeoutMs = integer(env, 'DB_QUERY_TIMEOUT_MS', 20_000, 0, 3_600_000);
  if (dbQueryTimeoutMs > 0 && dbStatementTimeoutMs > 0 && dbQueryTimeoutMs <= dbStatementTimeoutMs) {
    throw new ConfigError('DB_QUERY_TIMEOUT_MS must be above DB_STATEMENT_TIMEOUT_MS, so that a database that is there cancels a slow statement itself.');
  }
  return {
    port: integer(env, 'PORT', 3000, 0, 65535),
    host: env.HOST || '0.0.0.0',
    databaseUrl: optionalUrl(env, 'DATABASE_URL', ['postgres:', 'postgresql:']),
    dataDir: path.resolve(env.DATA_DIR || path.join(PROJECT_ROOT, '.data')),
    embeddedPgPort: integer(env, 'EMBEDDED_PG_PORT', 54329, 1, 65535),
    dbPoolMax: integer(env, 'DB_POOL_MAX', 10, 1, 1000),
    dbConnectTimeoutMs: integer(env, 'DB_CONNECT_TIMEOUT_MS', 3000, 100, 600_000),
    dbAcquireTimeoutMs: integer(env, 'DB_ACQUIRE_TIMEOUT_MS', 5000, 100, 600_000),
    dbStatementTimeoutMs,
    dbQueryTimeoutMs,
    publicUrl: optionalUrl(env, 'PUBLIC_URL', ['http:', 'https:']),
    trustProxy: flag(env, 'TRUST_PROXY', false),
    rateLimitPerHour: integer(env, 'RATE_LIMIT_PER_HOUR', 300, 1, 100_000_000),
    secretKey,
    demo: flag(env, 'DEMO', true),
    logLevel,
    nodeEnv: env.NODE_ENV || 'development',
    shutdownTimeoutMs: integer(env, 'SHUTDOWN_TIMEOUT_MS', 10_000, 0, 600_000),
    workers: flag(env, 'WORKERS', true),
    workerConcurrency: integer(env, 'WORKER_CONCURRENCY', 1, 1, 32),
    metricsToken,
  };
}

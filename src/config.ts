/**
 * Every setting of the service, read once from the environment. Each has a doc line, a default and
 * its environment variable; `loadConfig` validates them and refuses to start on a bad value.
 */
import os from 'node:os';
import path from 'node:path';
import { PROJECT_ROOT } from './paths';
import { DEFAULT_WEBHOOK_SETTINGS, type WebhookSettings } from './domain/webhooks/settings';

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
  /** DATABASE_REPLICA_URLS: streaming replicas (comma-separated) for the heavy person-data reads (src/db/replicas.ts); none by default. */
  databaseReplicaUrls: string[];
  /** DATABASE_REPLICA_MAX_LAG_MS: a replica further behind the primary than this is skipped until it catches up. */
  databaseReplicaMaxLagMs: number;
  /** DB_CONNECT_TIMEOUT_MS: how long opening a database connection may take before the request is answered 503. */
  dbConnectTimeoutMs: number;
  /** DB_ACQUIRE_TIMEOUT_MS: how long a request may wait for a free pooled connection before it is answered 503. */
  dbAcquireTimeoutMs: number;
  /** DB_STATEMENT_TIMEOUT_MS: the server cancels a statement running longer (0 = no limit). */
  dbStatementTimeoutMs: number;
  /** DB_QUERY_TIMEOUT_MS: a query the server has not answered at all after this long drops its connection (0 = never); above DB_STATEMENT_TIMEOUT_MS. */
  dbQueryTimeoutMs: number;
  /** PUBLIC_URL: external base URL (https://…), the only source of absolute links when set; required with NODE_ENV=production. */
  publicUrl: string | undefined;
  /** ALLOWED_HOSTS: without PUBLIC_URL, host names (comma-separated) answered besides loopback addresses and localhost; others get 400. */
  allowedHosts: string[];
  /**
   * TRUST_PROXY: how many proxies in front of the service append to X-Forwarded-For (0 = none: headers
   * ignored). With N, protocol and host come from X-Forwarded-*, and the client address is the N-th
   * X-Forwarded-For entry from the right (the one the outermost trusted proxy added).
   */
  trustProxyHops: number;
  /** HTTP_HEADERS_TIMEOUT_MS: a client must send a request's headers within this long (else 408). */
  httpHeadersTimeoutMs: number;
  /** HTTP_REQUEST_TIMEOUT_MS: a client must send a whole request (headers and body) within this long (else 408). */
  httpRequestTimeoutMs: number;
  /** HTTP_KEEP_ALIVE_TIMEOUT_MS: an idle kept-alive connection is closed after this long (above the load balancer's idle timeout). */
  httpKeepAliveTimeoutMs: number;
  /** HTTP_MAX_CONNECTIONS: open connections one instance accepts; more are refused. */
  httpMaxConnections: number;
  /** SIGN_UPS_PER_HOUR: sign-up attempts one client address may make per hour (each costs a password hash). */
  signUpsPerHour: number;
  /**
   * The token and revocation endpoints' own budgets (domain/apps-and-grants/token-budgets.ts):
   * OAUTH_CLIENT_REQUESTS_PER_HOUR per client, OAUTH_REFRESHES_PER_GRANT_PER_HOUR per grant,
   * OAUTH_CLIENT_AUTH_FAILURES_PER_15_MIN failed client authentications per client address.
   */
  oauthClientRequestsPerHour: number;
  oauthRefreshesPerGrantPerHour: number;
  oauthClientAuthFailuresPer15Min: number;
  /** COMPRESS_MIN_BYTES: answers at least this long are sent compressed to clients that accept it (http/compression.ts). */
  compressMinBytes: number;
  /** RATE_LIMIT_PER_HOUR: requests per hour per person's connection (300 in the API documents, "Rate limits"; domain/apps-and-grants/quota.ts). */
  rateLimitPerHour: number;
  /**
   * SESSION_IDLE_MINUTES: a web session unused this long is refused (the person logs in again);
   * each use extends it, within the sessions' absolute lifetime of 14 days (domain/identity/sessions.ts).
   */
  sessionIdleMinutes: number;
  /** SECRET_KEY: server secret for derived credentials (simple tokens); generated under DATA_DIR in embedded mode. */
  secretKey: string | undefined;
  /** DEMO: 1 to create the demo account with a year of data on the first embedded start. */
  demo: boolean;
  /** LOG_LEVEL: pino level (fatal, error, warn, info, debug, trace, silent). */
  logLevel: string;
  /** NODE_ENV: `production` requires PUBLIC_URL and turns insecure defaults into loud warnings. */
  nodeEnv: string;
  /** SHUTDOWN_TIMEOUT_MS: how long in-flight requests may take to finish on SIGTERM. */
  shutdownTimeoutMs: number;
  /** WORKERS: 1 to run the derived-data job workers (and schedules) inside the API process; 0 leaves them to `npm run worker`. */
  workers: boolean;
  /** WORKER_CONCURRENCY: per-person jobs one process runs at once (per queue). */
  workerConcurrency: number;
  /** WEB_CONCURRENCY: HTTP processes on the one port (Node's cluster, src/cluster.ts); `auto` = the machine's cores. */
  webConcurrency: number;
  /** METRICS_TOKEN: bearer token a Prometheus scraper sends to GET /metrics (at least 16 characters); unset = no metrics endpoint. */
  metricsToken: string | undefined;
  /** Webhook delivery (WEBHOOK_* settings, documented in src/jobs/webhook-delivery.ts); loopback endpoints only outside production. */
  webhooks: WebhookSettings;
  /** IMPORT_MAX_BYTES: the largest file /settings/import takes (a larger upload is answered 413 and nothing of it is kept). */
  importMaxBytes: number;
  /**
   * IMPORT_UPLOAD_IDLE_MS and IMPORT_UPLOAD_TIMEOUT_MS: an upload to /settings/import is not bound by
   * HTTP_REQUEST_TIMEOUT_MS; instead it may not pause longer than the first, nor take longer in all
   * than the second (else 408, nothing kept; http/body-deadline.ts).
   */
  importUploadIdleMs: number;
  importUploadTimeoutMs: number;
  /**
   * IMPORT_DIR: where uploaded import files wait for their import job (web/pages/import-upload.ts);
   * the web and worker processes must share it. Default: DATA_DIR/imports when DATA_DIR is set or
   * the database is embedded, else the OS temp dir's daybook-imports.
   */
  importDir: string;
}

/** IMPORT_MAX_BYTES's default: 2 GiB (a five-year Apple Health export.zip is a few hundred MB). */
export const DEFAULT_IMPORT_MAX_BYTES = 2 * 1024 ** 3;

/** IMPORT_UPLOAD_TIMEOUT_MS's default: 4 hours (2 GiB at 1.2 Mbit/s; at 10 Mbit/s it takes half an hour). */
export const DEFAULT_IMPORT_UPLOAD_TIMEOUT_MS = 4 * 60 * 60 * 1000;

/** Thrown when a setting has a value the service cannot run with. */
export class ConfigError extends Error {}

/** The shortest SECRET_KEY accepted (README.md's settings table states the same number). */
export const SECRET_KEY_MIN_LENGTH = 32;

/** Host names as a browser or client sends them: letters, digits, dots and hyphens (an IPv6 literal in brackets). */
const HOST_NAME = /^(\[[0-9a-f:.]+\]|[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*)$/;

function hostList(env: NodeJS.ProcessEnv, name: string): string[] {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return [];
  const hosts = raw
    .split(',')
    .map((host) => host.trim().toLowerCase())
    .filter((host) => host !== '');
  const bad = hosts.find((host) => !HOST_NAME.test(host));
  if (bad !== undefined) throw new ConfigError(`${name} must be host names separated by commas (no scheme, port or path); got "${bad}".`);
  return hosts;
}

/** URLs separated by commas, each checked like `optionalUrl`'s; none when unset. */
function urlList(env: NodeJS.ProcessEnv, name: string, protocols: string[]): string[] {
  const parts = (env[name] ?? '')
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
  return parts.map((part) => optionalUrl({ [name]: part }, name, protocols)!);
}

/** TRUST_PROXY: a hop count; the flag words of earlier versions still mean 0 and 1. */
function proxyHops(env: NodeJS.ProcessEnv): number {
  const raw = env.TRUST_PROXY;
  if (raw !== undefined && /^(true|yes|on)$/i.test(raw)) return 1;
  if (raw !== undefined && /^(false|no|off)$/i.test(raw)) return 0;
  return integer(env, 'TRUST_PROXY', 0, 0, 10);
}

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

/** WEB_CONCURRENCY: a count of HTTP processes, or `auto` for one per core (os.availableParallelism). */
function webConcurrency(env: NodeJS.ProcessEnv): number {
  if (env.WEB_CONCURRENCY?.trim().toLowerCase() === 'auto') return os.availableParallelism();
  return integer(env, 'WEB_CONCURRENCY', 1, 1, 256);
}

/** Reads and validates the settings; `env` defaults to the process environment. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const logLevel = env.LOG_LEVEL || 'info';
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent; got "${logLevel}".`);
  }
  const secretKey = env.SECRET_KEY || undefined;
  if (secretKey !== undefined && secretKey.length < SECRET_KEY_MIN_LENGTH) {
    throw new ConfigError(`SECRET_KEY must be at least ${SECRET_KEY_MIN_LENGTH} characters.`);
  }
  const httpHeadersTimeoutMs = integer(env, 'HTTP_HEADERS_TIMEOUT_MS', 20_000, 1000, 600_000);
  const httpRequestTimeoutMs = integer(env, 'HTTP_REQUEST_TIMEOUT_MS', 60_000, 1000, 3_600_000);
  if (httpRequestTimeoutMs < httpHeadersTimeoutMs) {
    throw new ConfigError('HTTP_REQUEST_TIMEOUT_MS must be at least HTTP_HEADERS_TIMEOUT_MS: the headers are part of the request.');
  }
  const metricsToken = env.METRICS_TOKEN || undefined;
  if (metricsToken !== undefined && !/^\S{16,}$/.test(metricsToken)) {
    throw new ConfigError('METRICS_TOKEN must be at least 16 characters without spaces.');
  }
  const webhookTimeoutMs = integer(env, 'WEBHOOK_TIMEOUT_MS', DEFAULT_WEBHOOK_SETTINGS.timeoutMs, 100, 60_000);
  if (integer(env, 'WEBHOOK_EXPIRE_SECONDS', DEFAULT_WEBHOOK_SETTINGS.expireSeconds, 2, 3600) * 1000 <= webhookTimeoutMs) {
    throw new ConfigError('WEBHOOK_EXPIRE_SECONDS must be above WEBHOOK_TIMEOUT_MS: a delivery still running is not retried while it may yet succeed.');
  }
  const dbStatementTimeoutMs = integer(env, 'DB_STATEMENT_TIMEOUT_MS', 15_000, 0, 3_600_000);
  const dbQueryTimeoutMs = integer(env, 'DB_QUERY_TIMEOUT_MS', 20_000, 0, 3_600_000);
  if (dbQueryTimeoutMs > 0 && dbStatementTimeoutMs > 0 && dbQueryTimeoutMs <= dbStatementTimeoutMs) {
    throw new ConfigError('DB_QUERY_TIMEOUT_MS must be above DB_STATEMENT_TIMEOUT_MS, so that a database that is there cancels a slow statement itself.');
  }
  const importUploadIdleMs = integer(env, 'IMPORT_UPLOAD_IDLE_MS', 60_000, 100, 3_600_000);
  const importUploadTimeoutMs = integer(env, 'IMPORT_UPLOAD_TIMEOUT_MS', DEFAULT_IMPORT_UPLOAD_TIMEOUT_MS, 1000, 7 * 24 * 3_600_000);
  if (importUploadTimeoutMs < httpRequestTimeoutMs) {
    throw new ConfigError('IMPORT_UPLOAD_TIMEOUT_MS must be at least HTTP_REQUEST_TIMEOUT_MS: an upload may take as long as any other request.');
  }
  if (importUploadIdleMs >= importUploadTimeoutMs) {
    throw new ConfigError('IMPORT_UPLOAD_IDLE_MS must be below IMPORT_UPLOAD_TIMEOUT_MS: a pause is part of the whole upload.');
  }
  const dataDir = path.resolve(env.DATA_DIR || path.join(PROJECT_ROOT, '.data'));
  const databaseUrl = optionalUrl(env, 'DATABASE_URL', ['postgres:', 'postgresql:']);
  return {
    port: integer(env, 'PORT', 3000, 0, 65535),
    host: env.HOST || '0.0.0.0',
    databaseUrl,
    dataDir,
    embeddedPgPort: integer(env, 'EMBEDDED_PG_PORT', 54329, 1, 65535),
    dbPoolMax: integer(env, 'DB_POOL_MAX', 10, 1, 1000),
    databaseReplicaUrls: urlList(env, 'DATABASE_REPLICA_URLS', ['postgres:', 'postgresql:']),
    databaseReplicaMaxLagMs: integer(env, 'DATABASE_REPLICA_MAX_LAG_MS', 2000, 100, 3_600_000),
    dbConnectTimeoutMs: integer(env, 'DB_CONNECT_TIMEOUT_MS', 3000, 100, 600_000),
    dbAcquireTimeoutMs: integer(env, 'DB_ACQUIRE_TIMEOUT_MS', 5000, 100, 600_000),
    dbStatementTimeoutMs,
    dbQueryTimeoutMs,
    publicUrl: optionalUrl(env, 'PUBLIC_URL', ['http:', 'https:']),
    allowedHosts: hostList(env, 'ALLOWED_HOSTS'),
    trustProxyHops: proxyHops(env),
    httpHeadersTimeoutMs,
    httpRequestTimeoutMs,
    httpKeepAliveTimeoutMs: integer(env, 'HTTP_KEEP_ALIVE_TIMEOUT_MS', 65_000, 1000, 600_000),
    httpMaxConnections: integer(env, 'HTTP_MAX_CONNECTIONS', 1000, 1, 1_000_000),
    signUpsPerHour: integer(env, 'SIGN_UPS_PER_HOUR', 10, 1, 1_000_000),
    rateLimitPerHour: integer(env, 'RATE_LIMIT_PER_HOUR', 300, 1, 100_000_000),
    compressMinBytes: integer(env, 'COMPRESS_MIN_BYTES', 1024, 0, 1_000_000_000),
    sessionIdleMinutes: integer(env, 'SESSION_IDLE_MINUTES', 7 * 24 * 60, 5, 14 * 24 * 60),
    oauthClientRequestsPerHour: integer(env, 'OAUTH_CLIENT_REQUESTS_PER_HOUR', 20_000, 1, 100_000_000),
    oauthRefreshesPerGrantPerHour: integer(env, 'OAUTH_REFRESHES_PER_GRANT_PER_HOUR', 60, 1, 1_000_000),
    oauthClientAuthFailuresPer15Min: integer(env, 'OAUTH_CLIENT_AUTH_FAILURES_PER_15_MIN', 20, 1, 1_000_000),
    secretKey,
    demo: flag(env, 'DEMO', true),
    logLevel,
    nodeEnv: env.NODE_ENV || 'development',
    shutdownTimeoutMs: integer(env, 'SHUTDOWN_TIMEOUT_MS', 10_000, 0, 600_000),
    workers: flag(env, 'WORKERS', true),
    workerConcurrency: integer(env, 'WORKER_CONCURRENCY', 1, 1, 32),
    webConcurrency: webConcurrency(env),
    metricsToken,
    webhooks: {
      ...DEFAULT_WEBHOOK_SETTINGS,
      coalesceMs: integer(env, 'WEBHOOK_COALESCE_MS', DEFAULT_WEBHOOK_SETTINGS.coalesceMs, 0, 600_000),
      pollMs: integer(env, 'WEBHOOK_POLL_MS', DEFAULT_WEBHOOK_SETTINGS.pollMs, 50, 600_000),
      retryDelaySeconds: integer(env, 'WEBHOOK_RETRY_DELAY_SECONDS', DEFAULT_WEBHOOK_SETTINGS.retryDelaySeconds, 1, 3600),
      timeoutMs: webhookTimeoutMs,
      expireSeconds: integer(env, 'WEBHOOK_EXPIRE_SECONDS', DEFAULT_WEBHOOK_SETTINGS.expireSeconds, 2, 3600),
      allowPrivate: flag(env, 'WEBHOOK_ALLOW_PRIVATE_URLS', false),
    },
    importMaxBytes: integer(env, 'IMPORT_MAX_BYTES', DEFAULT_IMPORT_MAX_BYTES, 1024, Number.MAX_SAFE_INTEGER),
    importUploadIdleMs,
    importUploadTimeoutMs,
    importDir: path.resolve(
      env.IMPORT_DIR || (env.DATA_DIR || databaseUrl === undefined ? path.join(dataDir, 'imports') : path.join(os.tmpdir(), 'daybook-imports')),
    ),
  };
}

/**
 * The settings the HTTP server needs on top of `loadConfig`'s (the workers and tools build no
 * URLs): in production, PUBLIC_URL, since without it absolute links would come from the request's
 * Host header, which the client writes.
 */
export function assertServable(config: Config): void {
  if (config.nodeEnv === 'production' && config.publicUrl === undefined) {
    throw new ConfigError('PUBLIC_URL must be set when NODE_ENV=production (e.g. PUBLIC_URL=https://daybook.example.org).');
  }
}

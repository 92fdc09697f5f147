/**
 * The operator CLI: `npm run -s admin -- <command> [--flags]`. Uses DATABASE_URL like the service
 * (or the embedded PostgreSQL under DATA_DIR, reusing it when the service is running). Prints one
 * JSON object on stdout; logs go to stderr; bad arguments exit 2 with a message.
 *
 *   create-user   --username U --password P [--timezone Z]       -> {id, username, simple_token}
 *   create-client --owner U --name N --redirect-uri URI [--redirect-uri URI2] [--public]
 *                                                                -> {client_id, client_secret}
 *   issue-token   --username U --client ID --scope "s1 s2"        -> the Token response
 *   demo          --username U [--days N] [--seed S] [--attributes N] -> {attributes, values}
 *   set-password  --username U [--disconnect-apps]   (the password from standard input; none there: one is generated)
 *                                -> {username, sessions_ended, simple_token_replaced, apps_disconnected[, password]}
 *   add-webhook   --client ID --url URL --events e1,e2          -> {id, secret}   (docs/webhooks.md)
 *   list-webhooks --client ID                                    -> {endpoints: [{id, url, events, enabled, …, last_deliveries}]}
 *   test-webhook  --client ID --endpoint EP                      -> the queued webhook.test delivery {id, event, status, …}
 *   import        --username U --file F [--dry-run] [--replace] [--batch-size N]
 *                                -> the import's report (docs/imports.md); a progress bar on stderr; exit 3 when a fault stopped it
 *   housekeeping                                                  -> {sessions, rateLimits, throttleEvents, tokens, codes} deleted
 *                 (the job queue runs it hourly; see domain/housekeeping.ts)
 */
import { existsSync } from 'node:fs';
import { loadConfig } from '../config';
import { createLogger } from '../logger';
import { openDatabase, type OpenDatabase } from '../database';
import { resolveSecretKey } from '../secret-key';
import { createUser, findUserByUsername } from '../domain/identity/users';
import { changePassword } from '../domain/identity/password-change';
import { newSecret } from '../domain/identity/credentials';
import { createClient, findClientByClientId } from '../domain/apps-and-grants/clients';
import { issueTokens } from '../domain/apps-and-grants/tokens';
import { ALL_SCOPE_NAMES } from '../domain/apps-and-grants/scopes';
import { localDate } from '../domain/time';
import { loadDemoData } from '../demo/demo-data';
import { asHttpError } from '../http/errors';
import { sweepExpired } from '../domain/housekeeping';
import { StartRefused } from '../db/folder-lock';
import { createEndpoint, endpointView, findEndpoint, listEndpoints } from '../domain/webhooks/endpoints';
import { deliveryView, latestDeliveries } from '../domain/webhooks/deliveries';
import { queueTestEvent } from '../domain/webhooks/test-event';
import { importCommand } from './admin-import';

class UsageError extends Error {}

type Flags = Record<string, string[]>;

function parseFlags(args: string[]): Flags {
  const flags: Flags = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (!arg.startsWith('--')) throw new UsageError(`Unexpected argument "${arg}".`);
    const name = arg.slice(2);
    const next = args[i + 1];
    const value = next === undefined || next.startsWith('--') ? 'true' : args[++i];
    (flags[name] ??= []).push(value);
  }
  return flags;
}

function one(flags: Flags, name: string, required: true): string;
function one(flags: Flags, name: string, required?: false): string | undefined;
function one(flags: Flags, name: string, required = false): string | undefined {
  const values = flags[name];
  if (!values) {
    if (required) throw new UsageError(`--${name} is required.`);
    return undefined;
  }
  if (values.length > 1) throw new UsageError(`--${name} is given more than once.`);
  return values[0];
}

function positiveInt(flags: Flags, name: string, fallback: number): number {
  const raw = one(flags, name);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new UsageError(`--${name} must be a positive integer.`);
  return value;
}

function onlyFlags(flags: Flags, allowed: string[]): void {
  const unknown = Object.keys(flags).filter((name) => !allowed.includes(name));
  const takes = allowed.length > 0 ? allowed.map((a) => `--${a}`).join(', ') : 'no options';
  if (unknown.length > 0) throw new UsageError(`Unknown option --${unknown[0]}; this command takes ${takes}.`);
}

async function clientNamed(database: OpenDatabase, clientId: string) {
  const client = await findClientByClientId(database.db, clientId);
  if (!client) throw new UsageError(`No client with id ${clientId}.`);
  return client;
}

async function userNamed(database: OpenDatabase, username: string) {
  const user = await findUserByUsername(database.db, username);
  if (!user) throw new UsageError(`No user named ${username}.`);
  return user;
}

/**
 * The password piped to standard input (its first line, without the line ending), so it never
 * appears in the process list or the shell history; undefined when stdin is a terminal or empty.
 */
async function passwordFromStdin(): Promise<string | undefined> {
  if (process.stdin.isTTY) return undefined;
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const line = Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0];
  return line === '' ? undefined : line;
}

const COMMANDS: Record<string, (database: OpenDatabase, flags: Flags, secretKey: string) => Promise<unknown>> = {
  async 'create-user'(database, flags, secretKey) {
    onlyFlags(flags, ['username', 'password', 'timezone']);
    const { user, simpleToken } = await createUser(
      database.db,
      { username: one(flags, 'username', true), password: one(flags, 'password', true), timezone: one(flags, 'timezone') },
      secretKey,
    );
    return { id: user.id, username: user.username, simple_token: simpleToken };
  },
  async 'create-client'(database, flags) {
    onlyFlags(flags, ['owner', 'name', 'redirect-uri', 'public']);
    const owner = await userNamed(database, one(flags, 'owner', true));
    const redirectUris = flags['redirect-uri'];
    if (!redirectUris) throw new UsageError('--redirect-uri is required.');
    const { client, clientSecret } = await createClient(database.db, {
      ownerUserId: owner.id,
      name: one(flags, 'name', true),
      redirectUris,
      confidential: one(flags, 'public') === undefined,
    });
    return clientSecret ? { client_id: client.client_id, client_secret: clientSecret } : { client_id: client.client_id };
  },
  async 'issue-token'(database, flags) {
    onlyFlags(flags, ['username', 'client', 'scope']);
    const user = await userNamed(database, one(flags, 'username', true));
    const client = await findClientByClientId(database.db, one(flags, 'client', true));
    if (!client) throw new UsageError(`No client with id ${one(flags, 'client', true)}.`);
    const scopes = one(flags, 'scope', true)
      .split(/[\s+]+/)
      .filter(Boolean);
    const unknown = scopes.filter((scope) => !ALL_SCOPE_NAMES.includes(scope));
    if (scopes.length === 0 || unknown.length > 0) throw new UsageError(`Unknown scopes: ${unknown.join(', ') || '(none given)'}.`);
    return issueTokens(database.db, { userId: user.id, clientPk: client.id, scopes, now: new Date() });
  },
  async demo(database, flags) {
    onlyFlags(flags, ['username', 'days', 'seed', 'attributes']);
    const user = await userNamed(database, one(flags, 'username', true));
    const attributes = one(flags, 'attributes') === undefined ? undefined : positiveInt(flags, 'attributes', 25);
    return loadDemoData(database.db, user.id, {
      seed: positiveInt(flags, 'seed', 1),
      days: positiveInt(flags, 'days', 365),
      endDate: localDate(new Date(), user.timezone),
      ...(attributes === undefined ? {} : { attributes }),
    });
  },
  async 'set-password'(database, flags, secretKey) {
    onlyFlags(flags, ['username', 'disconnect-apps']);
    const user = await userNamed(database, one(flags, 'username', true));
    const given = await passwordFromStdin();
    const password = given ?? newSecret(12);
    // As on the account page, but every session ends (none is the operator's) and apps stay
    // connected unless asked: a forgotten password is no reason to break the person's apps, a
    // stolen account is (docs/security.md, "A password change ends credentials").
    const change = await changePassword(database.db, {
      userId: user.id,
      password,
      disconnectApps: one(flags, 'disconnect-apps') !== undefined,
      secretKey,
      now: new Date(),
    });
    const ended = { sessions_ended: change.sessionsEnded, simple_token_replaced: true, apps_disconnected: change.appsDisconnected };
    // A generated password is printed this once (the operator passes it on); a given one never is.
    return given === undefined ? { username: user.username, ...ended, password } : { username: user.username, ...ended };
  },
  async 'add-webhook'(database, flags) {
    onlyFlags(flags, ['client', 'url', 'events']);
    const client = await clientNamed(database, one(flags, 'client', true));
    const events = one(flags, 'events', true)
      .split(',')
      .map((e) => e.trim())
      .filter(Boolean);
    const endpoint = await createEndpoint(database.db, client.id, { url: one(flags, 'url', true), events }, loadConfig().webhooks.allowPrivate);
    return { id: endpoint.public_id, secret: endpoint.secret };
  },
  async 'list-webhooks'(database, flags) {
    onlyFlags(flags, ['client']);
    const client = await clientNamed(database, one(flags, 'client', true));
    const endpoints = [];
    for (const endpoint of await listEndpoints(database.db, client.id)) {
      endpoints.push({ ...endpointView(endpoint), last_deliveries: (await latestDeliveries(database.db, endpoint.id, 5)).map(deliveryView) });
    }
    return { endpoints };
  },
  async 'test-webhook'(database, flags) {
    onlyFlags(flags, ['client', 'endpoint']);
    const client = await clientNamed(database, one(flags, 'client', true));
    const endpoint = await findEndpoint(database.db, client.id, one(flags, 'endpoint', true));
    if (!endpoint) throw new UsageError(`The client has no webhook endpoint ${one(flags, 'endpoint', true)}.`);
    // Sent by the workers (the service with WORKERS=1, or npm run worker), like every delivery.
    return deliveryView(await queueTestEvent(database.db, endpoint, client.client_id, new Date()));
  },
  async import(database, flags) {
    onlyFlags(flags, ['username', 'file', 'dry-run', 'replace', 'batch-size']);
    const user = await userNamed(database, one(flags, 'username', true));
    const file = one(flags, 'file', true);
    if (!existsSync(file)) throw new UsageError(`There is no file ${file}.`);
    const batchSize = one(flags, 'batch-size') === undefined ? undefined : positiveInt(flags, 'batch-size', 1000);
    const config = loadConfig();
    return importCommand(database, config, createLogger('warn', 2), {
      userId: user.id,
      file,
      dryRun: one(flags, 'dry-run') !== undefined,
      replace: one(flags, 'replace') !== undefined,
      batchSize,
    });
  },
  async housekeeping(database, flags) {
    onlyFlags(flags, []);
    return sweepExpired(database.db, new Date());
  },
};

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  const run = command ? COMMANDS[command] : undefined;
  if (!run) {
    process.stderr.write(`Usage: npm run -s admin -- <${Object.keys(COMMANDS).join('|')}> [--flags]\n`);
    return 2;
  }
  let flags: Flags;
  try {
    flags = parseFlags(rest);
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    return 2;
  }
  const config = loadConfig();
  const logger = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel, 2);
  const database = await openDatabase(config, { reuseRunning: true });
  try {
    const result = await run(database, flags, resolveSecretKey(config, logger));
    process.stdout.write(JSON.stringify(result) + '\n');
    // An import a fault stopped (docs/imports.md): the report says where; the exit code tells scripts.
    return typeof result === 'object' && result !== null && 'fault' in result && result.fault ? 3 : 0;
  } catch (error) {
    const refused = error instanceof UsageError ? error : asHttpError(error);
    if (refused) {
      process.stderr.write(`${refused.message}\n`);
      return 2;
    }
    throw error;
  } finally {
    await database.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    const detail = error instanceof StartRefused ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error);
    process.stderr.write(`admin failed: ${detail}\n`);
    process.exit(1);
  },
);

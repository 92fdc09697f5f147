#!/usr/bin/env node
/**
 * The broker side of the contract workflow through the Pact CLI (`@pact-foundation/pact-cli`, its
 * `pact-broker` command; contracts/README.md, "A Pact Broker"):
 *
 *   node contracts/broker.mjs publish             npm run contracts:publish
 *   node contracts/broker.mjs can-i-deploy        npm run contracts:can-i-deploy
 *   node contracts/broker.mjs record-deployment   npm run contracts:record-deployment
 *
 * Settings, all from the environment:
 *   PACT_BROKER_BASE_URL   the broker (Pact Broker or PactFlow); without it the command is printed, not run
 *   PACT_BROKER_TOKEN      a bearer token, or PACT_BROKER_USERNAME and PACT_BROKER_PASSWORD
 *                          (read by the CLI itself, so they never appear in a printed command)
 *   PACT_VERSION           the version published or checked (default: GIT_COMMIT, else `git rev-parse HEAD`)
 *   PACT_BRANCH            its branch (default: GIT_BRANCH, else the checked-out git branch)
 *   PACT_ENVIRONMENT       where it is deployed (default: production)
 *   PACT_PACTICIPANTS      comma-separated pacticipants for can-i-deploy and record-deployment
 *                          (default: the consumers of contracts/pacts/ and Daybook, all released from this repository)
 *
 * Further arguments go to every CLI call, e.g.
 * `npm run contracts:can-i-deploy -- --retry-while-unknown 30 --retry-interval 10`.
 */
import { spawnSync, execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
const pactsDir = join(here, 'pacts');
const env = process.env;

/** A git answer, or undefined outside a repository. */
function git(...args) {
  try {
    return execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim() || undefined;
  } catch {
    return undefined;
  }
}

const version = () => env.PACT_VERSION || env.GIT_COMMIT || git('rev-parse', 'HEAD');
const branch = () => {
  const name = env.PACT_BRANCH || env.GIT_BRANCH || git('rev-parse', '--abbrev-ref', 'HEAD');
  return name === 'HEAD' ? undefined : name; // a detached checkout has no branch
};

/** Who is released from this repository: the consumers whose pacts are here, and the provider. */
function pacticipants() {
  if (env.PACT_PACTICIPANTS)
    return env.PACT_PACTICIPANTS.split(',')
      .map((name) => name.trim())
      .filter(Boolean);
  const pacts = readdirSync(pactsDir)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((file) => JSON.parse(readFileSync(join(pactsDir, file), 'utf8')));
  // Consumers first, then the provider: a consumer is checked against the provider deployed now.
  return [...new Set([...pacts.map((pact) => pact.consumer.name), ...pacts.map((pact) => pact.provider.name)])];
}

/** The `pact-broker` argument lists the command runs, one list per CLI call. */
function commands(command, extra) {
  const v = version();
  if (!v) throw new Error('No version: set PACT_VERSION (or GIT_COMMIT), or run inside the git repository.');
  const b = branch();
  const environment = env.PACT_ENVIRONMENT || 'production';
  switch (command) {
    case 'publish':
      return [['publish', relative(process.cwd(), pactsDir) || '.', '--consumer-app-version', v, ...(b ? ['--branch', b] : []), ...extra]];
    case 'can-i-deploy':
      return pacticipants().map((name) => ['can-i-deploy', '--pacticipant', name, '--version', v, '--to-environment', environment, ...extra]);
    case 'record-deployment':
      return pacticipants().map((name) => ['record-deployment', '--pacticipant', name, '--version', v, '--environment', environment, ...extra]);
    default:
      throw new Error(`Unknown command "${command}": publish, can-i-deploy or record-deployment.`);
  }
}

/** An argument as a shell would need it written. */
const quoted = (arg) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`);

const command = process.argv[2];
let lists;
try {
  lists = commands(command, process.argv.slice(3));
} catch (error) {
  process.stderr.write(`${error.message}\n`);
  process.exit(2);
}

if (!env.PACT_BROKER_BASE_URL) {
  process.stdout.write('PACT_BROKER_BASE_URL is not set; with a broker this would run:\n');
  for (const args of lists) process.stdout.write(`npx pact-broker ${args.map(quoted).join(' ')}\n`);
  process.exit(0);
}

const cli = join(root, 'node_modules', '.bin', process.platform === 'win32' ? 'pact-broker.cmd' : 'pact-broker');
for (const args of lists) {
  process.stdout.write(`pact-broker ${args.map(quoted).join(' ')}\n`);
  const result = spawnSync(cli, args, { stdio: 'inherit', env });
  if (result.error) throw result.error;
  if (result.status !== 0) process.exit(result.status ?? 1);
}

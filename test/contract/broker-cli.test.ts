/**
 * The broker commands of contracts/broker.mjs (`npm run contracts:publish`,
 * `contracts:can-i-deploy`, `contracts:record-deployment`): without a broker they print the Pact
 * CLI command they would run and succeed; with one, `publish` really sends every committed pact
 * through the Pact CLI (checked against a stand-in for the broker's publish endpoint).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { PACTS_DIR } from '../../contracts/support/pact';
import { PROJECT_ROOT } from '../../src/paths';

const run = promisify(execFile);

/** The environment without any broker or version setting of the machine running the tests. */
function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(PACT_|GIT_COMMIT|GIT_BRANCH)/.test(name)));
  return { ...env, PACT_DO_NOT_TRACK: 'true', ...extra };
}

async function broker(command: string, extra: Record<string, string>, args: string[] = []) {
  return run(process.execPath, ['contracts/broker.mjs', command, ...args], { cwd: PROJECT_ROOT, env: cleanEnv(extra), timeout: 60_000 });
}

const pacts = fs
  .readdirSync(PACTS_DIR)
  .filter((file) => file.endsWith('.json'))
  .sort()
  .map((file) => JSON.parse(fs.readFileSync(path.join(PACTS_DIR, file), 'utf8')) as { consumer: { name: string }; provider: { name: string } });
const consumers = pacts.map((pact) => pact.consumer.name);

describe('without a broker', () => {
  test('publish prints the Pact CLI command with the pacts folder, the version and the branch', async () => {
    const { stdout } = await broker('publish', { PACT_VERSION: '1.4.2-test', PACT_BRANCH: 'feature/webhooks' });
    expect(stdout.trim().split('\n')).toEqual([
      'PACT_BROKER_BASE_URL is not set; with a broker this would run:',
      'npx pact-broker publish contracts/pacts --consumer-app-version 1.4.2-test --branch feature/webhooks',
    ]);
  });

  test('the version and branch come from git when the environment names none', async () => {
    const { stdout: head } = await run('git', ['rev-parse', 'HEAD'], { cwd: PROJECT_ROOT });
    const { stdout } = await broker('publish', {});
    expect(stdout).toContain(`--consumer-app-version ${head.trim()}`);
  });

  test('can-i-deploy and record-deployment print one command per pacticipant released from here', async () => {
    const check = await broker('can-i-deploy', { GIT_COMMIT: 'abc123' });
    const lines = check.stdout.trim().split('\n').slice(1);
    expect(lines).toEqual(
      [...new Set([...consumers, 'Daybook'])].map((name) => `npx pact-broker can-i-deploy --pacticipant ${name} --version abc123 --to-environment production`),
    );

    const record = await broker('record-deployment', { GIT_COMMIT: 'abc123', PACT_ENVIRONMENT: 'staging', PACT_PACTICIPANTS: 'Daybook' });
    expect(record.stdout.trim().split('\n').slice(1)).toEqual([
      'npx pact-broker record-deployment --pacticipant Daybook --version abc123 --environment staging',
    ]);
  });

  test('an unknown command is refused', async () => {
    await expect(broker('deploy', { PACT_VERSION: '1' })).rejects.toMatchObject({ code: 2, stderr: expect.stringMatching(/Unknown command "deploy"/) });
  });
});

describe('with a broker', () => {
  interface Published {
    authorization?: string;
    body: {
      pacticipantName: string;
      pacticipantVersionNumber: string;
      branch?: string;
      contracts: Array<{ consumerName: string; providerName: string; content: string }>;
    };
  }
  const published: Published[] = [];
  let server: http.Server;
  let base: string;

  beforeAll(async () => {
    // The broker's index (which links its publish endpoint) and the endpoint itself.
    server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        res.setHeader('Content-Type', 'application/hal+json');
        if (req.method === 'GET' && req.url === '/') {
          res.end(JSON.stringify({ _links: { 'pb:publish-contracts': { href: `${base}/contracts/publish` } } }));
        } else if (req.method === 'POST' && req.url === '/contracts/publish') {
          published.push({ authorization: req.headers.authorization, body: JSON.parse(body) as Published['body'] });
          res.end(JSON.stringify({ notices: [{ type: 'success', text: 'Published' }], _embedded: {}, _links: {} }));
        } else {
          res.statusCode = 404;
          res.end('{}');
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  test('publish sends every committed pact, with the token, the version and the branch', async () => {
    await broker('publish', {
      PACT_BROKER_BASE_URL: base,
      PACT_BROKER_TOKEN: 'ci-token',
      PACT_VERSION: '1.4.2-test',
      PACT_BRANCH: 'main',
      PACT_BROKER_HTTP_RETRIES: '0',
    });
    expect(published.every((p) => p.authorization === 'Bearer ci-token')).toBe(true);
    expect(published.every((p) => p.body.pacticipantVersionNumber === '1.4.2-test' && p.body.branch === 'main')).toBe(true);
    const sent = published.flatMap((p) =>
      p.body.contracts.map((c) => JSON.parse(Buffer.from(c.content, 'base64').toString('utf8')) as { consumer: { name: string } }),
    );
    expect(sent.map((pact) => pact.consumer.name).sort()).toEqual([...consumers].sort());
  }, 90_000);
});

/**
 * The process as an operator runs it: embedded PostgreSQL by default with a persistent data folder,
 * the demo account on the first start, a clean stop on SIGTERM that finishes requests in flight,
 * and recovery after SIGKILL.
 */
import { freePort } from '../support/clusters';
import { serviceDataDir, startService, stopServices, type RunningService } from '../support/process';
import { slowRequest } from '../support/slow-request';

let dataDir: string;
let pgPort: number;
const running: RunningService[] = [];

beforeAll(async () => {
  dataDir = serviceDataDir('daybook-lifecycle-');
  pgPort = await freePort();
});

// A SIGKILLed service leaves its postmaster behind until the next start stops it: stopped here.
afterAll(() => stopServices(running, 'SIGTERM', [dataDir]));

function embeddedEnv(): Record<string, string> {
  return { DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(pgPort), DEMO: '1' };
}

async function start(): Promise<RunningService> {
  const service = await startService(embeddedEnv());
  running.push(service);
  return service;
}

/** Waits (up to a deadline) for the plain start-up block on stderr: it travels apart from the JSON log on stdout. */
async function welcomeBlock(service: RunningService): Promise<string> {
  for (const until = Date.now() + 5_000; !service.stderr().includes('Daybook is running') && Date.now() < until;) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return service.stderr();
}

/** The demo account's credentials from the plain block the service prints for a person at the terminal. */
function demoCredentials(service: RunningService): { password: string; simpleToken: string } | undefined {
  const password = /^ {2}password {6}(\S+)$/m.exec(service.stderr());
  const token = /^ {2}simple token {2}(\S+)$/m.exec(service.stderr());
  return password && token ? { password: password[1], simpleToken: token[1] } : undefined;
}

test('the first embedded start migrates, creates the demo account with a year of data, and logs where it listens', async () => {
  const service = await start();
  const listening = service.logs.find((entry) => String(entry.msg).startsWith('Daybook listening'))!;
  expect(listening.msg).toMatch(/embedded PostgreSQL/);
  expect(listening.url).toBe(`http://localhost:${service.port}/`);
  expect(await welcomeBlock(service)).toMatch(new RegExp(`^Daybook is running at http://localhost:${service.port}/\n`));
  const demo = demoCredentials(service)!;
  expect(demo).toBeDefined();
  // The credentials are for the person at the terminal: no JSON log line carries them.
  const logged = service.logs.map((entry) => JSON.stringify(entry)).join('\n');
  expect(logged).not.toContain(demo.password);
  expect(logged).not.toContain(demo.simpleToken);
  expect(service.logs.some((entry) => String(entry.msg).startsWith('Demo account created'))).toBe(true);
  // The password printed is the one that signs in.
  const login = await fetch(`http://localhost:${service.port}/api/1/auth/simple-token/`, {
    method: 'POST',
    body: new URLSearchParams({ username: 'demo', password: demo.password }),
  });
  expect(((await login.json()) as { token: string }).token).toBe(demo.simpleToken);
  const profile = await fetch(`http://127.0.0.1:${service.port}/api/2/accounts/profile/`, { headers: { Authorization: `Token ${demo.simpleToken}` } });
  expect(profile.status).toBe(200);
  expect(((await profile.json()) as { username: string }).username).toBe('demo');
  expect((await fetch(`http://127.0.0.1:${service.port}/readyz`)).status).toBe(200);

  // SIGTERM while a request is in flight: the request is answered, then the process exits 0.
  const answer = await slowRequest(service.port, () => service.child.kill('SIGTERM'));
  expect(answer).toMatch(/^HTTP\/1\.1 401 /);
  expect(await service.exited).toBe(0);
  expect(service.logs.some((entry) => entry.msg === 'stopped')).toBe(true);
});

test('after SIGKILL a second start recovers on the same data, without a second demo account', async () => {
  const first = await start();
  expect(await welcomeBlock(first)).toMatch(/Daybook is running/);
  expect(demoCredentials(first)).toBeUndefined(); // made by the previous test's start, kept in the data folder
  first.child.kill('SIGKILL');
  expect(await first.exited).toBe('SIGKILL');

  const second = await start();
  await welcomeBlock(second);
  expect(demoCredentials(second)).toBeUndefined();
  const ready = await fetch(`http://127.0.0.1:${second.port}/readyz`);
  expect(ready.status).toBe(200);
  second.child.kill('SIGINT');
  expect(await second.exited).toBe(0);
});

test('a bad setting stops the start with a clear message and exit code 1', async () => {
  await expect(startService({ ...embeddedEnv(), PORT: 'eighty' }, 10_000)).rejects.toThrow(/exited \(1\)[^]*PORT must be an integer/);
});

/**
 * Stopping with kept-alive connections (docs/operating.md, "Stopping"): SIGTERM closes an idle
 * kept-alive connection at once, and a busy one right after its response (which says
 * `Connection: close`), so the process exits promptly, not after SHUTDOWN_TIMEOUT_MS or the
 * keep-alive timeout.
 */
import http from 'node:http';
import net from 'node:net';
import { startTestApp, type TestApp } from '../support/app';
import { serviceDataDir, startService, stopServices, type RunningService } from '../support/process';

/** Far longer than the test's bounds: a stop that waited for either would fail them. */
const SLOW_LIMITS = { SHUTDOWN_TIMEOUT_MS: '30000', HTTP_KEEP_ALIVE_TIMEOUT_MS: '60000' };
/** How long a stop may take once nothing is in flight (closing the pools included). */
const PROMPT_EXIT_MS = 2_000;

let app: TestApp;
let dataDir: string;
const running: RunningService[] = [];
beforeAll(async () => {
  app = await startTestApp();
  dataDir = serviceDataDir('daybook-keepalive-');
});
afterAll(async () => {
  await stopServices(running, 'SIGKILL', [dataDir]);
  await app.close();
});

async function start(): Promise<RunningService> {
  const service = await startService({
    DATABASE_URL: app.deps.config.databaseUrl!,
    SECRET_KEY: app.deps.secretKey,
    DATA_DIR: dataDir,
    WORKERS: '0',
    DEMO: '0',
    ...SLOW_LIMITS,
  });
  running.push(service);
  return service;
}

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** Sends a request through `agent` and reads the whole answer; `send` writes the body (and ends it). */
function request(agent: http.Agent, port: number, options: http.RequestOptions, send: (req: http.ClientRequest) => void): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, agent, ...options }, (res) => {
      let body = '';
      res.on('data', (chunk) => (body += String(chunk)));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    send(req);
  });
}

/** Resolves once the port refuses new connections: the service has taken the signal and stopped listening. */
async function refusesConnections(port: number): Promise<void> {
  for (;;) {
    const refused = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(false);
      });
      socket.once('error', () => resolve(true));
    });
    if (refused) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

test('SIGTERM with only an idle kept-alive connection open: the process exits at once', async () => {
  const service = await start();
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const ready = await request(agent, service.port, { path: '/readyz' }, (req) => req.end());
  expect(ready.status).toBe(200);
  expect(ready.headers.connection).toBe('keep-alive'); // the connection stays open in the agent's pool

  const signalled = Date.now();
  service.child.kill('SIGTERM');
  expect(await service.exited).toBe(0);
  expect(Date.now() - signalled).toBeLessThan(PROMPT_EXIT_MS);
  agent.destroy();
});

test('SIGTERM with a request in flight on a kept-alive connection: it is answered, the connection closed, and the process exits right after', async () => {
  const service = await start();
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  expect((await request(agent, service.port, { path: '/readyz' }, (req) => req.end())).status).toBe(200);

  // A sign-in on the same kept-alive connection, its form sent only once SIGTERM has come: the
  // service's `100 Continue` says it has the request (in flight) before the signal is sent.
  const form = 'username=nobody&password=wrong';
  const headers = { 'Content-Type': 'application/x-www-form-urlencoded', 'Content-Length': form.length, Expect: '100-continue' };
  const answer = request(agent, service.port, { method: 'POST', path: '/api/1/auth/simple-token/', headers }, (req) => {
    req.flushHeaders();
    req.once('continue', () => {
      service.child.kill('SIGTERM');
      void refusesConnections(service.port).then(() => req.end(form));
    });
  });
  const answered = await answer;
  const answeredAt = Date.now();
  expect(answered.status).toBeGreaterThanOrEqual(400); // the service's own answer to a wrong password
  expect(answered.status).toBeLessThan(500);
  expect(answered.headers.connection).toBe('close');
  expect(await service.exited).toBe(0);
  expect(Date.now() - answeredAt).toBeLessThan(PROMPT_EXIT_MS);
  agent.destroy();
});

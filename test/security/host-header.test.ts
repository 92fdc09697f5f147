/**
 * Finding 4: absolute URLs never come from an unchecked Host header. Without PUBLIC_URL, a request
 * naming a host that is not a loopback address, localhost or listed in ALLOWED_HOSTS is refused
 * (400) before a redirect or a paging link is built from it; with PUBLIC_URL only it is used; in
 * production the service does not start without PUBLIC_URL. (Raw requests: fetch cannot set Host.)
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { startTestApp, type TestApp } from '../support/app';
import { makeClient, makeToken, makeUser } from '../support/fixtures';
import { sendDocumented } from '../robustness/support/raw-http';
import { PROJECT_ROOT } from '../../src/paths';

let app: TestApp;
let bearer: string;
beforeAll(async () => {
  app = await startTestApp({ ALLOWED_HOSTS: 'daybook.test, dev.example.org' });
  const { user } = await makeUser(app);
  const { client } = await makeClient(app, user);
  bearer = (await makeToken(app, user, client, ['activity_read'])).access_token;
});
afterAll(async () => {
  await app.close();
});

const get = (target: string, host: string, headers: Record<string, string> = {}) =>
  sendDocumented(app.baseUrl, { method: 'GET', target, headers: { Host: host, Authorization: `Bearer ${bearer}`, ...headers } });

test('Host: evil.example gets 400, never a redirect or paging link to evil.example', async () => {
  for (const target of ['/api/2/attributes', '/api/2/attributes/templates/?limit=1', '/api/1/users/$self/profile']) {
    const res = await get(target, 'evil.example');
    expect(res.status).toBe(400);
    expect(res.headers.location).toBeUndefined();
    expect(res.text).not.toContain('evil.example');
  }
});

test('X-Forwarded-Host is checked the same way behind a trusted proxy', async () => {
  const proxied = await startTestApp({ TRUST_PROXY: '1' });
  try {
    const res = await sendDocumented(proxied.baseUrl, {
      method: 'GET',
      target: '/api/2/attributes',
      headers: { Host: 'localhost', 'X-Forwarded-Host': 'evil.example' },
    });
    expect(res.status).toBe(400);
  } finally {
    await proxied.close();
  }
});

test('loopback addresses, localhost and the names in ALLOWED_HOSTS are answered, and links use them', async () => {
  const port = new URL(app.baseUrl).port;
  for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, 'daybook.test', 'DEV.example.org:8443']) {
    const res = await get('/api/2/attributes/templates/?limit=1', host);
    expect([host, res.status]).toEqual([host, 200]);
    expect(new URL((res.body as { next: string }).next).host).toBe(host.toLowerCase());
  }
});

test('the token endpoint and the authorisation page answer a bad host in their own forms', async () => {
  const token = await sendDocumented(app.baseUrl, {
    method: 'POST',
    target: '/oauth2/access_token',
    headers: { Host: 'evil.example', 'Content-Type': 'application/x-www-form-urlencoded' },
    body: Buffer.from('grant_type=refresh_token&refresh_token=x&client_id=y'),
  });
  expect(token.status).toBe(400);
  expect((token.body as { error: string }).error).toBe('invalid_request');
  const page = await sendDocumented(app.baseUrl, {
    method: 'GET',
    target: '/oauth2/authorize?response_type=code&client_id=x',
    headers: { Host: 'evil.example' },
  });
  expect(page.status).toBe(400);
  expect(page.contentType).toMatch(/^text\/html/);
});

test("with PUBLIC_URL set, only it is used: any Host is answered and every absolute URL is PUBLIC_URL's", async () => {
  const published = await startTestApp({ PUBLIC_URL: 'https://daybook.example.org' });
  try {
    const { user } = await makeUser(published);
    const { client } = await makeClient(published, user);
    const token = (await makeToken(published, user, client, ['activity_read'])).access_token;
    const redirect = await sendDocumented(published.baseUrl, { method: 'GET', target: '/api/2/attributes', headers: { Host: 'evil.example' } });
    expect(redirect.status).toBe(301);
    expect(redirect.headers.location).toBe('https://daybook.example.org/api/2/attributes/');
    const list = await sendDocumented(published.baseUrl, {
      method: 'GET',
      target: '/api/2/attributes/templates/?limit=1',
      headers: { Host: 'evil.example', Authorization: `Bearer ${token}` },
    });
    expect((list.body as { next: string }).next).toMatch(/^https:\/\/daybook\.example\.org\/api\/2\/attributes\/templates\/\?/);
  } finally {
    await published.close();
  }
});

test('NODE_ENV=production without PUBLIC_URL refuses to start, with one line saying why', () => {
  const run = spawnSync(process.execPath, [path.join(PROJECT_ROOT, 'dist/src/bin/server.js')], {
    env: { PATH: process.env.PATH ?? '', NODE_ENV: 'production', DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none', LOG_LEVEL: 'silent' },
    encoding: 'utf8',
    timeout: 20_000,
  });
  expect(run.status).toBe(1);
  expect(run.stderr).toBe('Daybook cannot start: PUBLIC_URL must be set when NODE_ENV=production (e.g. PUBLIC_URL=https://daybook.example.org).\n');
});

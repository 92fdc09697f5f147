/**
 * Finding 8, the small ones: the token endpoint answers an oversized body in RFC 6749 form; the
 * simple-token answer is never cached (Pragma beside Cache-Control); SECRET_KEY's minimum length
 * is the same in the code and the README; the HTTP server's limits come from the config, and a
 * client too slow with its headers, or one connection too many, is cut off.
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { ConfigError, loadConfig, SECRET_KEY_MIN_LENGTH } from '../../src/config';
import { createHttpServer } from '../../src/http/server';
import { PROJECT_ROOT } from '../../src/paths';
import { startTestApp, type TestApp } from '../support/app';
import { makeUser } from '../support/fixtures';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

test('a token request over 1 MiB is 413 in RFC 6749 form (invalid_request), never cached', async () => {
  const res = await app.post('/oauth2/access_token', { form: { grant_type: 'refresh_token', refresh_token: 'x'.repeat(1024 * 1024 + 1) } });
  expect(res.status).toBe(413);
  expect(res.body).toEqual({ error: 'invalid_request', error_description: 'The request body is larger than 1 MiB.' });
  expect(res.headers.get('cache-control')).toBe('no-store');
  expect(res.headers.get('pragma')).toBe('no-cache');
});

test('a token request of another media type is 415 in RFC 6749 form', async () => {
  const res = await app.post('/oauth2/access_token', { raw: 'grant_type=refresh_token', headers: { 'Content-Type': 'text/plain' } });
  expect(res.status).toBe(415);
  expect(res.body.error).toBe('invalid_request');
  expect(res.headers.get('cache-control')).toBe('no-store');
});

test('the simple-token answer carries Pragma: no-cache beside Cache-Control: no-store', async () => {
  const { user, password } = await makeUser(app);
  const res = await app.post('/api/1/auth/simple-token/', { form: { username: user.username, password } });
  expect(res.status).toBe(200);
  expect([res.headers.get('cache-control'), res.headers.get('pragma')]).toEqual(['no-store', 'no-cache']);
});

test('SECRET_KEY: the README states the minimum length the code enforces', () => {
  const readme = fs.readFileSync(path.join(PROJECT_ROOT, 'README.md'), 'utf8');
  const row = readme.split('\n').find((line) => line.startsWith('| `SECRET_KEY` |'))!;
  expect(row).toContain(`at least ${SECRET_KEY_MIN_LENGTH} characters`);
  expect(() => loadConfig({ SECRET_KEY: 'k'.repeat(SECRET_KEY_MIN_LENGTH - 1) })).toThrow(ConfigError);
  expect(loadConfig({ SECRET_KEY: 'k'.repeat(SECRET_KEY_MIN_LENGTH) }).secretKey).toHaveLength(SECRET_KEY_MIN_LENGTH);
});

describe('the HTTP server', () => {
  test('takes headersTimeout, requestTimeout, keepAliveTimeout and the connection limit from the config', () => {
    const config = loadConfig({
      HTTP_HEADERS_TIMEOUT_MS: '7000',
      HTTP_REQUEST_TIMEOUT_MS: '9000',
      HTTP_KEEP_ALIVE_TIMEOUT_MS: '4000',
      HTTP_MAX_CONNECTIONS: '17',
    });
    const server = createHttpServer(() => undefined, config);
    expect([server.headersTimeout, server.requestTimeout, server.keepAliveTimeout, server.maxConnections]).toEqual([7000, 9000, 4000, 17]);
    const defaults = createHttpServer(() => undefined, loadConfig({}));
    expect([defaults.headersTimeout, defaults.requestTimeout, defaults.keepAliveTimeout, defaults.maxConnections]).toEqual([20_000, 60_000, 65_000, 1000]);
    expect(() => loadConfig({ HTTP_HEADERS_TIMEOUT_MS: '9000', HTTP_REQUEST_TIMEOUT_MS: '8000' })).toThrow(ConfigError);
  });

  async function listening(env: Record<string, string>) {
    const server = createHttpServer((_req, res) => res.end('ok'), loadConfig(env));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { server, port: (server.address() as AddressInfo).port };
  }

  /** Connects and resolves with what the server sent when it closed the connection. */
  function untilClosed(socket: net.Socket): Promise<string> {
    let answer = '';
    socket.on('data', (chunk) => (answer += String(chunk)));
    return new Promise((resolve) => socket.on('close', () => resolve(answer)));
  }

  test('a client that has not finished its headers in time is answered 408 and cut off', async () => {
    const { server, port } = await listening({ HTTP_HEADERS_TIMEOUT_MS: '1000', HTTP_REQUEST_TIMEOUT_MS: '1000' });
    try {
      const socket = net.connect(port, '127.0.0.1');
      const closed = untilClosed(socket);
      socket.write('GET / HTTP/1.1\r\nHost: localhost\r\nX-Slow: ');
      const started = Date.now();
      expect(await closed).toMatch(/^HTTP\/1\.1 408/);
      expect(Date.now() - started).toBeLessThan(5000);
    } finally {
      server.close();
    }
  });

  test('connections past HTTP_MAX_CONNECTIONS are refused', async () => {
    const { server, port } = await listening({ HTTP_MAX_CONNECTIONS: '1' });
    try {
      const first = net.connect(port, '127.0.0.1');
      await new Promise((resolve) => first.once('connect', resolve));
      const second = net.connect(port, '127.0.0.1');
      const answer = await untilClosed(second);
      expect(answer).toBe('');
      first.destroy();
    } finally {
      server.close();
    }
  });
});

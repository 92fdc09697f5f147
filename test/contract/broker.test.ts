/**
 * The broker mode of the provider verification, against a small stand-in for a Pact Broker that
 * serves two of the committed pacts through the broker's HAL API: with `PACT_BROKER_BASE_URL` and a
 * token, the verification fetches the pacts from the broker (authenticated) and publishes a
 * successful result for each under the provider version.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { startTestApp, type TestApp } from '../support/app';
import { PACTS_DIR } from '../../contracts/support/pact';
import { brokerSource, verifyProvider, VERIFICATION_NOW } from './provider-verification';

const SERVED = ['daybook-oauth-client-Daybook.json', 'daybook-v1-reader-Daybook.json'];
const TOKEN = 'broker-test-token';

interface Seen {
  method: string;
  url: string;
  authorization?: string;
  body: string;
}

let app: TestApp;
let broker: http.Server;
let base: string;
const seen: Seen[] = [];

/** The broker's answers: its index, the pacts for verification, each pact, and result publishing. */
function answer(request: Seen): { status: number; body: unknown } {
  const pactLink = (file: string) => `${base}/pacts/${encodeURIComponent(file)}`;
  if (request.method === 'GET' && request.url === '/') {
    return {
      status: 200,
      body: { _links: { 'pb:provider-pacts-for-verification': { href: `${base}/pacts/provider/{provider}/for-verification`, templated: true } } },
    };
  }
  if (request.method === 'GET' && request.url === '/pacts/provider/Daybook/for-verification') {
    return { status: 200, body: { _links: { self: { href: `${base}${request.url}`, title: 'Pacts to be verified' } } } };
  }
  if (request.method === 'POST' && request.url === '/pacts/provider/Daybook/for-verification') {
    const pacts = SERVED.map((file) => ({
      shortDescription: file,
      verificationProperties: { pending: false, notices: [] },
      _links: { self: { href: pactLink(file), name: file } },
    }));
    return { status: 200, body: { _embedded: { pacts } } };
  }
  const pact = /^\/pacts\/([^/]+)$/.exec(request.url);
  if (request.method === 'GET' && pact) {
    const file = decodeURIComponent(pact[1]);
    const content = JSON.parse(fs.readFileSync(path.join(PACTS_DIR, file), 'utf8')) as Record<string, unknown>;
    return {
      status: 200,
      body: { ...content, _links: { self: { href: pactLink(file) }, 'pb:publish-verification-results': { href: `${pactLink(file)}/verification-results` } } },
    };
  }
  if (request.method === 'POST' && /^\/pacts\/[^/]+\/verification-results$/.test(request.url)) return { status: 201, body: {} };
  return { status: 404, body: { error: `no ${request.method} ${request.url} in this stand-in broker` } };
}

beforeAll(async () => {
  app = await startTestApp();
  app.setNow(VERIFICATION_NOW);
  broker = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const request: Seen = { method: req.method ?? '', url: req.url ?? '', authorization: req.headers.authorization, body };
      seen.push(request);
      const { status, body: payload } = answer(request);
      res.writeHead(status, { 'Content-Type': 'application/hal+json' });
      res.end(JSON.stringify(payload));
    });
  });
  await new Promise<void>((resolve) => broker.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(broker.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => broker.close(() => resolve()));
  app.setNow(undefined);
  await app.close();
});

test('without PACT_BROKER_BASE_URL the committed files are used', () => {
  expect(brokerSource({})).toBeUndefined();
  expect(() => brokerSource({ PACT_BROKER_BASE_URL: 'https://broker.example.org' })).toThrow(/PACT_PROVIDER_VERSION/);
});

test('with a broker, the pacts come from it and a successful result is published for each', async () => {
  const source = brokerSource({ PACT_BROKER_BASE_URL: base, PACT_BROKER_TOKEN: TOKEN, PACT_PROVIDER_VERSION: 'test-version' })!;
  await verifyProvider(app, source);
  expect(seen.every((r) => r.authorization === `Bearer ${TOKEN}`)).toBe(true);
  const fetched = seen.filter((r) => r.method === 'GET' && r.url.endsWith('.json')).map((r) => decodeURIComponent(r.url.slice('/pacts/'.length)));
  expect(fetched.sort()).toEqual(SERVED);
  const results = seen
    .filter((r) => r.url.endsWith('/verification-results'))
    .map((r) => JSON.parse(r.body) as { success: boolean; providerApplicationVersion: string });
  expect(results).toHaveLength(SERVED.length);
  expect(results.every((r) => r.success && r.providerApplicationVersion === 'test-version')).toBe(true);
}, 120_000);

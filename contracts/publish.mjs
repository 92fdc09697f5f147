#!/usr/bin/env node
/**
 * Publishes the committed pact files to a Pact Broker (or PactFlow), the consumer side of the
 * broker workflow: `npm run contracts:publish`.
 *
 *   PACT_BROKER_BASE_URL   the broker, e.g. https://example.pactflow.io
 *   PACT_BROKER_TOKEN      a bearer token (or PACT_BROKER_USERNAME and PACT_BROKER_PASSWORD)
 *   PACT_CONSUMER_VERSION  the consumers' version (default: GIT_COMMIT)
 *   PACT_CONSUMER_BRANCH   the branch it was built from (default: GIT_BRANCH; optional)
 *
 * Uses the broker's HTTP API (PUT /pacts/provider/P/consumer/C/version/V, and
 * PUT /pacticipants/C/branches/B/versions/V), so no further tool is needed.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = join(dirname(fileURLToPath(import.meta.url)), 'pacts');
const env = process.env;
const base = (env.PACT_BROKER_BASE_URL ?? '').replace(/\/+$/, '');
const version = env.PACT_CONSUMER_VERSION ?? env.GIT_COMMIT;
const branch = env.PACT_CONSUMER_BRANCH ?? env.GIT_BRANCH;
if (!base || !version) {
  process.stderr.write('Set PACT_BROKER_BASE_URL and PACT_CONSUMER_VERSION (or GIT_COMMIT).\n');
  process.exit(2);
}
const auth = env.PACT_BROKER_TOKEN
  ? `Bearer ${env.PACT_BROKER_TOKEN}`
  : env.PACT_BROKER_USERNAME
    ? `Basic ${Buffer.from(`${env.PACT_BROKER_USERNAME}:${env.PACT_BROKER_PASSWORD ?? ''}`).toString('base64')}`
    : undefined;
const headers = { 'Content-Type': 'application/json', Accept: 'application/hal+json', ...(auth ? { Authorization: auth } : {}) };

async function put(path, body) {
  const response = await fetch(`${base}${path}`, { method: 'PUT', headers, body: JSON.stringify(body) });
  if (!response.ok) throw new Error(`PUT ${path} answered ${response.status}: ${(await response.text()).slice(0, 500)}`);
}

for (const file of readdirSync(dir)
  .filter((name) => name.endsWith('.json'))
  .sort()) {
  const pact = JSON.parse(readFileSync(join(dir, file), 'utf8'));
  const consumer = encodeURIComponent(pact.consumer.name);
  const provider = encodeURIComponent(pact.provider.name);
  if (branch) await put(`/pacticipants/${consumer}/branches/${encodeURIComponent(branch)}/versions/${encodeURIComponent(version)}`, {});
  await put(`/pacts/provider/${provider}/consumer/${consumer}/version/${encodeURIComponent(version)}`, pact);
  process.stdout.write(`published ${file} as ${pact.consumer.name} ${version}${branch ? ` (${branch})` : ''}\n`);
}

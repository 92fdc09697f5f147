/**
 * Provider verification: the real service, on its own PostgreSQL database, honours every consumer
 * contract. Each interaction's provider states are set up through the domain (provider-states.ts),
 * the request filter swaps the contracts' example credentials for real ones, and Pact replays the
 * request and checks the answer against the contract's matchers.
 *
 * Where the pacts come from:
 * - by default, the committed files in contracts/pacts/ (one test per file);
 * - with `PACT_BROKER_BASE_URL` (and `PACT_BROKER_TOKEN`, or `PACT_BROKER_USERNAME` and
 *   `PACT_BROKER_PASSWORD`), the broker's pacts for provider Daybook, and the results are
 *   published to it under `PACT_PROVIDER_VERSION` (default: `GIT_COMMIT`).
 */
import fs from 'node:fs';
import path from 'node:path';
import { startTestApp, type TestApp } from '../support/app';
import { PACTS_DIR } from '../../contracts/support/pact';
import { brokerSource, verifyProvider, VERIFICATION_NOW } from './provider-verification';

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp();
  app.setNow(VERIFICATION_NOW);
});
afterAll(async () => {
  app.setNow(undefined);
  await app.close();
});

const broker = process.env.PACT_BROKER_BASE_URL ? brokerSource(process.env) : undefined;

if (broker) {
  test('Daybook honours every contract the broker holds for it (results published)', async () => {
    await verifyProvider(app, broker);
  }, 600_000);
} else {
  const files = fs
    .readdirSync(PACTS_DIR)
    .filter((file) => file.endsWith('.json'))
    .sort();

  test('contracts/pacts/ holds a pact for each consumer', () => {
    expect(files).toEqual([
      'daybook-dashboard-Daybook.json',
      'daybook-oauth-client-Daybook.json',
      'daybook-v1-reader-Daybook.json',
      'daybook-webhook-receiver-Daybook.json',
      'daybook-write-integration-Daybook.json',
    ]);
  });

  test.each(files)(
    'Daybook honours %s',
    async (file) => {
      await verifyProvider(app, { pactUrls: [path.join(PACTS_DIR, file)] });
    },
    300_000,
  );
}

/**
 * How Daybook is verified against its consumers' pacts, shared by the verification of the
 * committed pacts and the broker test: the provider states (provider-states.ts), the request
 * filter that swaps in real credentials (request-filter.ts), the webhook messages
 * (webhook-messages.ts), and a readable report of what failed (verification-report.ts).
 */
import { Verifier, type VerifierOptions } from '@pact-foundation/pact';
import type { TestApp } from '../support/app';
import { PROVIDER } from '../../contracts/support/pact';
import { emptyWorld, providerStates, type World } from './provider-states';
import { credentialsFilter } from './request-filter';
import { describeVerificationFailure } from './verification-report';
import { webhookMessageProviders } from './webhook-messages';

// No usage reports from Pact's native library out of the test run.
process.env.PACT_DO_NOT_TRACK = 'true';

/** The provider runs on Friday 2026-11-20 (the contracts' examples are dated around it). */
export const VERIFICATION_NOW = new Date('2026-11-20T12:00:00Z');

/** Where the pacts come from: files, or a broker (see brokerSource). */
export type PactSource = Partial<VerifierOptions>;

/**
 * The broker settings of the environment, or undefined without `PACT_BROKER_BASE_URL`. Results
 * are published, so a provider version is required.
 */
export function brokerSource(env: NodeJS.ProcessEnv): PactSource | undefined {
  if (!env.PACT_BROKER_BASE_URL) return undefined;
  // The same version and branch the broker commands use (contracts/broker.mjs), unless set apart.
  const providerVersion = env.PACT_PROVIDER_VERSION ?? env.PACT_VERSION ?? env.GIT_COMMIT;
  if (!providerVersion) throw new Error('Verifying against a broker publishes the results: set PACT_PROVIDER_VERSION (or PACT_VERSION or GIT_COMMIT).');
  const optional = {
    pactBrokerToken: env.PACT_BROKER_TOKEN,
    pactBrokerUsername: env.PACT_BROKER_USERNAME,
    pactBrokerPassword: env.PACT_BROKER_PASSWORD,
    providerVersionBranch: env.PACT_PROVIDER_BRANCH ?? env.PACT_BRANCH ?? env.GIT_BRANCH,
  };
  return {
    pactBrokerUrl: env.PACT_BROKER_BASE_URL,
    // pact-core rejects an option that is present but undefined.
    ...Object.fromEntries(Object.entries(optional).filter(([, value]) => value)),
    consumerVersionSelectors: [{ mainBranch: true }, { deployedOrReleased: true }, { matchingBranch: true }],
    enablePending: true,
    publishVerificationResult: true,
    providerVersion,
  };
}

/** Verifies the running app against the pacts of `source`; throws a readable report on failure. */
export async function verifyProvider(app: TestApp, source: PactSource): Promise<void> {
  let world: World = emptyWorld();
  const options: VerifierOptions = {
    provider: PROVIDER,
    providerBaseUrl: app.baseUrl,
    stateHandlers: providerStates(app, () => world),
    beforeEach: async () => {
      world = emptyWorld();
    },
    requestFilter: credentialsFilter(() => world),
    // The webhook receiver's messages, made by Daybook's dispatcher and signing (webhook-messages.ts).
    messageProviders: webhookMessageProviders(app, () => world),
    // Provider states that derive a year of data take a few seconds on a busy machine.
    timeout: 60_000,
    logLevel: (process.env.PACT_LOG_LEVEL as VerifierOptions['logLevel']) ?? 'error',
    ...source,
  };
  try {
    await new Verifier(options).verifyProvider();
  } catch (error) {
    throw new Error(describeVerificationFailure(error), { cause: error });
  }
}

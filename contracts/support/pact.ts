/**
 * One Pact per consumer, written where the committed pact files can be compared with it.
 *
 * Each consumer spec writes its pact into a fresh temporary folder (never merged with an older
 * file, so a removed interaction disappears). After the spec, the new pact is compared with the
 * committed `contracts/pacts/<consumer>-Daybook.json`, which is what the provider verification and
 * the OpenAPI agreement check read:
 *
 * - the same interactions: nothing to do (the pact-js/pact-rust versions in `metadata` are ignored);
 * - different, and `PACT_UPDATE=1` (`npm run contracts:update`): the committed file is replaced
 *   (atomically, so a verification running beside it reads either the old file or the new one);
 * - different otherwise: the spec fails, naming the interactions that changed.
 *
 * Files are written in a canonical form (interactions sorted by description and states, two-space
 * JSON), so regenerating an unchanged contract gives the same bytes.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PactV3, PactV4, type V3MockServer } from '@pact-foundation/pact';
import { PROJECT_ROOT } from '../../src/paths';

// No usage reports from Pact's native library out of the test run.
process.env.PACT_DO_NOT_TRACK = 'true';

export const PROVIDER = 'Daybook';
export const PACTS_DIR = path.join(PROJECT_ROOT, 'contracts', 'pacts');

interface PactFile {
  consumer: { name: string };
  provider: { name: string };
  interactions: Array<{ description: string; providerStates?: unknown[] } & Record<string, unknown>>;
  metadata?: unknown;
}

const sortKey = (i: PactFile['interactions'][number]) => `${i.description}\u0000${JSON.stringify(i.providerStates ?? [])}`;

/** The pact with its interactions in a stable order. */
export function canonicalPact(pact: PactFile): PactFile {
  return { ...pact, interactions: [...pact.interactions].sort((a, b) => sortKey(a).localeCompare(sortKey(b))) };
}

export function formatPact(pact: PactFile): string {
  return JSON.stringify(canonicalPact(pact), null, 2) + '\n';
}

/** What differs between two pacts' interactions, one line each; empty when they agree. */
export function pactDifferences(committed: PactFile | undefined, generated: PactFile): string[] {
  if (!committed) return ['the committed file does not exist'];
  const byDescription = (pact: PactFile) => new Map(pact.interactions.map((i) => [sortKey(i), JSON.stringify(i)]));
  const before = byDescription(committed);
  const after = byDescription(generated);
  const name = (key: string) => `"${key.split('\u0000')[0]}"`;
  const lines: string[] = [];
  for (const [key, value] of after) {
    if (!before.has(key)) lines.push(`added: ${name(key)}`);
    else if (before.get(key) !== value) lines.push(`changed: ${name(key)}`);
  }
  for (const key of before.keys()) if (!after.has(key)) lines.push(`removed: ${name(key)}`);
  if (committed.consumer.name !== generated.consumer.name || committed.provider.name !== generated.provider.name)
    lines.push('consumer or provider name changed');
  return lines;
}

export function pactFileName(consumer: string): string {
  return `${consumer}-${PROVIDER}.json`;
}

function readPact(file: string): PactFile | undefined {
  return fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as PactFile) : undefined;
}

/** Compares the generated pact with the committed one; replaces it with PACT_UPDATE=1. */
function settle(consumer: string, scratch: string): void {
  const generatedFile = path.join(scratch, pactFileName(consumer));
  const generated = readPact(generatedFile);
  fs.rmSync(scratch, { recursive: true, force: true });
  if (!generated) throw new Error(`No pact was written for ${consumer}: did every interaction's test pass?`);
  const committedFile = path.join(PACTS_DIR, pactFileName(consumer));
  const differences = pactDifferences(readPact(committedFile), generated);
  if (differences.length === 0) return;
  if (process.env.PACT_UPDATE === '1') {
    fs.mkdirSync(PACTS_DIR, { recursive: true });
    const temporary = `${committedFile}.${process.pid}.tmp`;
    fs.writeFileSync(temporary, formatPact(generated));
    fs.renameSync(temporary, committedFile);
    return;
  }
  throw new Error(
    `The contract ${consumer} changed, but contracts/pacts/${pactFileName(consumer)} was not updated:\n` +
      differences.map((line) => `  - ${line}`).join('\n') +
      '\nRun `npm run contracts:update` and commit the pact file (the provider verification checks the committed file).',
  );
}

/**
 * PactV3 that waits, after the test's requests, until the mock server has recorded its matches.
 * The Rust mock server answers a request before it books the match, so under load (two jest
 * workers, a busy CI runner) the check right after the test can miss a request that was answered
 * (pact-foundation/pact-reference#535, pact-core-mock-server#13). A genuine mismatch never
 * becomes a match: after the wait, executeTest reports it as usual.
 */
class SettlingPactV3 extends PactV3 {
  override executeTest<T>(testFn: (mockServer: V3MockServer) => Promise<T>): Promise<T | undefined> {
    const core = (this as unknown as { pact: { mockServerMatchedSuccessfully(port: number): boolean } }).pact;
    return super.executeTest(async (server) => {
      const value = await testFn(server);
      for (let waited = 0; waited < 2000 && !core.mockServerMatchedSuccessfully(server.port); waited += 10) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      return value;
    });
  }
}

/**
 * A Pact V3 consumer of Daybook, for one spec file. Registers the after-all comparison with the
 * committed pact file.
 */
export function consumerPact(consumer: string): PactV3 {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), `daybook-pact-${consumer}-`));
  afterAll(() => settle(consumer, scratch));
  // 'error': pact-rust warns at 'warn' each time it merges an interaction into the scratch file.
  return new SettlingPactV3({ consumer, provider: PROVIDER, dir: scratch, logLevel: 'error' });
}

/**
 * A Pact V4 consumer of Daybook, for one spec file: V4 holds HTTP interactions and asynchronous
 * messages (the webhook events) in one pact. Compared with the committed file like consumerPact.
 */
export function consumerPactV4(consumer: string): PactV4 {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), `daybook-pact-${consumer}-`));
  afterAll(() => settle(consumer, scratch));
  return new PactV4({ consumer, provider: PROVIDER, dir: scratch, logLevel: 'error' });
}

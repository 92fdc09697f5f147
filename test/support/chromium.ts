/**
 * Real headless Chromium for the browser tests: Debian's `chromium` driven by playwright-core
 * (never a browser download). On a fresh machine the tests install it themselves with apt-get
 * (CI machines run as root with Debian mirrors reachable).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

/**
 * Flags for a closed network: without them Chromium keeps trying to reach Google services
 * (component updates, sync, QUIC probes) and can hang on those connections.
 */
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Installs Debian's chromium when it is missing (needs root). */
export function ensureChromium(): void {
  if (fs.existsSync(CHROMIUM)) return;
  if (typeof process.getuid === 'function' && process.getuid() !== 0) {
    throw new Error(`${CHROMIUM} is missing and the tests are not root: run "apt-get update && apt-get install -y chromium" once.`);
  }
  execFileSync('sh', ['-c', 'apt-get update && apt-get install -y chromium'], {
    stdio: 'inherit',
    timeout: 15 * 60 * 1000,
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  if (!fs.existsSync(CHROMIUM)) throw new Error(`apt-get install chromium did not provide ${CHROMIUM}.`);
}

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** A fresh browser with its own new profile folder, removed on close. */
export async function launchBrowser(): Promise<Browser> {
  ensureChromium();
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'daybook-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    timeout: 60_000,
  });
  return {
    context,
    async close() {
      await context.close();
      fs.rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

/** Where screenshots and other artifacts go (git-ignored). */
export function artifactPath(name: string): string {
  const dir = path.join(__dirname, '..', 'artifacts');
  fs.mkdirSync(dir, { recursive: true });
  return path.join(dir, name);
}

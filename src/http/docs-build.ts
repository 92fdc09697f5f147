/**
 * The Redoc pages (dist/docs/*.html, 2.5 MB each, build output) are built after the service
 * listens, so that a first start answers in seconds. While they are being built, the pages answer
 * 503 with Retry-After (meta-routes.ts). Restarts find them built and start no build.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import { BUNDLES_DIR, DOCS_DIR, PROJECT_ROOT } from '../paths';
import type { ApiName } from './backends';

const PAGES: ApiName[] = ['v2', 'v1', 'oauth'];

/** The build running in this process, if any. */
let running: ChildProcess | undefined;

/** Are the documentation pages being built right now (by this process)? */
export function docsBeingBuilt(): boolean {
  return running !== undefined;
}

/** The script that builds the pages: a page older than it is built again (it may rewrite them differently). */
const BUILD_SCRIPT = path.join(PROJECT_ROOT, 'src', 'tools', 'build-api.mjs');

/** Is a page missing, or older than the bundled document it shows or the build script? (The same rule as `build-api.mjs --docs`.) */
function pageStale(name: ApiName): boolean {
  const page = fs.statSync(path.join(DOCS_DIR, `${name}.html`), { throwIfNoEntry: false });
  const sources = Math.max(fs.statSync(path.join(BUNDLES_DIR, `${name}.json`)).mtimeMs, fs.statSync(BUILD_SCRIPT).mtimeMs);
  return !page || page.mtimeMs < sources;
}

/**
 * Builds the missing or outdated pages in a child process (`node src/tools/build-api.mjs --docs`),
 * or does nothing when they are built. `stop()` ends a build still running (the service stops).
 */
export function buildDocsInBackground(logger: Logger): { stop(): void } {
  if (running || !PAGES.some(pageStale)) return { stop: () => undefined };
  const began = Date.now();
  const child = spawn(process.execPath, [BUILD_SCRIPT, '--docs'], {
    cwd: PROJECT_ROOT,
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true, // a process group of its own, so that stop() ends the redocly it runs too
  });
  running = child;
  let errors = '';
  child.stderr!.on('data', (chunk) => (errors = (errors + String(chunk)).slice(-2000)));
  child.once('error', (error) => (errors += error.message));
  child.once('close', (code, signal) => {
    running = undefined;
    if (code === 0) logger.info({ ms: Date.now() - began }, 'Documentation pages built: /docs/ serves them');
    else if (!signal)
      logger.warn({ code, detail: errors.trim() }, 'The documentation pages could not be built; /docs/ answers 404 until `npm run docs` builds them');
  });
  logger.info('Building the documentation pages in the background; /docs/ answers 503 until they are ready');
  return {
    stop() {
      if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        // it ended in between
      }
    },
  };
}

#!/usr/bin/env node
/**
 * Compiles the project (tsc -p tsconfig.build.json) only when a source is newer than the last
 * build, so `npm start`, `npm run worker` and the operator CLI start straight away on an unchanged
 * checkout (tsc's own incremental check still costs seconds: it loads the compiler and every file).
 * With `--docs` it then builds the Redoc pages that are missing or older than their bundle.
 *
 * "Newer" is by modification time: editing a file, `git pull` and `git checkout` all give the files
 * they touch the current time. A build that failed ages the stamp, so the next run compiles again.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, utimesSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** tsc writes this on every successful incremental build (tsconfig.build.json's tsBuildInfoFile). */
const stamp = join(root, 'dist', '.tsbuildinfo');
const inputs = ['src', 'generated/types', 'tsconfig.json', 'tsconfig.build.json', 'package-lock.json'];

/** The newest modification time of a file or of any file below a folder. */
function newest(path) {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let latest = stat.mtimeMs; // a deleted or renamed file changes its folder's time
  for (const entry of readdirSync(path)) latest = Math.max(latest, newest(join(path, entry)));
  return latest;
}

function stale() {
  if (!existsSync(stamp)) return true;
  const built = statSync(stamp).mtimeMs;
  return inputs.some((input) => newest(join(root, input)) > built);
}

/** tsc emits even with type errors and records them in the stamp: age it so the next run compiles (and fails) again. */
function forgetBuild() {
  if (existsSync(stamp)) utimesSync(stamp, new Date(0), new Date(0));
}

try {
  if (stale()) {
    try {
      execFileSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(root, 'tsconfig.build.json')], { cwd: root, stdio: 'inherit' });
    } catch (error) {
      forgetBuild();
      throw error;
    }
    // tsc leaves the stamp alone when nothing needed emitting (a file touched, not changed): mark it built now.
    const now = new Date();
    utimesSync(stamp, now, now);
  }
  if (process.argv.includes('--docs')) {
    execFileSync(process.execPath, [join(root, 'src', 'tools', 'build-api.mjs'), '--docs'], { cwd: root, stdio: 'inherit' });
  }
} catch {
  process.exit(1); // the compiler or the docs build said why
}

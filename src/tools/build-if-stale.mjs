#!/usr/bin/env node
/**
 * Makes dist/ current before `npm start`, `npm run worker` and the operator CLI run it: only when
 * a source is newer than the last build, and then by transpiling src/ with swc (each file on its
 * own, types stripped, about 0.2 s of CPU), not by tsc (about 8 s of CPU: it type-checks the whole
 * project). Type errors are reported by `npm test` (typecheck) and `npm run build` (tsc), which
 * write the same dist/ layout. With `--docs` it then builds the Redoc pages that are missing or older
 * than their bundle (`npm start` leaves that to the service, after it listens: src/http/docs-build.ts).
 *
 * "Newer" is by modification time: editing a file, `git pull` and `git checkout` all give the files
 * they touch the current time. The last build is the newer of this script's stamp and tsc's.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** Written after each transpile; tsc writes its own (tsconfig.build.json's tsBuildInfoFile) on a build. */
const stamps = [join(root, 'dist', '.transpiled'), join(root, 'dist', '.tsbuildinfo')];
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
  const built = Math.max(...stamps.map((stamp) => (existsSync(stamp) ? statSync(stamp).mtimeMs : 0)));
  return built === 0 || inputs.some((input) => newest(join(root, input)) > built);
}

/** The TypeScript files below `dir` (declarations have no code). */
function sources(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/**
 * Transpiles src/ into dist/src/ as tsc would lay it out (CommonJS, ES2022, as the tests' swc
 * transform does). Each file is written beside its place and renamed, so a process starting from
 * dist/ meanwhile never reads half a file. Only types are imported from generated/types: no code.
 */
function transpile() {
  const swc = createRequire(import.meta.url)(join(root, 'node_modules', '@swc', 'core'));
  const options = { jsc: { target: 'es2022', parser: { syntax: 'typescript' } }, module: { type: 'commonjs' }, sourceMaps: false };
  for (const file of sources(join(root, 'src'))) {
    const { code } = swc.transformFileSync(file, options);
    const out = join(root, 'dist', relative(root, file)).replace(/\.ts$/, '.js');
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(`${out}.partial`, code);
    renameSync(`${out}.partial`, out);
  }
  writeFileSync(stamps[0], `${new Date().toISOString()}\n`);
}

try {
  if (stale()) transpile();
  if (process.argv.includes('--docs')) {
    execFileSync(process.execPath, [join(root, 'src', 'tools', 'build-api.mjs'), '--docs'], { cwd: root, stdio: 'inherit' });
  }
} catch (error) {
  // A syntax error names its file and line; the stamp is not written, so the next run tries again.
  if (error?.message) process.stderr.write(`${error.message.split('\nCaused by:')[0].trimEnd()}\n`); // swc appends its own backtrace
  process.exit(1);
}

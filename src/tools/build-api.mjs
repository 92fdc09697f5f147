#!/usr/bin/env node
/**
 * Builds everything derived from the hand-written OpenAPI documents in openapi/:
 *
 *   node src/tools/build-api.mjs            bundle into generated/openapi/*.json (with code samples), types into generated/types/*.ts
 *   node src/tools/build-api.mjs --check    build into a temporary folder and fail if generated/ differs
 *   node src/tools/build-api.mjs --docs     Redoc pages (redocly build-docs, scripts inlined) into dist/docs/*.html
 *
 * The bundles and types are committed; the docs pages are 2.5 MB each, so they are build output
 * (npm run build makes them) and not committed. The client package (client/) carries its own copy
 * of the types in client/src/generated/ (an installed package cannot reach ../generated): the build
 * writes it and --check compares it too (client/README.md, "Generated types").
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync, existsSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const bin = (name) => join(root, 'node_modules', '.bin', name);
const config = join(root, 'openapi', 'redocly.yaml');

/** The three documents: the key is the api name in openapi/redocly.yaml. */
const APIS = [
  { name: 'v2', title: 'Daybook API, version 2' },
  { name: 'v1', title: 'Daybook API, version 1' },
  { name: 'oauth', title: 'Daybook OAuth2' },
];

/** Runs a tool quietly; its output is shown only when it fails. */
function run(tool, args) {
  try {
    execFileSync(bin(tool), args, { cwd: root, stdio: 'pipe', env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' } });
  } catch (error) {
    process.stderr.write(`${tool} ${args.join(' ')} failed:\n${error.stdout ?? ''}${error.stderr ?? ''}\n`);
    process.exit(1);
  }
}

/**
 * Bundles each document and generates its types under `out`. The code samples' libraries (and the
 * client package's sample writer) are loaded here only: `--docs`, which a start runs, needs none of them.
 */
async function build(out) {
  const { addCodeSamples } = await import('./code-samples.mjs');
  mkdirSync(join(out, 'openapi'), { recursive: true });
  mkdirSync(join(out, 'types'), { recursive: true });
  for (const api of APIS) {
    const bundle = join(out, 'openapi', `${api.name}.json`);
    run('redocly', ['bundle', api.name, '--config', config, '--ext', 'json', '-o', bundle]);
    // Code samples on every operation (code-samples.mjs), then stable formatting, whatever the
    // bundler's defaults: two-space JSON with a final newline.
    const document = addCodeSamples(api.name, JSON.parse(readFileSync(bundle, 'utf8')));
    writeFileSync(bundle, JSON.stringify(document, null, 2) + '\n');
    run('openapi-typescript', [bundle, '-o', join(out, 'types', `${api.name}.ts`)]);
  }
}

/** Lists files under dir, relative to it. */
function listFiles(dir, prefix = '') {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? listFiles(join(dir, entry.name), join(prefix, entry.name)) : [join(prefix, entry.name)],
  );
}

/** The client package's copy of the types: the same files, byte for byte. */
const clientTypes = join(root, 'client', 'src', 'generated');

function copyClientTypes() {
  mkdirSync(clientTypes, { recursive: true });
  for (const api of APIS) copyFileSync(join(root, 'generated', 'types', `${api.name}.ts`), join(clientTypes, `${api.name}.ts`));
}

/** The client's copies that differ from freshly generated types under `out`. */
function staleClientTypes(out) {
  return APIS.map((api) => `${api.name}.ts`)
    .filter((name) => !existsSync(join(clientTypes, name)) || readFileSync(join(clientTypes, name), 'utf8') !== readFileSync(join(out, 'types', name), 'utf8'))
    .map((name) => `client/src/generated/${name}`);
}

async function check() {
  const tmp = mkdtempSync(join(tmpdir(), 'daybook-generated-'));
  try {
    await build(tmp);
    const committed = join(root, 'generated');
    const names = new Set([...listFiles(tmp), ...listFiles(committed).filter((f) => /^(openapi|types)\//.test(f))]);
    const stale = [...names].filter((name) => {
      const a = join(tmp, name);
      const b = join(committed, name);
      return !existsSync(a) || !existsSync(b) || readFileSync(a, 'utf8') !== readFileSync(b, 'utf8');
    });
    stale.push(...staleClientTypes(tmp));
    if (stale.length > 0) {
      process.stderr.write(`generated/ is stale; run npm run build:api and commit. Differs: ${stale.join(', ')}\n`);
      process.exit(1);
    }
    process.stdout.write('generated/ matches the OpenAPI documents.\n');
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/**
 * Redoc's sidebar footer ("API docs by Redocly") loads its logo from cdn.redoc.ly, which the docs
 * pages' own CSP (img-src 'self' data:) blocks, a console error on every page; no Redoc option
 * removes it. The pages name no outside resource: the logo becomes an inline SVG of the same words
 * (docs/decisions.md, "Docs pages load nothing from outside").
 */
const REDOCLY_LOGOS = ['https://cdn.redoc.ly/redoc/logo-mini-full.svg', 'https://cdn.redoc.ly/redoc/logo-mini.svg'];
const INLINE_LOGO =
  'data:image/svg+xml,' +
  encodeURIComponent(
    "<svg xmlns='http://www.w3.org/2000/svg' width='56' height='14'><text x='0' y='11' font-family='sans-serif' font-size='11' fill='#666'>Redocly</text></svg>",
  );

/** The built page with the Redocly logo inlined; fails when Redoc no longer has it, so that this step is revisited. */
function withInlineLogo(file) {
  const html = readFileSync(file, 'utf8');
  if (!REDOCLY_LOGOS.some((url) => html.includes(url))) {
    process.stderr.write(`docs: ${file} no longer loads the Redocly logo from ${REDOCLY_LOGOS[0]}; revisit withInlineLogo in src/tools/build-api.mjs.\n`);
    process.exit(1);
  }
  writeFileSync(
    file,
    REDOCLY_LOGOS.reduce((text, url) => text.split(url).join(INLINE_LOGO), html),
  );
}

/** Builds each Redoc page unless it is newer than its bundle and this script (so `npm start` stays quick). */
function docs() {
  const out = join(root, 'dist', 'docs');
  mkdirSync(out, { recursive: true });
  for (const api of APIS) {
    const bundle = join(root, 'generated', 'openapi', `${api.name}.json`);
    const page = join(out, `${api.name}.html`);
    const sources = Math.max(statSync(bundle).mtimeMs, statSync(fileURLToPath(import.meta.url)).mtimeMs);
    if (existsSync(page) && statSync(page).mtimeMs >= sources) continue;
    process.stdout.write(`docs: building ${api.title} -> dist/docs/${api.name}.html\n`);
    // Written beside the page and renamed: a build that is stopped half-way never leaves a page
    // that looks complete (and newer than its bundle) but is cut short.
    const partial = join(out, `${api.name}.partial.html`);
    run('redocly', ['build-docs', bundle, '--config', config, '--inlineBundle', '--title', api.title, '-o', partial]);
    withInlineLogo(partial);
    renameSync(partial, page);
  }
}

const mode = process.argv[2];
if (mode === '--check') await check();
else if (mode === '--docs') docs();
else if (mode === undefined) {
  await build(join(root, 'generated'));
  copyClientTypes();
} else {
  process.stderr.write(`Unknown option ${mode}; use --check or --docs.\n`);
  process.exit(2);
}

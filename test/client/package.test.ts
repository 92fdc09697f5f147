/**
 * The client as a partner installs it: `npm pack` the client/ package (its prepack builds
 * JavaScript and declarations), install the tarball into a fresh project, compile a small program
 * that imports `@daybook/client` with tsc (strict, module nodenext: the package's `exports` and
 * `types` are what resolve), and run it with plain node against a live Daybook: it writes a value
 * with an OAuth2 access token and reads it back with a simple token.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { startTestApp, type TestApp } from '../support/app';
import { makeClient, makeToken, makeUser } from '../support/fixtures';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '..', '..');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

const PROGRAM = `import { createDaybookClient, createPkce, type ApiResult } from '@daybook/client';

function show<T, E>(result: ApiResult<T, E>): T {
  if (!result.ok) throw new Error(\`HTTP \${result.status}: \${JSON.stringify(result.error)}\`);
  return result.data;
}

async function main(): Promise<void> {
  const [baseUrl, accessToken, simpleToken] = process.argv.slice(2);
  const writer = createDaybookClient({ baseUrl, credentials: { accessToken } });
  const reader = createDaybookClient({ baseUrl, credentials: { simpleToken } });
  const acquired = show(await writer.acquire([{ template: 'steps' }]));
  const written = show(await writer.update([{ name: 'steps', date: '2026-11-21', value: 8412 }]));
  const read = show(await reader.attributesWithValues({ attributes: 'steps', date_max: '2026-11-21', days: 1 }));
  const { codeChallenge, codeVerifier } = createPkce();
  console.log(
    JSON.stringify({
      acquired: acquired.success.map((a) => a.name),
      written: written.success,
      values: read.results.map((a) => [a.name, a.values.map((v) => [v.date, v.value])]),
      pkce: [codeVerifier.length, codeChallenge.length],
    }),
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
`;

let app: TestApp;
let work: string;

beforeAll(async () => {
  app = await startTestApp();
  work = mkdtempSync(path.join(tmpdir(), 'daybook-partner-'));
});
afterAll(async () => {
  await app.close();
  rmSync(work, { recursive: true, force: true });
});

test('the packed client installs, compiles with tsc and runs with node against a live Daybook', async () => {
  // Pack (prepack builds client/dist) into the work folder.
  const packed = await run(npm, ['pack', '--json', '--pack-destination', work], { cwd: path.join(ROOT, 'client') });
  const [{ filename, files }] = JSON.parse(packed.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
  const contents = files.map((f) => f.path);
  expect(contents).toEqual(expect.arrayContaining(['package.json', 'README.md', 'dist/index.js', 'dist/index.d.ts', 'dist/generated/v2.d.ts']));
  expect(contents.filter((f) => f.startsWith('src/'))).toEqual([]);

  // A fresh project, as a partner's: the tarball installed from the registry's cache where it can.
  const project = path.join(work, 'partner-app');
  await run('mkdir', ['-p', path.join(project, 'src')]);
  writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'partner-app', version: '1.0.0', private: true }));
  await run(npm, ['install', '--prefer-offline', '--no-audit', '--no-fund', path.join(work, filename)], { cwd: project });
  writeFileSync(path.join(project, 'src', 'program.ts'), PROGRAM);
  writeFileSync(
    path.join(project, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'nodenext',
        moduleResolution: 'nodenext',
        strict: true,
        outDir: 'dist',
        rootDir: 'src',
        // The partner's own @types/node (here the repository's, to stay offline).
        types: ['node'],
        typeRoots: [path.join(ROOT, 'node_modules', '@types')],
      },
      include: ['src'],
    }),
  );
  const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const compiled = await run(process.execPath, [tsc, '-p', project]).then(
    () => '',
    (error: { stdout?: string }) => error.stdout ?? String(error),
  );
  expect(compiled).toBe('');

  // Run it with plain node: a write with an access token, a read with a simple token.
  const { user, simpleToken } = await makeUser(app, { timezone: 'UTC' });
  const { client } = await makeClient(app, user);
  const tokens = await makeToken(app, user, client, ['activity_read', 'activity_write']);
  const output = await run(process.execPath, [path.join(project, 'dist', 'program.js'), app.baseUrl, tokens.access_token, simpleToken], { cwd: project });
  // An ES module program imports it too (Node reads the CommonJS package's named exports).
  const esm = await run(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      "import { createPkce, operationMethods } from '@daybook/client'; console.log(typeof createPkce, operationMethods.v2.getProfile.methods[0]);",
    ],
    { cwd: project },
  );
  expect(esm.stdout.trim()).toBe('function profile');
  expect(JSON.parse(output.stdout)).toEqual({
    acquired: ['steps'],
    written: [{ name: 'steps', date: '2026-11-21', value: 8412 }],
    values: [['steps', [['2026-11-21', 8412]]]],
    pkce: [43, 43],
  });
}, 240_000);

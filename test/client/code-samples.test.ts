/**
 * client/code-samples.mjs gives the "TypeScript client" sample of every operation of the three
 * documents, and every sample compiles (strict, as an ES module with top-level await) against the
 * client's own types: a partner can paste any of them.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { operationMethods } from '../../client/src';
import { operationContexts, ROOT, type SampleContext } from './operations';

let typedClientSample: (context: SampleContext) => string | undefined;
beforeAll(async () => {
  // An ES module of the docs build (jest's transform lets a test load it).
  ({ typedClientSample } = await import('../../client/code-samples.mjs'));
});

test('every operation has a TypeScript client sample that compiles against the client', async () => {
  const contexts = operationContexts();
  const samples = contexts.map((context) => ({ context, source: typedClientSample(context) }));
  expect(samples.filter((s) => s.source === undefined).map((s) => `${s.context.api} ${s.context.operationId}`)).toEqual([]);
  // Each sample calls the method the client has for its operation, and is the same on each build.
  for (const { context, source } of samples) {
    const { methods } = operationMethods[context.api][context.operationId];
    expect(methods.some((method) => source!.includes(`.${method}(`))).toBe(true);
    expect(typedClientSample(context)).toBe(source);
  }

  const dir = mkdtempSync(path.join(tmpdir(), 'daybook-samples-'));
  try {
    for (const { context, source } of samples) writeFileSync(path.join(dir, `${context.api}-${context.operationId}.mts`), source!);
    writeFileSync(
      path.join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'nodenext',
          moduleResolution: 'nodenext',
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          types: ['node'],
          typeRoots: [path.join(ROOT, 'node_modules', '@types')],
          paths: { '@daybook/client': [path.join(ROOT, 'client', 'src', 'index.ts')] },
        },
        include: ['*.mts'],
      }),
    );
    const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const compiled = await promisify(execFile)(process.execPath, [tsc, '-p', dir], { cwd: dir }).then(
      () => '',
      (error: { stdout?: string }) => error.stdout ?? String(error),
    );
    expect(compiled).toBe('');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 120_000);

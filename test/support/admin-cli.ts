/** The operator CLI (`npm run admin -- …`) as operators run it: the compiled dist/src/bin/admin.js, in a process of its own. */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { PROJECT_ROOT } from '../../src/paths';
import { TEST_SECRET_KEY, type TestApp } from './app';

const run = promisify(execFile);

export interface AdminRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `admin.js args` against the test app's database, with `input` piped to its standard input
 * (closed at once when there is none) and `env` added to the little it gets (PATH, DATABASE_URL,
 * SECRET_KEY). Answers its exit code and output, whatever the code.
 */
export async function runAdmin(app: TestApp, args: string[], options: { input?: string; env?: Record<string, string> } = {}): Promise<AdminRun> {
  const running = run(process.execPath, [path.join(PROJECT_ROOT, 'dist/src/bin/admin.js'), ...args], {
    env: { PATH: process.env.PATH ?? '', DATABASE_URL: app.deps.config.databaseUrl!, SECRET_KEY: TEST_SECRET_KEY, ...options.env },
  });
  running.child.stdin!.end(options.input ?? '');
  try {
    const { stdout, stderr } = await running;
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as AdminRun;
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/**
 * Programs the documentation tests run as a partner would (curl, openssl), found on the PATH. A
 * missing program fails the test with what to install, never skips it; openssl, which the quick
 * start needs and a slim CI image may lack, is installed with apt-get when the tests run as root
 * (as chromium.ts does for the browser).
 */
import { execFileSync } from 'node:child_process';

function found(command: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Fails with a clear message when `command` is not installed. */
export function requireCommand(command: string, why: string): void {
  if (!found(command)) throw new Error(`${command} is not installed: ${why} (install it, e.g. apt-get install -y ${command}).`);
}

/** Installs Debian's package `command` when it is missing and the tests run as root; else as requireCommand. */
export function ensureCommand(command: string, why: string): void {
  if (found(command)) return;
  if (typeof process.getuid === 'function' && process.getuid() === 0) {
    execFileSync('sh', ['-c', `apt-get update && apt-get install -y ${command}`], {
      stdio: 'inherit',
      timeout: 10 * 60 * 1000,
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  }
  requireCommand(command, why);
}

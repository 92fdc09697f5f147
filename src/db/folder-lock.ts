/**
 * One live process per embedded data folder. The process that starts the folder's PostgreSQL holds
 * `<folder>.lock` (its pid, the pid's start time and its command) for its lifetime; a second start
 * finds a live holder and refuses, instead of taking the cluster over from under the first. A lock
 * whose process is gone (a `kill -9`) is stale and taken over, so a restart still recovers.
 */
import fs from 'node:fs';

/** A start refused for a reason an operator can act on: printed as one line, never a stack. */
export class StartRefused extends Error {}

interface LockContent {
  pid: number;
  /** The process's start time (field 22 of /proc/<pid>/stat), so a reused pid is not taken for the holder. */
  started: string | null;
  command: string;
}

/** Start time of a process in clock ticks since boot, or null where /proc cannot tell. */
function startTimeOf(pid: number): string | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces or parentheses) begin at field 3.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Is the recorded holder the very process that wrote the lock, still running? */
function holderAlive(lock: LockContent): boolean {
  if (!Number.isInteger(lock.pid) || lock.pid <= 0 || !isAlive(lock.pid)) return false;
  return lock.started === null || startTimeOf(lock.pid) === lock.started;
}

function readLock(file: string): LockContent | undefined {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as LockContent;
  } catch {
    return undefined; // gone, or half-written by a process killed while writing it: stale either way
  }
}

export interface FolderLock {
  release(): void;
}

/**
 * Takes the lock of `dir` for this process, or throws StartRefused naming the live holder. The lock
 * is released by `release()` and, failing that, when this process exits.
 */
export function lockDataFolder(dir: string): FolderLock {
  const file = `${dir}.lock`;
  const mine: LockContent = { pid: process.pid, started: startTimeOf(process.pid), command: process.argv.slice(1).join(' ') };
  for (let attempt = 0; ; attempt++) {
    try {
      // 'wx' creates the file only if it does not exist: of two starts at once, one wins.
      fs.writeFileSync(file, JSON.stringify(mine) + '\n', { flag: 'wx', mode: 0o644 });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = readLock(file);
      if (holder && holderAlive(holder)) {
        throw new StartRefused(
          `the data folder ${dir} is in use by process ${holder.pid} (${holder.command}); stop it first,` +
            ' or run a second instance with another DATA_DIR, PORT and EMBEDDED_PG_PORT' +
            " (or point DATABASE_URL at the first one's database).",
        );
      }
      if (attempt >= 2) throw new StartRefused(`the lock ${file} keeps changing; is another start running at the same time?`);
      fs.rmSync(file, { force: true }); // stale: its process is gone
    }
  }
  let held = true;
  const release = () => {
    if (!held) return;
    held = false;
    // Only our own lock: never remove one a later holder wrote.
    if (readLock(file)?.pid === process.pid) fs.rmSync(file, { force: true });
  };
  process.once('exit', release);
  return {
    release() {
      process.removeListener('exit', release);
      release();
    },
  };
}

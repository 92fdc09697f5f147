/**
 * CPU and memory of the processes involved, read from /proc (Linux):
 * - CPU: utime + stime of /proc/<pid>/stat. For Postgres, the postmaster's own time plus the time
 *   of the backends it already reaped (cutime + cstime) plus its live children's, so backends that
 *   come and go are all counted. The load generator is this process (autocannon runs in it).
 * - Memory: VmHWM of /proc/<pid>/status, the peak resident set; writing 5 to clear_refs resets it,
 *   so each measurement reports its own peak.
 * Figures are percent of one core (200 % is both cores of this machine).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

const TICKS_PER_SECOND = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** utime, stime, cutime, cstime and ppid of a process, or undefined when it is gone. */
function stat(pid: number): { utime: number; stime: number; cutime: number; cstime: number; ppid: number } | undefined {
  try {
    const text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may contain spaces), from field 3 (state) on.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { ppid: Number(fields[1]), utime: Number(fields[11]), stime: Number(fields[12]), cutime: Number(fields[13]), cstime: Number(fields[14]) };
  } catch {
    return undefined;
  }
}

/** CPU seconds used by a process so far. */
export function processCpuSeconds(pid: number): number {
  const s = stat(pid);
  return s ? (s.utime + s.stime) / TICKS_PER_SECOND : NaN;
}

/** CPU seconds used by a Postgres server so far: the postmaster, its reaped and its live children. */
export function postgresCpuSeconds(postmasterPid: number): number {
  const main = stat(postmasterPid);
  if (!main) return NaN;
  let ticks = main.utime + main.stime + main.cutime + main.cstime;
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const child = stat(Number(entry));
    if (child?.ppid === postmasterPid) ticks += child.utime + child.stime;
  }
  return ticks / TICKS_PER_SECOND;
}

function statusField(pid: number, field: string): number {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : NaN;
  } catch {
    return NaN;
  }
}

/** Peak resident set size in bytes since start or the last `resetPeakRss`. */
export function peakRss(pid: number): number {
  return statusField(pid, 'VmHWM');
}

/** Starts a new peak-RSS window for the process; false when the kernel refuses. */
export function resetPeakRss(pid: number): boolean {
  try {
    fs.writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

export interface CpuFigures {
  /** Percent of one core over the measurement. */
  service: number;
  postgres: number;
  loadGenerator: number;
  /**
   * Everything else the machine ran meanwhile (all cores' busy time minus the three above): on a
   * shared machine, a high figure marks a measurement disturbed by other work.
   */
  others: number;
}

/** Busy CPU seconds of the whole machine so far (all cores), from /proc/stat. */
function machineBusySeconds(): number {
  try {
    const fields = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    const [user, nice, system, , , irq, softirq] = fields;
    return (user + nice + system + irq + softirq) / TICKS_PER_SECOND;
  } catch {
    return NaN;
  }
}

/** Starts measuring the CPU of the server under test, Postgres and this process; `stop` gives the percentages. */
export function cpuMeter(servicePid: number, postmasterPid: number | undefined): { stop(): CpuFigures } {
  const t0 = performance.now();
  const service0 = processCpuSeconds(servicePid);
  const postgres0 = postmasterPid ? postgresCpuSeconds(postmasterPid) : NaN;
  const self0 = process.cpuUsage();
  const machine0 = machineBusySeconds();
  return {
    stop() {
      const wall = (performance.now() - t0) / 1000;
      const self = process.cpuUsage(self0);
      const service = ((processCpuSeconds(servicePid) - service0) / wall) * 100;
      const postgres = postmasterPid ? ((postgresCpuSeconds(postmasterPid) - postgres0) / wall) * 100 : NaN;
      const loadGenerator = ((self.user + self.system) / 1e6 / wall) * 100;
      const machine = ((machineBusySeconds() - machine0) / wall) * 100;
      return { service, postgres, loadGenerator, others: Math.max(0, machine - service - (postgres || 0) - loadGenerator) };
    },
  };
}

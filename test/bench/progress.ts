/**
 * Progress on the terminal (and in a log file: without a TTY the bars print a line every few
 * seconds), and the timing of steps.
 */
import cliProgress from 'cli-progress';

/** Prints a line with the time since the bench started. */
const started = Date.now();
export function say(message: string): void {
  const seconds = Math.round((Date.now() - started) / 1000);
  const clock = `${String(Math.floor(seconds / 60)).padStart(3, ' ')}m${String(seconds % 60).padStart(2, '0')}s`;
  process.stdout.write(`[${clock}] ${message}\n`);
}

export interface Bar {
  update(value: number, detail?: string): void;
  increment(by?: number, detail?: string): void;
  stop(): void;
}

/** A progress bar over `total` units, with an ETA and a free-text detail. */
export function progressBar(title: string, total: number, unit = ''): Bar {
  const bar = new cliProgress.SingleBar(
    {
      format: `  ${title} [{bar}] {percentage}% | {value}/{total}${unit ? ' ' + unit : ''} | {duration_formatted} elapsed, ETA {eta_formatted} | {detail}`,
      barsize: 24,
      hideCursor: true,
      noTTYOutput: true,
      notTTYSchedule: 5000,
      etaBuffer: 50,
      fps: 5,
      stream: process.stdout,
    },
    cliProgress.Presets.shades_classic,
  );
  bar.start(total, 0, { detail: '' });
  return {
    update: (value, detail = '') => bar.update(value, { detail }),
    increment: (by = 1, detail) => bar.increment(by, detail === undefined ? undefined : { detail }),
    stop: () => bar.stop(),
  };
}

/** Runs `work`, saying when it starts and how long it took; returns its result and the seconds. */
export async function timed<T>(title: string, work: () => Promise<T>): Promise<{ result: T; seconds: number }> {
  say(`${title}…`);
  const t0 = performance.now();
  const result = await work();
  const seconds = (performance.now() - t0) / 1000;
  say(`${title}: done in ${seconds.toFixed(1)} s`);
  return { result, seconds };
}

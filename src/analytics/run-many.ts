/**
 * Derives many people one after another with a progress bar (cli-progress, on stderr) and adds up
 * what was done: shared by `npm run derive` and the derive benchmark.
 */
import cliProgress from 'cli-progress';
import type { Knex } from 'knex';
import { deriveUser, type DeriveSummary } from './derive';

/** Totals of a run over several people. */
export interface DeriveTotals {
  users: number;
  /** Numeric attributes loaded, summed over people. */
  attributes: number;
  /** Attribute pairs tested (each at offset 0 and -1 both ways), summed over people. */
  pairs: number;
  /** Correlation tests run. */
  tests: number;
  published: number;
  averages: number;
  insights: number;
  values: number;
  seconds: number;
  usersPerMinute: number;
}

export function addUp(summaries: DeriveSummary[], seconds: number): DeriveTotals {
  const sum = (pick: (s: DeriveSummary) => number) => summaries.reduce((total, s) => total + pick(s), 0);
  return {
    users: summaries.length,
    attributes: sum((s) => s.attributes),
    pairs: sum((s) => (s.tested * (s.tested - 1)) / 2),
    tests: sum((s) => s.tests),
    published: sum((s) => s.published),
    averages: sum((s) => s.averages),
    insights: sum((s) => s.insights),
    values: sum((s) => s.values),
    seconds,
    usersPerMinute: seconds > 0 ? (summaries.length / seconds) * 60 : 0,
  };
}

/** Derives each person in turn, showing progress; returns each summary and the totals. */
export async function deriveMany(
  db: Knex,
  people: ReadonlyArray<{ id: number; username: string }>,
  options: { now: () => Date; label?: string; progress?: boolean },
): Promise<{ summaries: DeriveSummary[]; totals: DeriveTotals }> {
  const bar = new cliProgress.SingleBar(
    {
      format: `${options.label ?? 'Deriving'} |{bar}| {value}/{total} users | {eta_formatted} left | {user}`,
      stream: process.stderr,
      hideCursor: true,
      clearOnComplete: false,
    },
    cliProgress.Presets.shades_classic,
  );
  const show = options.progress ?? true;
  if (show) bar.start(people.length, 0, { user: '' });
  const summaries: DeriveSummary[] = [];
  const started = performance.now();
  try {
    for (const person of people) {
      if (show) bar.update({ user: person.username });
      const summary = await deriveUser(db, person.id, { now: options.now() });
      if (summary) summaries.push(summary);
      if (show) bar.increment();
    }
  } finally {
    if (show) bar.stop();
  }
  return { summaries, totals: addUp(summaries, (performance.now() - started) / 1000) };
}

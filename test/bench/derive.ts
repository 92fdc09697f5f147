/**
 * The cost of derived data on the bench's dataset: every user's weekly derive (averages,
 * correlations, insights; `deriveUser` from src/analytics, the function the queue's workers run),
 * timed as users per minute with `concurrency` derives at a time, as that many workers would run
 * them; then one user's derive run again a few times, for its median. It also leaves the
 * correlations the read scenarios list.
 */
import { createKnex } from '../../src/db/knex';
import { deriveUser, type DeriveSummary } from '../../src/analytics/derive';
import { progressBar, say } from './progress';
import { quantile } from './drive';

export interface DeriveReport {
  /** Users derived in the timed pass. */
  users: number;
  concurrency: number;
  seconds: number;
  usersPerMinute: number;
  /** One user's derive, re-run `runs` times (milliseconds). */
  oneUser: { userId: number; runs: number; medianMs: number; minMs: number; maxMs: number; attributes: number; tests: number; published: number; values: number };
  /** Sum over the pass. */
  totals: { tests: number; published: number; averages: number; insights: number; values: number };
}

/** Derives `userIds` (all of them, `concurrency` at a time) and re-runs one user's derive `runs` times. */
export async function benchDerive(url: string, userIds: number[], options: { now: Date; concurrency: number; runs: number }): Promise<DeriveReport> {
  const db = createKnex(url, { pool: { min: 0, max: options.concurrency + 2 } });
  try {
    const bar = progressBar('derive', userIds.length, 'users');
    const totals = { tests: 0, published: 0, averages: 0, insights: 0, values: 0 };
    let next = 0;
    const t0 = performance.now();
    const worker = async () => {
      while (next < userIds.length) {
        const summary = await deriveUser(db, userIds[next++], { now: options.now });
        if (summary) {
          totals.tests += summary.tests;
          totals.published += summary.published;
          totals.averages += summary.averages;
          totals.insights += summary.insights;
          totals.values += summary.values;
        }
        bar.increment(1, summary ? `last: ${summary.ms.toFixed(0)} ms, ${summary.tests} tests, ${summary.published} published` : '');
      }
    };
    await Promise.all(Array.from({ length: options.concurrency }, worker));
    const seconds = (performance.now() - t0) / 1000;
    bar.stop();

    const userId = userIds[Math.floor(userIds.length / 2)];
    const times: number[] = [];
    let last: DeriveSummary | undefined;
    for (let i = 0; i < options.runs; i++) {
      const t = performance.now();
      last = await deriveUser(db, userId, { now: options.now });
      times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    const report: DeriveReport = {
      users: userIds.length,
      concurrency: options.concurrency,
      seconds,
      usersPerMinute: (userIds.length / seconds) * 60,
      oneUser: {
        userId,
        runs: options.runs,
        medianMs: quantile(times, 0.5),
        minMs: times[0],
        maxMs: times[times.length - 1],
        attributes: last?.attributes ?? 0,
        tests: last?.tests ?? 0,
        published: last?.published ?? 0,
        values: last?.values ?? 0,
      },
      totals,
    };
    say(
      `Derived data: ${report.users} users in ${seconds.toFixed(1)} s (${report.usersPerMinute.toFixed(0)} users/minute, ${options.concurrency} at a time); ` +
        `one user's weekly derive ${report.oneUser.medianMs.toFixed(0)} ms (median of ${options.runs}; ${report.oneUser.tests} tests, ${report.oneUser.published} published)`,
    );
    return report;
  } finally {
    await db.destroy();
  }
}

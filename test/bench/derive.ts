/**
 * The derived-data step of `npm run bench`: the cost of derived data on the bench's own dataset.
 * It reuses the derived-data team's pieces rather than timing its own loop: `deriveMany`
 * (src/analytics/run-many.ts, what `npm run derive` and `npm run bench:derive` use) runs every
 * user's weekly derive one after another, as one queue worker does (users per minute), then
 * one user's derive (`deriveUser`, the function the workers run) is repeated for its median and
 * its phases. It also leaves the correlations the read scenarios list.
 *
 * `npm run bench:derive` is the derived-data team's own, more detailed benchmark (60 attributes x
 * 365 days per person on a cluster of its own); this step measures the same functions on the
 * bench's dataset so that the figures sit beside the API's.
 */
import { createKnex } from '../../src/db/knex';
import { deriveUser, type DeriveSummary } from '../../src/analytics/derive';
import { deriveMany, type DeriveTotals } from '../../src/analytics/run-many';
import { say } from './progress';
import { quantile } from './drive';

export interface DeriveReport {
  /** Every user, one after another (one worker). */
  all: DeriveTotals;
  /** One user's derive, re-run `runs` times after one unmeasured run (milliseconds). */
  oneUser: {
    userId: number;
    runs: number;
    medianMs: number;
    minMs: number;
    maxMs: number;
    phases: DeriveSummary['phases'];
    attributes: number;
    tests: number;
    published: number;
    values: number;
  };
}

const median = (values: number[]) =>
  quantile(
    [...values].sort((a, b) => a - b),
    0.5,
  );

/** Derives `userIds` in turn (timed as one worker would run them), then one of them `runs` more times. */
export async function benchDerive(url: string, userIds: number[], options: { now: Date; runs: number }): Promise<DeriveReport> {
  const db = createKnex(url, { pool: { min: 0, max: 4 } });
  try {
    const people = userIds.map((id) => ({ id, username: `user ${id}` }));
    const { totals } = await deriveMany(db, people, { now: () => options.now, label: '  derive' });
    const userId = userIds[Math.floor(userIds.length / 2)];
    await deriveUser(db, userId, { now: options.now });
    const runs: DeriveSummary[] = [];
    for (let i = 0; i < options.runs; i++) runs.push((await deriveUser(db, userId, { now: options.now }))!);
    const times = runs.map((r) => r.ms).sort((a, b) => a - b);
    const report: DeriveReport = {
      all: totals,
      oneUser: {
        userId,
        runs: runs.length,
        medianMs: median(times),
        minMs: times[0],
        maxMs: times[times.length - 1],
        phases: {
          loadMs: median(runs.map((r) => r.phases.loadMs)),
          computeMs: median(runs.map((r) => r.phases.computeMs)),
          writeMs: median(runs.map((r) => r.phases.writeMs)),
        },
        attributes: runs[0].attributes,
        tests: runs[0].tests,
        published: runs[0].published,
        values: runs[0].values,
      },
    };
    say(
      `Derived data: ${totals.users} users in ${totals.seconds.toFixed(1)} s (${totals.usersPerMinute.toFixed(0)} users/minute, one worker); ` +
        `one user's weekly derive ${report.oneUser.medianMs.toFixed(0)} ms (median of ${runs.length}; load ${report.oneUser.phases.loadMs.toFixed(0)}, ` +
        `compute ${report.oneUser.phases.computeMs.toFixed(0)}, write ${report.oneUser.phases.writeMs.toFixed(0)} ms)`,
    );
    return report;
  } finally {
    await db.destroy();
  }
}

/**
 * The p-value of a correlation: the two-sided test of r = 0 with Student's t distribution on n - 2
 * degrees of freedom, t = r * sqrt((n - 2) / (1 - r^2)). The t CDF is @stdlib's (a port of Boost's
 * incomplete beta: relative accuracy near machine precision even for p far below 1e-100); jstat's
 * continued fraction stops at a relative 3e-7, too loose for the 1e-6 we promise.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
import tCdf = require('@stdlib/stats-base-dists-t-cdf');

/** Two-sided p-value of Pearson's r over n pairs (n >= 3). |r| = 1 gives 0. */
export function correlationPValue(r: number, n: number): number {
  if (!(n >= 3) || !Number.isFinite(r)) return NaN;
  const df = n - 2;
  const r2 = Math.min(1, r * r);
  if (r2 === 1) return 0;
  const t = Math.abs(r) * Math.sqrt(df / (1 - r2));
  // P(|T| >= t) = 2 * P(T <= -t): the lower tail directly, never 1 - cdf, which would lose
  // every significant digit of a small p.
  return Math.min(1, 2 * tCdf(-t, df));
}

/**
 * Benjamini-Hochberg adjusted p-values (q-values), which control the false discovery rate of a
 * family of tests: among the tests with q < alpha, the expected share of false findings is at most
 * alpha. Daybook tests every pair of a person's attributes at both offsets each week as one family.
 */

/**
 * q for each p, in the input's order: q_(i) = min over j >= i of (m / j) * p_(j), capped at 1,
 * where p_(1) <= ... <= p_(m) are the sorted p-values. A NaN p gets q NaN and does not count in m.
 */
export function benjaminiHochberg(ps: readonly number[]): number[] {
  const order = ps
    .map((p, index) => ({ p, index }))
    .filter((entry) => !Number.isNaN(entry.p))
    .sort((a, b) => a.p - b.p || a.index - b.index);
  const m = order.length;
  const qs = new Array<number>(ps.length).fill(NaN);
  let running = 1;
  for (let rank = m; rank >= 1; rank--) {
    const { p, index } = order[rank - 1];
    running = Math.min(running, (m / rank) * p);
    qs[index] = Math.min(1, running);
  }
  return qs;
}

/**
 * The median, which Daybook shows people as their "average" (the v2 document's Averages: they are
 * in fact medians).
 */

/**
 * The median of `values`: the middle value of the sorted values, or the mean of the two middle
 * ones for an even count. Non-finite values are ignored; no finite value gives NaN. The input is
 * not modified.
 */
export function median(values: ArrayLike<number>): number {
  const sorted: number[] = [];
  for (let i = 0; i < values.length; i++) {
    if (Number.isFinite(values[i])) sorted.push(values[i]);
  }
  if (sorted.length === 0) return NaN;
  sorted.sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * Time intervals kept flat (start, end, start's offset, end's offset: four numbers each) so a
 * night of sleep stages costs a few numbers, not objects. Merging keeps the offsets of the ends
 * it keeps, so local clock times come out as the records gave them.
 */

export const STRIDE = 4;

/** Intervals closer than this are one (sleep stages follow each other to the second, or nearly). */
const TOUCH_MS = 60_000;

/** Sorted, overlapping and touching intervals merged into one. */
export function mergeIntervals(flat: readonly number[]): number[] {
  const order: number[] = [];
  for (let i = 0; i < flat.length; i += STRIDE) order.push(i);
  order.sort((a, b) => flat[a] - flat[b]);
  const out: number[] = [];
  for (const i of order) {
    const last = out.length - STRIDE;
    if (last >= 0 && flat[i] <= out[last + 1] + TOUCH_MS) {
      if (flat[i + 1] > out[last + 1]) {
        out[last + 1] = flat[i + 1];
        out[last + 3] = flat[i + 3];
      }
    } else out.push(flat[i], flat[i + 1], flat[i + 2], flat[i + 3]);
  }
  return out;
}

/** Total length of merged intervals, in milliseconds. */
export function totalMs(merged: readonly number[]): number {
  let ms = 0;
  for (let i = 0; i < merged.length; i += STRIDE) ms += merged[i + 1] - merged[i];
  return ms;
}

/** Merged intervals cut into runs wherever the gap between two is longer than `gapMs`. */
export function splitAtGaps(merged: readonly number[], gapMs: number): number[][] {
  const runs: number[][] = [];
  let run: number[] = [];
  for (let i = 0; i < merged.length; i += STRIDE) {
    if (run.length > 0 && merged[i] - run[run.length - STRIDE + 1] > gapMs) {
      runs.push(run);
      run = [];
    }
    run.push(merged[i], merged[i + 1], merged[i + 2], merged[i + 3]);
  }
  if (run.length > 0) runs.push(run);
  return runs;
}

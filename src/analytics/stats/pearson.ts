/**
 * Pearson's correlation coefficient r. A binary series (a custom tag, a 0/1 boolean) correlated
 * with a numeric one by Pearson's formula is the point-biserial correlation, so one formula serves
 * every numeric value type; scales are used as their numbers (see correlations.ts).
 */

/** r and the number of pairs it was computed over. */
export interface PearsonResult {
  r: number;
  n: number;
}

/**
 * r over the pairs (x[i], y[i + lag]) where both values are finite (NaN marks a day without data).
 * Undefined when fewer than `minPairs` pairs remain (at least 3) or when either side is constant
 * over those pairs: such series never produce a correlation.
 *
 * One pass of sums. Centre each series on a typical value first (`centredSeries`) so large values
 * with little spread (weights around 75 kg, say) keep their precision: the sums are then of small
 * deviations, not of large squares that cancel.
 */
export function pairedPearson(x: Float64Array, y: Float64Array, lag: number, minPairs = 3): PearsonResult | undefined {
  let n = 0;
  let sx = 0;
  let sy = 0;
  let sxx = 0;
  let syy = 0;
  let sxy = 0;
  let xFirst = NaN;
  let yFirst = NaN;
  let xVaries = false;
  let yVaries = false;
  const start = Math.max(0, -lag);
  const end = Math.min(x.length, y.length - lag);
  for (let i = start; i < end; i++) {
    const a = x[i];
    const b = y[i + lag];
    // NaN fails every comparison, so `a === a` is the cheapest finiteness test for our data
    // (the loader turns infinities into NaN).
    if (a !== a || b !== b) continue;
    if (n === 0) {
      xFirst = a;
      yFirst = b;
    } else {
      if (a !== xFirst) xVaries = true;
      if (b !== yFirst) yVaries = true;
    }
    n++;
    sx += a;
    sy += b;
    sxx += a * a;
    syy += b * b;
    sxy += a * b;
  }
  if (n < Math.max(3, minPairs) || !xVaries || !yVaries) return undefined;
  const vx = sxx - (sx * sx) / n;
  const vy = syy - (sy * sy) / n;
  const cov = sxy - (sx * sy) / n;
  if (!(vx > 0) || !(vy > 0)) return undefined;
  const r = cov / Math.sqrt(vx * vy);
  if (!Number.isFinite(r)) return undefined;
  return { r: Math.max(-1, Math.min(1, r)), n };
}

/** Pearson's r of two equally long arrays of numbers (NaN pairs skipped); undefined as above. */
export function pearson(xs: readonly number[], ys: readonly number[]): PearsonResult | undefined {
  if (xs.length !== ys.length) throw new RangeError('pearson: the two series must be equally long');
  return pairedPearson(centredSeries(xs), centredSeries(ys), 0);
}

/**
 * The series as a Float64Array with its mean subtracted (non-finite values become NaN). r does not
 * change when a constant is subtracted from a series; precision does.
 */
export function centredSeries(values: ArrayLike<number>): Float64Array {
  const out = new Float64Array(values.length);
  let sum = 0;
  let count = 0;
  for (let i = 0; i < values.length; i++) {
    if (Number.isFinite(values[i])) {
      sum += values[i];
      count++;
    }
  }
  const mean = count > 0 ? sum / count : 0;
  for (let i = 0; i < values.length; i++) out[i] = Number.isFinite(values[i]) ? values[i] - mean : NaN;
  return out;
}

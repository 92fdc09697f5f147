/**
 * The statistics against values computed independently: hand-checked small cases, published
 * reference values (Anscombe's quartet, the table of critical values of r), and a reference
 * implementation (mpmath's regularised incomplete beta at 50 digits, SciPy 1.17 for Pearson's r and
 * the Benjamini-Hochberg adjustment; the values are pasted here, computed once).
 */
import { median } from '../../src/analytics/stats/median';
import { centredSeries, pairedPearson, pearson } from '../../src/analytics/stats/pearson';
import { correlationPValue } from '../../src/analytics/stats/p-value';
import { benjaminiHochberg } from '../../src/analytics/stats/benjamini-hochberg';

/** |actual - expected| <= tolerance * |expected|. */
function expectRelative(actual: number, expected: number, tolerance: number): void {
  expect(Math.abs(actual - expected)).toBeLessThanOrEqual(tolerance * Math.abs(expected));
}

describe('median', () => {
  test('an odd count is the middle value, whatever the order', () => {
    expect(median([5, 1, 3])).toBe(3);
    expect(median([9])).toBe(9);
  });

  test('an even count is the mean of the two middle values', () => {
    expect(median([1, 2, 3, 4])).toBe(2.5);
    expect(median([8804, 8805])).toBe(8804.5);
    expect(median([7, 7, 1, 9])).toBe(7);
    expect(median([-3, -1])).toBe(-2);
  });

  test('days without data (NaN) are left out, and no data is NaN', () => {
    expect(median([NaN, 4, NaN, 2])).toBe(3);
    expect(median([])).toBeNaN();
    expect(median([NaN])).toBeNaN();
  });

  test('does not reorder its input', () => {
    const values = [3, 1, 2];
    median(values);
    expect(values).toEqual([3, 1, 2]);
  });
});

describe("Pearson's r", () => {
  test('a hand-checked small case: x = 1..5, y = 2, 4, 5, 4, 5 gives r = 6 / sqrt(60) = 0.7746', () => {
    // sxy = 6, sxx = 10, syy = 6: r = 6 / sqrt(60)
    expectRelative(pearson([1, 2, 3, 4, 5], [2, 4, 5, 4, 5])!.r, 6 / Math.sqrt(60), 1e-12);
  });

  test("Anscombe's quartet: four different shapes, all r = 0.816 (published), exact to SciPy", () => {
    const x = [10, 8, 13, 9, 11, 14, 6, 4, 12, 7, 5];
    const quartet: Array<[number[], number[], number]> = [
      [x, [8.04, 6.95, 7.58, 8.81, 8.33, 9.96, 7.24, 4.26, 10.84, 4.82, 5.68], 0.8164205163448395],
      [x, [9.14, 8.14, 8.74, 8.77, 9.26, 8.1, 6.13, 3.1, 9.13, 7.26, 4.74], 0.8162365060002426],
      [x, [7.46, 6.77, 12.74, 7.11, 7.81, 8.84, 6.08, 5.39, 8.15, 6.42, 5.73], 0.816286739489598],
      [[8, 8, 8, 8, 8, 8, 8, 19, 8, 8, 8], [6.58, 5.76, 7.71, 8.84, 8.47, 7.04, 5.25, 12.5, 5.56, 7.91, 6.89], 0.8165214368885028],
    ];
    for (const [xs, ys, expected] of quartet) {
      const result = pearson(xs, ys)!;
      expect(result.n).toBe(11);
      expect(Math.abs(result.r - 0.816)).toBeLessThan(0.001);
      expectRelative(result.r, expected, 1e-12);
    }
  });

  test('exact linear relationships give +1 and -1', () => {
    expect(pearson([1, 2, 3, 4], [3, 5, 7, 9])!.r).toBeCloseTo(1, 12);
    expect(pearson([1, 2, 3, 4], [8, 6, 4, 2])!.r).toBeCloseTo(-1, 12);
  });

  test('large values with little spread keep their precision (centred before summing)', () => {
    const noise = [0.3, -0.1, 0.25, -0.4, 0.05, 0.2, -0.3, 0.1];
    const other = [1, 2, 2, 0, 1, 3, 0, 2];
    const expected = pearson(noise, other)!.r;
    expectRelative(
      pearson(
        noise.map((v) => 1e9 + v),
        other,
      )!.r,
      expected,
      1e-6,
    );
  });

  test('days without data on either side are left out pairwise', () => {
    const r = pearson([1, NaN, 2, 3, 4, 5], [2, 100, 4, 5, 4, 5])!;
    expect(r.n).toBe(5);
    expectRelative(r.r, 6 / Math.sqrt(60), 1e-12);
  });

  test('a constant series, too few pairs or no overlap never give a correlation', () => {
    expect(pearson([1, 2, 3, 4], [5, 5, 5, 5])).toBeUndefined();
    expect(pearson([2, 2, 2, 2], [1, 2, 3, 4])).toBeUndefined();
    expect(pearson([1, 2], [3, 4])).toBeUndefined();
    expect(pearson([1, 2, NaN, NaN], [NaN, NaN, 3, 4])).toBeUndefined();
    // Constant over the paired days although each varies overall.
    expect(pearson([1, 1, 1, 9, NaN], [1, 2, 3, NaN, 7])).toBeUndefined();
    const x = centredSeries([1, 2, 3, 4, 5, 6]);
    expect(pairedPearson(x, x, 0, 30)).toBeUndefined();
    expect(pairedPearson(x, x, 0, 6)!.r).toBeCloseTo(1, 12);
  });

  test('a lag of 1 pairs x on one day with y on the next', () => {
    const x = centredSeries([1, 5, 2, 8, 3, 7]);
    const y = centredSeries([0, 1, 5, 2, 8, 3]); // y[i + 1] = x[i]
    const result = pairedPearson(x, y, 1)!;
    expect(result.n).toBe(5);
    expect(result.r).toBeCloseTo(1, 12);
  });
});

describe('p-value of r (t distribution, n - 2 degrees of freedom)', () => {
  test('matches the reference implementation to 1e-6 relative (mpmath, 50 digits)', () => {
    /* eslint-disable no-loss-of-precision -- the reference values as mpmath printed them */
    const cases: Array<[number, number, number]> = [
      [0.5, 10, 0.14111328125],
      [0.3, 30, 0.10724594805795436],
      [0.1, 365, 0.05629678874547748],
      [0.05, 100, 0.6212899778453027],
      [0.35, 3, 0.7723631653919704],
      [0.2, 365, 0.00011965875685201241],
      [0.9, 30, 1.316606070026389e-11],
      [0.6, 309, 1.3366817988537641e-31],
      [-0.5577851552276848, 309, 1.1564227190131276e-26],
      [0.8, 365, 1.537569671576276e-82],
    ];
    /* eslint-enable no-loss-of-precision */
    for (const [r, n, expected] of cases) expectRelative(correlationPValue(r, n), expected, 1e-6);
  });

  test('the published table of critical values of r (two-tailed, alpha 0.05) lands on p = 0.05', () => {
    // df 10: 0.576, df 18: 0.444, df 30: 0.349, df 100: 0.195 (three decimals, so p within 1%).
    for (const [df, critical] of [
      [10, 0.576],
      [18, 0.444],
      [30, 0.349],
      [100, 0.195],
    ]) {
      expectRelative(correlationPValue(critical, df + 2), 0.05, 0.01);
    }
  });

  test("Anscombe's quartet: p = 0.00217 (SciPy's pearsonr)", () => {
    expectRelative(correlationPValue(0.8164205163448395, 11), 0.0021696288730788152, 1e-6);
  });

  test('a binary series: the point-biserial r and its p equal the two-sample t test (SciPy)', () => {
    const tag = [1, 0, 0, 1, 1, 0, 1, 0, 0, 0, 1, 1, 0, 1, 0, 0, 1, 0, 1, 1];
    const values = [7.1, 5.2, 6.0, 6.8, 7.9, 5.5, 6.9, 6.1, 4.8, 5.9, 7.4, 6.2, 5.0, 7.7, 6.6, 5.1, 6.4, 5.8, 7.0, 6.0];
    const { r, n } = pearson(tag, values)!;
    expectRelative(r, 0.7629910631647003, 1e-12);
    expectRelative(correlationPValue(r, n), 9.128459288709905e-5, 1e-6);
  });

  test('symmetric in the sign of r; r = 0 gives 1; |r| = 1 gives 0; fewer than 3 pairs is NaN', () => {
    expect(correlationPValue(-0.3, 30)).toBe(correlationPValue(0.3, 30));
    expect(correlationPValue(0, 50)).toBeCloseTo(1, 12);
    expect(correlationPValue(1, 50)).toBe(0);
    expect(correlationPValue(-1, 50)).toBe(0);
    expect(correlationPValue(0.999, 365)).toBe(0); // 5.2e-492 underflows a double
    expect(correlationPValue(0.5, 2)).toBeNaN();
  });
});

describe('Benjamini-Hochberg', () => {
  test('matches SciPy false_discovery_control, in the input order', () => {
    const ps = [0.01, 0.04, 0.03, 0.005, 0.5, 0.2, 0.0001, 0.049];
    const expected = [0.026666666666666665, 0.064, 0.06, 0.02, 0.5, 0.22857142857142856, 0.0008, 0.06533333333333333];
    benjaminiHochberg(ps).forEach((q, i) => expectRelative(q, expected[i], 1e-12));
  });

  test('a hand-checked case: q_(i) = min over j >= i of m/j p_(j), capped at 1', () => {
    // sorted p: 0.01, 0.02, 0.03, 0.9 with m = 4 -> 0.04, 0.04, 0.04, 0.9
    expect(benjaminiHochberg([0.03, 0.01, 0.9, 0.02]).map((q) => Number(q.toFixed(12)))).toEqual([0.04, 0.04, 0.9, 0.04]);
    expect(benjaminiHochberg([0.9, 0.95])).toEqual([0.95, 0.95]);
    expect(benjaminiHochberg([])).toEqual([]);
  });

  test('NaN p-values are not counted and get NaN', () => {
    const qs = benjaminiHochberg([0.01, NaN, 0.02]);
    expect(qs[1]).toBeNaN();
    expect(qs[0]).toBeCloseTo(0.02, 12);
    expect(qs[2]).toBeCloseTo(0.02, 12);
  });
});

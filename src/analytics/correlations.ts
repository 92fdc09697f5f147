/**
 * The weekly correlations of one person (docs/decisions.md, "Derived data").
 *
 * - Window: the 365 days before the set's date. Pairs: every two numeric attributes; offset 0
 *   (same day, once per unordered pair, `attribute` first in list order) and offset -1
 *   (`attribute2` the day after `attribute`, both orders).
 * - Statistic: Pearson's r for every value type. For a binary series (a tag, a boolean) against a
 *   numeric one that is the point-biserial correlation, and the t test below is exactly the
 *   two-sample t test of the numeric series between the tag's days and the others. Scales and
 *   moods are used as their numbers (Pearson, not a rank correlation): the v2 document defines
 *   `value` as Pearson's r (openapi/v2/schemas/Correlation.yaml) and scales of 1-9 are close to
 *   interval data.
 * - A pair is tested only with at least MIN_PAIRED_DAYS days of paired data and neither side
 *   constant over them; days without data (and NaN) are left out pairwise.
 * - `p`: two-sided t test with n - 2 degrees of freedom. Every test of the week forms one family:
 *   Benjamini-Hochberg q over all of them, and only q < 0.2 is stored ("published").
 * - Stars from q, strength from |r|, sentences from phrasing.ts.
 */
import { benjaminiHochberg } from './stats/benjamini-hochberg';
import { centredSeries, pairedPearson } from './stats/pearson';
import { correlationPValue } from './stats/p-value';
import { phrasingFor } from './phrasing';
import { indexOf, type SeriesAttribute, type UserData } from './series';
import { CORRELATION_WINDOW_DAYS } from './week';
import { STRONG_R } from '../domain/derived/correlation-strength';

/** Fewest days of paired data a correlation is computed from. */
export const MIN_PAIRED_DAYS = 30;

/** Published when the Benjamini-Hochberg q over the week's tests is below this (docs/decisions.md, "Derived data"). */
export const PUBLISH_Q = 0.2;

export type Offset = 0 | -1;

/** Stars and their words from q (docs/decisions.md, "Derived data"). */
export function starsFor(q: number): { stars: number; description: string } {
  if (q < 0.01) return { stars: 5, description: 'Certain to be related' };
  if (q < 0.05) return { stars: 4, description: 'Almost certainly related' };
  if (q < 0.1) return { stars: 3, description: 'Very likely related' };
  if (q < 0.15) return { stars: 2, description: 'Likely related' };
  return { stars: 1, description: 'Possibly related' };
}

/** The strength words from |r| (docs/decisions.md, "Derived data"). */
export function strengthFor(r: number): string {
  const a = Math.abs(r);
  if (a < 0.2) return 'Rarely go together';
  if (a < STRONG_R) return 'Sometimes go together';
  if (a < 0.6) return 'Quite often go together';
  if (a < 0.8) return 'Often go together';
  return 'Nearly always go together';
}

/**
 * The sentence in three parts. Offset 0: "<attribute more> when <attribute2 more or less>".
 * Offset -1 reads in time order, the later day first: "<attribute2 more or less> on days after
 * <attribute more>". The sign of r picks "more" or "less" for attribute2.
 */
export function sentenceFor(
  attribute: SeriesAttribute,
  attribute2: SeriesAttribute,
  offset: Offset,
  r: number,
): { text: string; elements: [string, string, string] } {
  const first = phrasingFor(attribute).more;
  const second = r >= 0 ? phrasingFor(attribute2).more : phrasingFor(attribute2).less;
  const elements: [string, string, string] = offset === 0 ? [first, 'when', second] : [second, 'on days after', first];
  return { text: `${elements.join(' ')}.`, elements };
}

/** One test of the week. */
export interface CorrelationTest {
  attribute: SeriesAttribute;
  attribute2: SeriesAttribute;
  offset: Offset;
  r: number;
  n: number;
  p: number;
}

/** A published correlation, as stored in `correlations`. */
export interface CorrelationRecord {
  attributeId: number;
  attribute2Id: number;
  attribute: string;
  attribute2: string;
  date: string;
  offset: Offset;
  period: number;
  value: number;
  p: number;
  q: number;
  percentage: number;
  stars: number;
  starsDescription: string;
  strengthDescription: string;
  secondPerson: string;
  secondPersonElements: [string, string, string];
}

export interface CorrelationRun {
  /** Attributes with enough varied data in the window to be tested. */
  attributes: number;
  /** Tests run (pairs x offsets that had enough paired days). */
  tests: number;
  published: CorrelationRecord[];
}

/** Every test of the week dated `date`: the attributes with enough varied data, and each pair's r and p. */
export function testAllPairs(data: UserData, date: string): { attributes: number; tests: CorrelationTest[] } {
  const end = indexOf(data, date);
  const start = Math.max(0, end - CORRELATION_WINDOW_DAYS);
  const candidates: Array<{ attribute: SeriesAttribute; series: Float64Array }> = [];
  for (const attribute of data.attributes) {
    const window = attribute.values.subarray(start, Math.max(start, Math.min(end, data.days)));
    let count = 0;
    let varies = false;
    let first = NaN;
    for (let i = 0; i < window.length; i++) {
      const v = window[i];
      if (v !== v) continue;
      if (count === 0) first = v;
      else if (v !== first) varies = true;
      count++;
    }
    if (count >= MIN_PAIRED_DAYS && varies) candidates.push({ attribute, series: centredSeries(window) });
  }

  const tests: CorrelationTest[] = [];
  const run = (a: (typeof candidates)[number], b: (typeof candidates)[number], offset: Offset) => {
    const result = pairedPearson(a.series, b.series, offset === 0 ? 0 : 1, MIN_PAIRED_DAYS);
    if (!result) return;
    const p = correlationPValue(result.r, result.n);
    if (Number.isNaN(p)) return;
    tests.push({ attribute: a.attribute, attribute2: b.attribute, offset, r: result.r, n: result.n, p });
  };
  for (let i = 0; i < candidates.length; i++) {
    for (let j = i + 1; j < candidates.length; j++) {
      run(candidates[i], candidates[j], 0);
      run(candidates[i], candidates[j], -1);
      run(candidates[j], candidates[i], -1);
    }
  }
  return { attributes: candidates.length, tests };
}

/** Runs every test of the week dated `date` and keeps those published. */
export function computeCorrelations(data: UserData, date: string): CorrelationRun {
  const { attributes, tests } = testAllPairs(data, date);
  const qs = benjaminiHochberg(tests.map((t) => t.p));
  const published: CorrelationRecord[] = [];
  tests.forEach((test, index) => {
    const q = qs[index];
    if (!(q < PUBLISH_Q)) return;
    const stars = starsFor(q);
    const sentence = sentenceFor(test.attribute, test.attribute2, test.offset, test.r);
    published.push({
      attributeId: test.attribute.id,
      attribute2Id: test.attribute2.id,
      attribute: test.attribute.name,
      attribute2: test.attribute2.name,
      date,
      offset: test.offset,
      period: test.n,
      value: test.r,
      p: test.p,
      q,
      percentage: Math.abs(test.r) * 100,
      stars: stars.stars,
      starsDescription: stars.description,
      strengthDescription: strengthFor(test.r),
      secondPerson: sentence.text,
      secondPersonElements: sentence.elements,
    });
  });
  return { attributes, tests: tests.length, published };
}

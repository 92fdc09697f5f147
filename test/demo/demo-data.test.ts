import { TEMPLATES } from '../../src/db/catalogue-templates';
import { isIntegerValueType } from '../../src/db/catalogue-value-types';
import { DEFAULT_DEMO_TEMPLATES, PLANTED_RELATIONSHIPS, generateDemoData, type DemoSeries } from '../../src/demo/demo-data';

const END = '2026-11-21';

const DAY_MS = 86_400_000;

/** Values by day index from `start` (NaN where missing), so pairs line up by position. */
function aligned(series: DemoSeries, start: string, days: number): Float64Array {
  const out = new Float64Array(days).fill(NaN);
  const t0 = Date.parse(`${start}T00:00:00Z`);
  for (const v of series.values) out[(Date.parse(`${v.date}T00:00:00Z`) - t0) / DAY_MS] = v.value as number;
  return out;
}

/** r of a and b over days both have, b taken the day after when offset is -1 (docs/decisions.md's meaning). */
function alignedCorrelation(a: Float64Array, b: Float64Array, offset: 0 | -1): number {
  const shift = offset === 0 ? 0 : 1;
  let n = 0;
  let sx = 0;
  let sy = 0;
  let sxx = 0;
  let syy = 0;
  let sxy = 0;
  for (let i = 0; i + shift < a.length; i++) {
    const x = a[i];
    const y = b[i + shift];
    if (Number.isNaN(x) || Number.isNaN(y)) continue;
    n++;
    sx += x;
    sy += y;
    sxx += x * x;
    syy += y * y;
    sxy += x * y;
  }
  return (n * sxy - sx * sy) / Math.sqrt((n * sxx - sx * sx) * (n * syy - sy * sy));
}

const START = '2025-11-22'; // 365 days ending at END
const correlation = (a: DemoSeries, b: DemoSeries, offset: 0 | -1) => alignedCorrelation(aligned(a, START, 365), aligned(b, START, 365), offset);

const byTemplate = (data: DemoSeries[]) => new Map(data.map((s) => [s.template, s]));

describe('generateDemoData', () => {
  test('is deterministic for a seed, and differs between seeds and users', () => {
    const a = generateDemoData({ seed: 42, days: 90, endDate: END });
    const b = generateDemoData({ seed: 42, days: 90, endDate: END });
    expect(b).toEqual(a);
    expect(generateDemoData({ seed: 43, days: 90, endDate: END })).not.toEqual(a);
    expect(generateDemoData({ seed: 42, days: 90, endDate: END, user: 1 })).not.toEqual(a);
  });

  test("an attribute's values do not depend on which other attributes are generated", () => {
    const alone = generateDemoData({ seed: 5, days: 60, endDate: END, attributes: ['mood'] });
    const all = byTemplate(generateDemoData({ seed: 5, days: 60, endDate: END, attributes: TEMPLATES.length }));
    expect(all.get('mood')).toEqual(alone[0]);
  });

  test('defaults to 25 templates across most groups, every planted pair included', () => {
    const data = generateDemoData({ seed: 1, days: 30, endDate: END });
    expect(data.map((s) => s.template)).toEqual(DEFAULT_DEMO_TEMPLATES);
    const groups = new Set(data.map((s) => TEMPLATES.find((t) => t.name === s.template)!.group));
    expect(groups.size).toBeGreaterThanOrEqual(12);
    for (const p of PLANTED_RELATIONSHIPS) {
      if (p.attribute.startsWith('weather_')) continue; // the defaults carry one weather measure
      expect(DEFAULT_DEMO_TEMPLATES).toEqual(expect.arrayContaining([p.attribute, p.attribute2]));
    }
  });

  test('covers the whole catalogue by count or by name, and refuses what it cannot make', () => {
    const all = generateDemoData({ seed: 1, days: 10, endDate: END, attributes: TEMPLATES.length });
    expect(all.map((s) => s.template).sort()).toEqual(TEMPLATES.map((t) => t.name).sort());
    expect(generateDemoData({ seed: 1, days: 10, endDate: END, attributes: ['sleep', 'steps'] }).map((s) => s.template)).toEqual(['sleep', 'steps']);
    expect(() => generateDemoData({ seed: 1, days: 10, endDate: END, attributes: TEMPLATES.length + 1 })).toThrow(RangeError);
    expect(() => generateDemoData({ seed: 1, days: 10, endDate: END, attributes: ['no_such'] })).toThrow(RangeError);
    expect(() => generateDemoData({ seed: 1, days: 10, endDate: '2026-02-30' })).toThrow(RangeError);
  });

  test('dates are YYYY-mm-dd within the window ending at endDate, ascending, with some missing days', () => {
    const data = generateDemoData({ seed: 3, days: 365, endDate: END, attributes: 40 });
    for (const s of data) {
      const dates = s.values.map((v) => v.date);
      expect(dates.every((d) => /^\d{4}-\d{2}-\d{2}$/.test(d) && d >= '2025-11-22' && d <= END)).toBe(true);
      expect([...dates].sort()).toEqual(dates);
      expect(new Set(dates).size).toBe(dates.length);
      expect(dates.length).toBeLessThan(365);
      expect(dates.length).toBeGreaterThan(100);
    }
  });

  test('values are typed and in range for their value type and the spec constraints', () => {
    const data = generateDemoData({ seed: 9, days: 365, endDate: END, attributes: TEMPLATES.length });
    const problems: string[] = [];
    for (const s of data) {
      for (const { date, value } of s.values) {
        const n = value as number;
        const ok =
          s.valueType === 2
            ? typeof value === 'string'
            : typeof value === 'number' &&
              Number.isFinite(n) &&
              (!isIntegerValueType(s.valueType) || Number.isInteger(n)) &&
              (s.valueType !== 3 || n >= 0) &&
              (s.valueType !== 4 && s.valueType !== 6 ? true : n >= 0 && n < 1440) &&
              (s.valueType !== 5 || (n >= 0 && n <= 1));
        if (!ok) problems.push(`${s.template} ${date}: ${JSON.stringify(value)}`);
      }
    }
    expect(problems).toEqual([]);
    const ranges: Record<string, [number, number]> = {
      steps: [2000, 15000],
      sleep: [360, 540],
      mood: [1, 9],
      body_fat: [0.15, 0.3],
      sleep_start: [480, 900], // 20:00 to 03:00 in minutes from midday
      menstrual_flow: [0, 4],
    };
    const by = byTemplate(data);
    for (const [name, [lo, hi]] of Object.entries(ranges)) {
      const values = by.get(name)!.values.map((v) => v.value as number);
      expect(Math.min(...values)).toBeGreaterThanOrEqual(lo);
      expect(Math.max(...values)).toBeLessThanOrEqual(hi);
    }
    for (const v of by.get('location')!.values) expect(v.value).toMatch(/^-?\d+(\.\d+)?,-?\d+(\.\d+)?$/);
    for (const v of by.get('mood_note')!.values) expect((v.value as string).length).toBeLessThanOrEqual(1000);
  });

  test('weekly rhythms: more steps and less productive time at weekends, later bedtimes on Friday and Saturday', () => {
    const by = byTemplate(generateDemoData({ seed: 11, days: 365, endDate: END, attributes: 60 }));
    const meanBy = (name: string, pick: (weekday: number) => boolean) => {
      const values = by.get(name)!.values.filter((v) => pick((new Date(`${v.date}T00:00:00Z`).getUTCDay() + 6) % 7));
      return values.reduce((a, v) => a + (v.value as number), 0) / values.length;
    };
    const weekend = (d: number) => d >= 5;
    const weekday = (d: number) => d < 5;
    expect(meanBy('steps', weekend)).toBeGreaterThan(meanBy('steps', weekday) + 1000);
    expect(meanBy('productive_min', weekend)).toBeLessThan(meanBy('productive_min', weekday) - 120);
    expect(meanBy('sleep_start', (d) => d === 4 || d === 5)).toBeGreaterThan(meanBy('sleep_start', (d) => d < 4 || d === 6) + 40);
  });

  test('weight drifts slowly: small changes between weigh-ins, a few kg over a year at most', () => {
    const [weight] = generateDemoData({ seed: 2, days: 365, endDate: END, attributes: ['weight'] });
    const values = weight.values.map((v) => v.value as number);
    const steps = values.slice(1).map((v, i) => Math.abs(v - values[i]));
    expect(steps.reduce((a, b) => a + b, 0) / steps.length).toBeLessThan(0.8);
    expect(Math.max(...values) - Math.min(...values)).toBeLessThan(10);
  });

  test.each([1, 2, 3])('the planted relationships are there (seed %d)', (seed) => {
    for (const rhythms of [true, false]) {
      const by = byTemplate(generateDemoData({ seed, days: 365, endDate: END, attributes: TEMPLATES.length, rhythms }));
      for (const p of PLANTED_RELATIONSHIPS) {
        const r = correlation(by.get(p.attribute)!, by.get(p.attribute2)!, p.offset);
        expect(Math.sign(r)).toBe(p.direction === 'positive' ? 1 : -1);
        expect(Math.abs(r - p.approximateR)).toBeLessThan(0.15);
      }
      expect(correlation(by.get('steps')!, by.get('active_energy')!, 0)).toBeGreaterThan(0.7);
    }
  });

  test('without rhythms, every pair that is not planted is unrelated (no chance finding above |r| 0.35)', () => {
    const data = generateDemoData({ seed: 4, days: 365, endDate: END, attributes: TEMPLATES.length, rhythms: false });
    const numeric = data.filter((s) => s.valueType !== 2).map((s) => ({ template: s.template, values: aligned(s, START, 365) }));
    const planted = new Set(
      PLANTED_RELATIONSHIPS.flatMap((p) => [`${p.attribute}|${p.attribute2}|${p.offset}`, ...(p.offset === 0 ? [`${p.attribute2}|${p.attribute}|0`] : [])]),
    );
    let worst = 0;
    for (const a of numeric) {
      for (const b of numeric) {
        if (a === b) continue;
        for (const offset of [0, -1] as const) {
          if (planted.has(`${a.template}|${b.template}|${offset}`)) continue;
          worst = Math.max(worst, Math.abs(alignedCorrelation(a.values, b.values, offset)));
        }
      }
    }
    expect(worst).toBeLessThan(0.35);
    // The chain coffees -> sleep -> mood is built so that coffee says nothing about next-day mood.
    const by = byTemplate(data);
    expect(Math.abs(correlation(by.get('coffees')!, by.get('mood')!, -1))).toBeLessThan(0.15);
  });

  test('is fast: 60 templates x 365 days well under a second, 40 x 730 too', () => {
    generateDemoData({ seed: 1, days: 30, endDate: END, attributes: 60 }); // warm up
    let started = performance.now();
    const big = generateDemoData({ seed: 1, days: 365, endDate: END, attributes: 60 });
    expect(performance.now() - started).toBeLessThan(1000);
    expect(big).toHaveLength(60);
    started = performance.now();
    generateDemoData({ seed: 1, days: 730, endDate: END, attributes: 40 });
    expect(performance.now() - started).toBeLessThan(1000);
  });
});

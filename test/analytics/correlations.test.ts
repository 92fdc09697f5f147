/**
 * The weekly correlations on data whose relationships are known: the demo generator with rhythms
 * off relates exactly the pairs in PLANTED_RELATIONSHIPS and nothing else, so every planted pair
 * must be published with its direction and offset, and the other tests must look like chance.
 */
import {
  MIN_PAIRED_DAYS,
  PUBLISH_Q,
  computeCorrelations,
  sentenceFor,
  testAllPairs,
  starsFor,
  strengthFor,
  type CorrelationRecord,
} from '../../src/analytics/correlations';
import { PLANTED_RELATIONSHIPS, type PlantedRelationship } from '../../src/demo/demo-data';
import { TEMPLATES } from '../../src/db/catalogue-templates';
import { buildUserData } from '../../src/analytics/series';
import { demoUserData, templateAttribute } from './demo-series';

const END = '2026-11-22';
const WEEK = '2026-11-16'; // the Monday of END's week: the window is the 365 days before it

function isPlanted(c: { attribute: string; attribute2: string; offset: number }, planted: readonly PlantedRelationship[] = PLANTED_RELATIONSHIPS): boolean {
  return planted.some(
    (p) =>
      p.offset === c.offset &&
      ((p.attribute === c.attribute && p.attribute2 === c.attribute2) || (p.offset === 0 && p.attribute === c.attribute2 && p.attribute2 === c.attribute)),
  );
}

function findPlanted(published: CorrelationRecord[], p: PlantedRelationship): CorrelationRecord | undefined {
  return published.find((c) => isPlanted(c, [p]));
}

/** The upper 99.9% point of a Poisson count with mean `mean` (for "beyond what chance allows"). */
function poissonUpper(mean: number): number {
  let k = 0;
  let term = Math.exp(-mean);
  let cumulative = term;
  while (cumulative < 0.999) {
    k++;
    term *= mean / k;
    cumulative += term;
  }
  return k;
}

describe('on the demo generator with only the planted relationships (every template, a year and a week)', () => {
  const numericTemplates = TEMPLATES.filter((t) => t.valueType !== 2).length;

  test.each([1, 2, 3])('seed %i: every planted relationship is published with its direction and offset, and the rest looks like chance', (seed) => {
    const data = demoUserData({ seed, days: 372, endDate: END, attributes: TEMPLATES.length, rhythms: false });
    expect(data.attributes).toHaveLength(numericTemplates);
    const run = computeCorrelations(data, WEEK);
    // Every pair at offset 0 once and at offset -1 both ways, all with enough paired days.
    expect(run.tests).toBe(((run.attributes * (run.attributes - 1)) / 2) * 3);
    for (const planted of PLANTED_RELATIONSHIPS) {
      const found = findPlanted(run.published, planted);
      expect(found).toBeDefined();
      expect(Math.sign(found!.value)).toBe(planted.direction === 'positive' ? 1 : -1);
      expect(Math.abs(found!.value - planted.approximateR)).toBeLessThan(0.12);
      expect(found!.stars).toBe(5);
    }
    // Independent pairs: p < 0.001 no more often than chance allows (99.9% Poisson bound).
    const independentTests = run.tests - PLANTED_RELATIONSHIPS.length;
    const falseAlarms = run.published.filter((c) => !isPlanted(c) && c.p < 0.001);
    expect(falseAlarms.length).toBeLessThanOrEqual(poissonUpper(independentTests * 0.001));
    for (const c of run.published) {
      expect(c.q).toBeLessThan(PUBLISH_Q);
      expect(c.q).toBeGreaterThanOrEqual(c.p);
      expect(c.period).toBeGreaterThanOrEqual(MIN_PAIRED_DAYS);
      expect(c.period).toBeLessThanOrEqual(365);
      expect(c.percentage).toBeCloseTo(Math.abs(c.value) * 100, 10);
    }
  });

  test('p-values of independent series are uniform: over 10 users, p < 0.01 and p < 0.001 as often as chance says', () => {
    let tests = 0;
    let below01 = 0;
    let below001 = 0;
    for (let seed = 11; seed <= 20; seed++) {
      const data = demoUserData({ seed, days: 372, endDate: END, attributes: TEMPLATES.length, rhythms: false });
      const independent = testAllPairs(data, WEEK).tests.filter(
        (t) => !isPlanted({ attribute: t.attribute.name, attribute2: t.attribute2.name, offset: t.offset }),
      );
      tests += independent.length;
      below01 += independent.filter((t) => t.p < 0.01).length;
      below001 += independent.filter((t) => t.p < 0.001).length;
    }
    // Binomial mean +- 4 standard deviations.
    for (const [count, p] of [
      [below01, 0.01],
      [below001, 0.001],
    ]) {
      const sd = Math.sqrt(tests * p * (1 - p));
      expect(count).toBeGreaterThanOrEqual(tests * p - 4 * sd);
      expect(count).toBeLessThanOrEqual(tests * p + 4 * sd);
    }
  });

  test('the planted relationships read as sentences in the right direction', () => {
    const data = demoUserData({ seed: 1, days: 372, endDate: END, attributes: TEMPLATES.length, rhythms: false });
    const published = computeCorrelations(data, WEEK).published;
    const sleepMood = findPlanted(published, PLANTED_RELATIONSHIPS[1])!;
    expect(sleepMood.secondPerson).toBe('you are happier when you spend more time asleep.');
    expect(sleepMood.secondPersonElements).toEqual(['you are happier', 'when', 'you spend more time asleep']);
    const coffeeSleep = findPlanted(published, PLANTED_RELATIONSHIPS[2])!;
    expect(coffeeSleep).toMatchObject({ attribute: 'coffees', attribute2: 'sleep', offset: -1 });
    expect(coffeeSleep.secondPersonElements).toEqual(['you spend less time asleep', 'on days after', 'you drink more coffee']);
    expect(coffeeSleep.secondPerson).toBe('you spend less time asleep on days after you drink more coffee.');
  });

  test('with rhythms on, weekly rhythms relate more pairs, and the planted ones are still found', () => {
    const data = demoUserData({ seed: 1, days: 372, endDate: END, attributes: 40 });
    const run = computeCorrelations(data, WEEK);
    for (const planted of PLANTED_RELATIONSHIPS.filter(
      (p) => data.attributes.some((a) => a.name === p.attribute2) && data.attributes.some((a) => a.name === p.attribute),
    )) {
      expect(findPlanted(run.published, planted)).toBeDefined();
    }
    expect(run.published.length).toBeGreaterThan(PLANTED_RELATIONSHIPS.length);
  });
});

describe('what is tested', () => {
  const days = 120;
  const from = '2026-07-01';
  const date = '2026-10-29'; // index 120: the window is every loaded day
  const ramp = Array.from({ length: days }, (_, i) => [i, i + ((i * 7919) % 13)] as const);

  test(`fewer than ${MIN_PAIRED_DAYS} paired days, a constant series or NaN never produce a correlation`, () => {
    const data = buildUserData(1, from, '2026-10-28', [
      templateAttribute('steps', 1, ramp),
      templateAttribute(
        'active_energy',
        2,
        ramp.map(([i, v]) => [i, 2 * v + 1] as const),
      ),
      templateAttribute(
        'floors',
        3,
        ramp.map(([i]) => [i, 4] as const),
      ), // constant
      templateAttribute('water', 4, ramp.slice(0, MIN_PAIRED_DAYS - 1)), // too few days
      templateAttribute(
        'coffees',
        5,
        ramp.map(([i, v]) => [i, i % 2 === 0 ? NaN : v] as const),
      ), // half NaN: 60 days left
    ]);
    const run = computeCorrelations(data, date);
    const names = run.published.map((c) => [c.attribute, c.attribute2].sort().join('+'));
    expect(names.some((n) => n.includes('floors') || n.includes('water'))).toBe(false);
    expect(names).toContain('active_energy+steps');
    expect(names).toContain('coffees+steps');
    const coffeeSteps = run.published.find((c) => c.attribute === 'steps' && c.attribute2 === 'coffees' && c.offset === 0)!;
    expect(coffeeSteps.period).toBe(60);
    expect(run.attributes).toBe(3);
  });

  test('offset -1 pairs attribute with attribute2 on the next day; orientation follows list order at offset 0', () => {
    // sleep on day i + 1 is 480 - 20 * coffees on day i (docs/decisions.md: offset -1, attribute2 the day after).
    const coffees = Array.from({ length: days }, (_, i) => [i, (i * 37) % 5] as const);
    const sleep = coffees.map(([i, v]) => [i + 1, 480 - 20 * v + ((i * 13) % 3)] as const);
    const data = buildUserData(1, from, '2026-10-28', [templateAttribute('coffees', 1, coffees), templateAttribute('sleep', 2, sleep)]);
    const run = computeCorrelations(data, date);
    const lagged = run.published.find((c) => c.offset === -1 && c.attribute === 'coffees' && c.attribute2 === 'sleep')!;
    expect(lagged.value).toBeLessThan(-0.95);
    expect(lagged.secondPerson).toBe('you spend less time asleep on days after you drink more coffee.');
    expect(run.published.find((c) => c.offset === -1 && c.attribute === 'sleep' && c.attribute2 === 'coffees')).toBeUndefined();
  });

  test('a custom tag is compared as used (1) against not used (0) on the days anything was tracked', () => {
    const tagDays = new Set(Array.from({ length: days }, (_, i) => i).filter((i) => (i * 7) % 3 === 0));
    const mood = Array.from({ length: days }, (_, i) => [i, tagDays.has(i) ? 7 + (i % 2) : 4 + (i % 2)] as const);
    const tag = {
      ...templateAttribute(
        'coffees',
        2,
        [...tagDays].map((i) => [i, 1] as const),
      ),
      name: 'late_night',
      label: 'late night',
      template: null,
      group: 'custom',
      priority: 2,
    };
    const data = buildUserData(1, from, '2026-10-28', [templateAttribute('mood', 1, mood), tag]);
    expect(data.attributes[1].isTag).toBe(true);
    const run = computeCorrelations(data, date);
    const found = run.published.find((c) => c.offset === 0)!;
    expect(found.value).toBeGreaterThan(0.9);
    expect(found.period).toBe(days);
    expect(found.secondPerson).toBe('you are happier when you tag "late night".');
  });
});

describe('stars, strength and sentences (docs/decisions.md bins)', () => {
  test('stars from q', () => {
    expect(starsFor(0.009)).toEqual({ stars: 5, description: 'Certain to be related' });
    expect(starsFor(0.01)).toEqual({ stars: 4, description: 'Almost certainly related' });
    expect(starsFor(0.049)).toEqual({ stars: 4, description: 'Almost certainly related' });
    expect(starsFor(0.05)).toEqual({ stars: 3, description: 'Very likely related' });
    expect(starsFor(0.1)).toEqual({ stars: 2, description: 'Likely related' });
    expect(starsFor(0.15)).toEqual({ stars: 1, description: 'Possibly related' });
    expect(starsFor(0.199)).toEqual({ stars: 1, description: 'Possibly related' });
  });

  test('strength from |r|', () => {
    expect(strengthFor(0.19)).toBe('Rarely go together');
    expect(strengthFor(-0.2)).toBe('Sometimes go together');
    expect(strengthFor(0.3999)).toBe('Sometimes go together');
    expect(strengthFor(-0.5577851552276848)).toBe('Quite often go together');
    expect(strengthFor(0.6)).toBe('Often go together');
    expect(strengthFor(-0.8)).toBe('Nearly always go together');
    expect(strengthFor(1)).toBe('Nearly always go together');
  });

  test("the spec's example: sleep and sleep_start, r = -0.56, same day", () => {
    const data = buildUserData(1, '2026-01-01', '2026-01-01', [templateAttribute('sleep', 1, []), templateAttribute('sleep_start', 2, [])]);
    const [sleep, start] = data.attributes;
    expect(sentenceFor(sleep, start, 0, -0.5577851552276848)).toEqual({
      text: 'you spend more time asleep when you go to bed earlier.',
      elements: ['you spend more time asleep', 'when', 'you go to bed earlier'],
    });
    expect(sentenceFor(sleep, start, 0, 0.3).elements[2]).toBe('you go to bed later');
    expect(sentenceFor(sleep, start, -1, 0.3)).toEqual({
      text: 'you go to bed later on days after you spend more time asleep.',
      elements: ['you go to bed later', 'on days after', 'you spend more time asleep'],
    });
  });
});

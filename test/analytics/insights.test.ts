/**
 * Each insight type on data made to meet its criteria, and on data that just misses them. Today is
 * Wednesday 2026-11-18 throughout; data covers the 400 days before it.
 */
import { INSIGHT_TYPES, dedupeKey, findInsights, type Insight } from '../../src/analytics/insights';
import { buildUserData, type AttributeInput } from '../../src/analytics/series';
import { daysBetween } from '../../src/domain/time';
import { addDays } from '../../src/domain/time';
import { templateAttribute } from './demo-series';

const TODAY = '2026-11-18'; // a Wednesday
const FROM = addDays(TODAY, -400);
const T = daysBetween(FROM, TODAY); // today's index

/** Values by day index from `value(i)` (undefined: no data), for the days up to today. */
function series(value: (i: number) => number | undefined): Array<[number, number]> {
  const points: Array<[number, number]> = [];
  for (let i = 0; i <= T; i++) {
    const v = value(i);
    if (v !== undefined) points.push([i, v]);
  }
  return points;
}

/** A deterministic wobble in [-1, 1]. */
const wobble = (i: number) => (((i * 7919) % 101) - 50) / 50;

function run(...inputs: AttributeInput[]): Insight[] {
  return findInsights(buildUserData(1, FROM, TODAY, inputs), TODAY);
}

const named = (insights: Insight[], type: string) => insights.filter((i) => i.type.name === type);

describe('insight types', () => {
  test('cover the four priorities with real criteria (at least six types)', () => {
    expect(INSIGHT_TYPES.length).toBeGreaterThanOrEqual(6);
    expect(new Set(INSIGHT_TYPES.map((t) => t.priority))).toEqual(new Set([1, 2, 3, 4]));
    expect(new Set(INSIGHT_TYPES.map((t) => t.name)).size).toBe(INSIGHT_TYPES.length);
  });

  test('ordinary data meets no criteria', () => {
    const steady = templateAttribute(
      'steps',
      1,
      series((i) => 8000 + 300 * wobble(i)),
    );
    expect(run(steady)).toEqual([]);
  });

  test('today_above_weekday: today at least 25% above the median of the same weekday over 60 days', () => {
    const above = run(
      templateAttribute(
        'steps',
        1,
        series((i) => (i === T ? 10600 : 8000)),
      ),
    );
    expect(named(above, 'today_above_weekday')).toHaveLength(1);
    const [insight] = named(above, 'today_above_weekday');
    expect(insight).toMatchObject({ targetDate: TODAY, key: TODAY });
    expect(insight.text).toBe('Steps today: 10,600, above a usual Wednesday (8,000).');
    expect(insight.html).toBe('<p>Steps today: <strong>10,600</strong>, above a usual Wednesday (8,000).</p>');
    expect(
      named(
        run(
          templateAttribute(
            'steps',
            1,
            series((i) => (i === T ? 9600 : 8000 + 100 * wobble(i))),
          ),
        ),
        'today_above_weekday',
      ),
    ).toEqual([]);
  });

  test('today_below_weekday: only for values that do not grow during the day', () => {
    const low = (i: number) => (i === T ? 330 : 450 + 10 * wobble(i));
    const sleep = named(run(templateAttribute('sleep', 1, series(low))), 'today_below_weekday');
    expect(sleep).toHaveLength(1);
    expect(sleep[0].text).toMatch(/^Time asleep today: 5h 30m, below a usual Wednesday \(7h \d\dm\)\.$/);
    // Steps are always low in the morning: no insight.
    expect(
      named(
        run(
          templateAttribute(
            'steps',
            1,
            series((i) => (i === T ? 100 : 8000 + 100 * wobble(i))),
          ),
        ),
        'today_below_weekday',
      ),
    ).toEqual([]);
    // A bedtime 45 minutes earlier than usual counts (times of day compare in minutes).
    const bedtime = named(
      run(
        templateAttribute(
          'sleep_start',
          1,
          series((i) => (i === T ? 600 : 660 + 5 * wobble(i))),
        ),
      ),
      'today_below_weekday',
    );
    expect(bedtime[0].text).toMatch(/^Bedtime today: 22:00, 1h 0\dm earlier than on a usual Wednesday \(23:0\d\)\.$/);
  });

  test('record_high and record_low: yesterday beyond every value of the year before it', () => {
    const high = run(
      templateAttribute(
        'steps',
        1,
        series((i) => (i === T - 1 ? 12000 : 8000 + 1000 * wobble(i))),
      ),
    );
    expect(named(high, 'record_high')).toHaveLength(1);
    expect(named(high, 'record_high')[0]).toMatchObject({ targetDate: addDays(TODAY, -1), text: 'Steps yesterday: 12,000, your highest in a year.' });
    const low = run(
      templateAttribute(
        'weight',
        1,
        series((i) => (i === T - 1 ? 70 : 75 + wobble(i))),
      ),
    );
    expect(named(low, 'record_low')).toHaveLength(1);
    expect(named(low, 'record_low')[0].text).toBe('Weight yesterday: 70 kg, your lowest in a year.');
    // Equal to the best is no record; too little history is none either.
    expect(
      named(
        run(
          templateAttribute(
            'steps',
            1,
            series((i) => (i === T - 1 ? 9000 : 8000 + 1000 * wobble(i))),
          ),
        ),
        'record_high',
      ),
    ).toEqual([]);
    expect(
      named(
        run(
          templateAttribute(
            'steps',
            1,
            series((i) => (i < T - 40 ? undefined : i === T - 1 ? 12000 : 8000)),
          ),
        ),
        'record_high',
      ),
    ).toEqual([]);
    // Tags and yes/no values have no records.
    expect(
      run({
        ...templateAttribute(
          'steps',
          1,
          series((i) => (i === T - 1 ? 1 : 0)),
        ),
        group: 'custom',
        priority: 2,
        template: null,
      }),
    ).toEqual([]);
  });

  test('average_streak: 7 days in a row at or above the median of the 60 days before, once per streak', () => {
    const streak = (length: number) => (i: number) => (i >= T - length && i < T ? 9000 : i === T - length - 1 ? 7000 : 8000 + 500 * wobble(i));
    const found = named(run(templateAttribute('steps', 1, series(streak(7)))), 'average_streak');
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ key: addDays(TODAY, -7), targetDate: addDays(TODAY, -1) });
    expect(found[0].text).toMatch(/^Steps: 7 days in a row at or above your average \([\d,]+\)\.$/);
    // The same streak a day later has the same key: stored once.
    const later = findInsights(
      buildUserData(1, FROM, addDays(TODAY, 1), [templateAttribute('steps', 1, series(streak(7)).concat([[T, 9000]]))]),
      addDays(TODAY, 1),
    );
    expect(named(later, 'average_streak')[0].key).toBe(found[0].key);
    expect(named(run(templateAttribute('steps', 1, series(streak(6)))), 'average_streak')).toEqual([]);
    // A median at the window's minimum (a count that is 0 on most days) makes no streak.
    expect(
      named(
        run(
          templateAttribute(
            'workouts',
            1,
            series((i) => (i % 3 === 0 ? 1 : 0)),
          ),
        ),
        'average_streak',
      ),
    ).toEqual([]);
  });

  test('week_high: last week the highest of 12 weeks', () => {
    const lastWeek = (i: number) => i >= T - 9 && i <= T - 3; // Monday 2026-11-09 .. Sunday 2026-11-15
    const found = named(
      run(
        templateAttribute(
          'steps',
          1,
          series((i) => (lastWeek(i) ? 9500 : 8000 + 500 * wobble(i))),
        ),
      ),
      'week_high',
    );
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ targetDate: null, key: '2026-11-09' });
    expect(found[0].text).toMatch(/^Steps: the week of 2026-11-09 to 2026-11-15 was your highest in 12 weeks, 9,500 a day on average/);
    expect(
      named(
        run(
          templateAttribute(
            'steps',
            1,
            series((i) => (lastWeek(i) ? 8000 : 8000 + 500 * wobble(i))),
          ),
        ),
        'week_high',
      ),
    ).toEqual([]);
  });

  test('tag_more_than_usual: a tag on at least 2 more days than the weekly median of the 8 weeks before', () => {
    const tag = (lastWeekDays: number) => ({
      ...templateAttribute(
        'coffees',
        2,
        series((i) => (i >= T - 9 && i <= T - 3 ? (i - (T - 9) < lastWeekDays ? 1 : undefined) : i % 7 === 0 ? 1 : undefined)),
      ),
      name: 'headache',
      label: 'headache',
      template: null,
      group: 'custom',
      priority: 2,
    });
    const tracked = templateAttribute(
      'mood',
      1,
      series(() => 5),
    );
    const found = named(run(tracked, tag(4)), 'tag_more_than_usual');
    expect(found).toHaveLength(1);
    expect(found[0].text).toBe('You tagged "headache" on 4 days in the week of 2026-11-09, more than usual (1 a week).');
    expect(named(run(tracked, tag(2)), 'tag_more_than_usual')).toEqual([]);
  });

  test('tag_more_than_usual: weeks before a tag was first used are not weeks of 0 (issue 32: "usual 0 a week" after weeks of 4-5)', () => {
    // Mood tracked every day for the whole year; the tag first used some weeks before last week, then
    // on 5 and 4 days of alternate weeks, and on all 7 days last week.
    const lastWeek = T - 9; // Monday of the last complete week (TODAY is a Wednesday)
    const tagUsedFor = (weeks: number) => {
      const firstUse = lastWeek - weeks * 7;
      const ticked = (i: number) =>
        (i >= lastWeek && i < lastWeek + 7) || (i >= firstUse && i < lastWeek && (i - firstUse) % 7 < ((i - firstUse) % 14 < 7 ? 5 : 4));
      return {
        ...templateAttribute(
          'coffees',
          2,
          series((i) => (ticked(i) ? 1 : undefined)),
        ),
        name: 'swim',
        label: 'swim',
        template: null,
        group: 'custom',
        priority: 2,
      };
    };
    const tracked = templateAttribute(
      'mood',
      1,
      series(() => 5),
    );
    const found = named(run(tracked, tagUsedFor(4)), 'tag_more_than_usual');
    expect(found.map((f) => f.text)).toEqual(['You tagged "swim" on 7 days in the week of 2026-11-09, more than usual (4.5 a week).']);
    // Three weeks of use are not the 4 weeks the usual needs: no insight, rather than "usual 0".
    expect(named(run(tracked, tagUsedFor(3)), 'tag_more_than_usual')).toEqual([]);
  });

  test('month_summary: last month against the month before, when the daily mean moved 10% or more', () => {
    const october = (i: number) => i >= daysBetween(FROM, '2026-10-01') && i <= daysBetween(FROM, '2026-10-31');
    const found = named(
      run(
        templateAttribute(
          'water',
          1,
          series((i) => (october(i) ? 2200 : 2000)),
        ),
      ),
      'month_summary',
    );
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ key: '2026-10', targetDate: null });
    expect(found[0].text).toBe('October 2026: Water averaged 2,200 ml a day, 10% more than in September 2026 (2,000 ml).');
    expect(
      named(
        run(
          templateAttribute(
            'water',
            1,
            series((i) => (october(i) ? 2150 : 2000)),
          ),
        ),
        'month_summary',
      ),
    ).toEqual([]);
    const wake = named(
      run(
        templateAttribute(
          'sleep_end',
          1,
          series((i) => (october(i) ? 440 : 420)),
        ),
      ),
      'month_summary',
    );
    expect(wake[0].text).toBe('October 2026: Wake time averaged 07:20 a day, 20 min later than in September 2026 (07:00).');
  });

  test('labels are escaped in HTML', () => {
    const custom = {
      ...templateAttribute(
        'steps',
        1,
        series((i) => (i === T ? 10600 : 8000)),
      ),
      label: '<b>Steps & more</b>',
      template: null,
    };
    const [insight] = named(run(custom), 'today_above_weekday');
    expect(insight.html).toBe('<p>&lt;b&gt;Steps &amp; more&lt;/b&gt; today: <strong>10,600</strong>, above a usual Wednesday (8,000).</p>');
  });

  test('a dedupe key names the type, the attribute and what the finding is about', () => {
    const [insight] = named(
      run(
        templateAttribute(
          'steps',
          7,
          series((i) => (i === T ? 10600 : 8000)),
        ),
      ),
      'today_above_weekday',
    );
    expect(dedupeKey(insight)).toBe(`today_above_weekday:7:${TODAY}`);
  });
});

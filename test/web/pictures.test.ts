/**
 * The pictures' rules without a server: a correlation's wording never contradicts itself (a weak
 * but certain link, or a strong but uncertain one, is explained in a sentence), the r bar points
 * the way r does, a sparkline's text says what it draws, and the calendar leaves empty days empty.
 */
import { correlationBar, dayChart, sparkline } from '../../src/web/charts';
import { monthCalendar } from '../../src/web/calendar';
import { correlationItem, reconcile } from '../../src/web/correlation-view';
import type { CorrelationObject } from '../../src/domain/derived/correlations';

function correlation(value: number, stars: number, strength: string, confidence: string): CorrelationObject {
  return {
    date: '2026-11-22',
    period: 200,
    offset: 0,
    attribute: 'steps',
    attribute2: 'sleep',
    value,
    p: 0.01,
    percentage: Math.abs(value) * 100,
    stars,
    second_person: 'you sleep more when you walk more',
    second_person_elements: [],
    attribute_category: null,
    strength_description: strength as CorrelationObject['strength_description'],
    stars_description: confidence as CorrelationObject['stars_description'],
    description: null,
    occurrence: null,
    rating: null,
  };
}

test('"rarely go together" with "almost certainly related" comes with a sentence explaining both', () => {
  const weakButSure = correlation(0.15, 4, 'Rarely go together', 'Almost certainly related');
  expect(reconcile(weakButSure)).toBe('The two go together only a little (r = 0.15), but over 200 days that small tendency is too steady to be chance.');
  const item = correlationItem(weakButSure).value;
  expect(item).toContain('Strength: Rarely go together');
  expect(item).toContain(
    'Confidence: <span class="stars" role="img" aria-label="4 of 5 stars">★★★★<span class="muted">☆</span></span> Almost certainly related',
  );
  expect(item).toContain('<p class="muted why">The two go together only a little');
  expect(item).toContain('<a href="/data/pair/steps/sleep">');
  expect(reconcile(correlation(-0.7, 1, 'Often go together', 'Possibly related'))).toBe(
    'The two moved closely together (r = -0.70), but over 200 days that could still be chance.',
  );
  // Labels that agree need no explanation.
  expect(reconcile(correlation(0.65, 5, 'Often go together', 'Certain to be related'))).toBeUndefined();
  expect(correlationItem(correlation(0.65, 5, 'Often go together', 'Certain to be related')).value).not.toContain('class="muted why"');
});

test('the r bar grows right from the middle for r > 0 and left for r < 0, as long as |r| says', () => {
  const right = correlationBar(0.5).value;
  expect(right).toContain('<rect class="pos" x="60" y="3" width="30" height="8">');
  expect(right).toContain('aria-label="r = 0.50, rising together"');
  const left = correlationBar(-0.25).value;
  expect(left).toContain('<rect class="neg" x="45" y="3" width="15" height="8">');
  expect(left).toContain('one rises as the other falls');
});

test('a sparkline draws the days with a value and says so; a chart of no values is empty, not broken', () => {
  const points = [
    { date: '2026-11-01', value: 3 },
    { date: '2026-11-02', value: null },
    { date: '2026-11-03', value: 5 },
  ];
  const spark = sparkline('Coffees', points, String).value;
  expect(spark.match(/class="point"/g)).toHaveLength(2);
  expect(spark).toContain('<title>Coffees: 2 of the last 3 days have a value, from 3 to 5</title>');
  const empty = dayChart({ title: 'Nothing', desc: 'No values', points: points.map((p) => ({ ...p, value: null })), kind: 'line', format: String }).value;
  expect(empty).not.toContain('class="point"');
  expect(empty).not.toContain('NaN');
  expect(
    sparkline(
      'None',
      points.map((p) => ({ ...p, value: null })),
      String,
    ).value,
  ).toContain('no values in the last 3 days');
});

test('the calendar starts on the right weekday, colours by value and leaves a day without one dashed and empty', () => {
  // 1 November 2026 is a Sunday: six empty cells before it.
  const days = Array.from({ length: 30 }, (_, i) => {
    const date = `2026-11-${String(i + 1).padStart(2, '0')}`;
    const value = i === 0 ? 1 : i === 1 ? 9 : i === 2 ? null : 5;
    return { date, value, shown: value === null ? '' : String(value) };
  });
  const calendar = monthCalendar('Mood', '2026-11', days, '2026-11-20').value;
  expect(calendar.indexOf('data-date="2026-11-01"')).toBeGreaterThan(0);
  expect(calendar.slice(0, calendar.indexOf('data-date="2026-11-01"')).match(/<td class="pad"><\/td>/g)).toHaveLength(6);
  expect(calendar).toContain('<td class="heat1" data-date="2026-11-01"><a href="/data?date=2026-11-01" aria-label="1 November 2026: 1"');
  expect(calendar).toContain('<td class="heat5" data-date="2026-11-02">');
  expect(calendar).toContain('<td class="empty" data-date="2026-11-03"><a href="/data?date=2026-11-03" aria-label="3 November 2026: no value"');
  expect(calendar).toContain('<td class="heat3" data-date="2026-11-04">');
  // After today: not a link.
  expect(calendar).toContain('<td class="future"><span>21</span></td>');
});

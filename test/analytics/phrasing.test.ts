import { TEMPLATES } from '../../src/db/catalogue-templates';
import { VALUE_TYPES } from '../../src/db/catalogue-value-types';
import { TEMPLATE_PHRASES, growsDuringTheDay, phrasingFor, templatesWithoutPhrasing } from '../../src/analytics/phrasing';

const attribute = (over: Partial<Parameters<typeof phrasingFor>[0]>) => ({
  template: null,
  label: 'Thing',
  group: 'health',
  valueType: 0,
  priority: 2,
  ...over,
});

describe('phrasing of correlations', () => {
  test('every numeric template of the catalogue has a "more" and a "less" clause, and no other name has', () => {
    expect(templatesWithoutPhrasing()).toEqual([]);
    const numeric = TEMPLATES.filter((t) => t.valueType !== VALUE_TYPES.string)
      .map((t) => t.name)
      .sort();
    expect(Object.keys(TEMPLATE_PHRASES).sort()).toEqual(numeric);
    for (const [name, [more, less]] of Object.entries(TEMPLATE_PHRASES)) {
      expect(more).not.toBe(less);
      expect(`${name}: ${more}`).toMatch(/^[a-z_0-9]+: (you|your|it|the) [a-zA-Z0-9 ]+$/);
      expect(`${name}: ${less}`).toMatch(/^[a-z_0-9]+: (you|your|it|the) [a-zA-Z0-9 ]+$/);
    }
  });

  test('times of day read later / earlier', () => {
    for (const t of TEMPLATES.filter((t) => t.valueType === VALUE_TYPES.timeOfDay || t.valueType === VALUE_TYPES.timeFromMidday)) {
      const [more, less] = TEMPLATE_PHRASES[t.name];
      expect(more).toMatch(/later$/);
      expect(less).toMatch(/earlier$/);
    }
    expect(phrasingFor(attribute({ template: 'sleep_start' }))).toEqual({ more: 'you go to bed later', less: 'you go to bed earlier' });
  });

  test('a custom tag speaks of tagging, with underscores as spaces', () => {
    expect(phrasingFor(attribute({ label: 'late_night', group: 'custom', valueType: 0, priority: 2 }))).toEqual({
      more: 'you tag "late night"',
      less: `you don't tag "late night"`,
    });
  });

  test('other custom attributes are phrased from their label and value type', () => {
    expect(phrasingFor(attribute({ label: 'Headache', valueType: VALUE_TYPES.scale }))).toEqual({
      more: 'your headache is higher',
      less: 'your headache is lower',
    });
    expect(phrasingFor(attribute({ label: 'Lunch', valueType: VALUE_TYPES.timeOfDay }))).toEqual({
      more: 'your lunch is later',
      less: 'your lunch is earlier',
    });
    expect(phrasingFor(attribute({ label: 'Reading', valueType: VALUE_TYPES.period }))).toEqual({
      more: 'you spend more time on reading',
      less: 'you spend less time on reading',
    });
    expect(phrasingFor(attribute({ label: 'Ate out', valueType: VALUE_TYPES.boolean }))).toEqual({
      more: 'you mark "Ate out"',
      less: `you don't mark "Ate out"`,
    });
    // A template's attribute keeps the template's clauses whatever its label.
    expect(phrasingFor(attribute({ template: 'mood', label: 'How I feel' })).more).toBe('you are happier');
  });

  test('daily totals grow during the day; levels do not', () => {
    expect(growsDuringTheDay(attribute({ template: 'steps' }))).toBe(true);
    expect(growsDuringTheDay(attribute({ template: 'weight' }))).toBe(false);
    expect(growsDuringTheDay(attribute({ template: 'sleep' }))).toBe(false);
  });
});

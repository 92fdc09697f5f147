import { GROUPS, GROUP_NAMES } from '../../src/db/catalogue-groups';
import { LOW_PRIORITY, TEMPLATES, TEMPLATES_BY_NAME } from '../../src/db/catalogue-templates';
import { VALUE_TYPE_DESCRIPTIONS } from '../../src/db/catalogue-value-types';
import { BUILTIN_SERVICES } from '../../src/db/catalogue-services';

/**
 * The spec's "Supported attributes" table, transcribed apart from the catalogue: name, the group
 * as the table words it (null where it leaves the group out), value type.
 */
const SPEC_ATTRIBUTES: Array<[string, string | null, number]> = [
  ['steps', 'Activity', 0],
  ['steps_active_min', 'Activity', 3],
  ['steps_elevation', 'Activity', 1],
  ['floors', 'Activity', 0],
  ['steps_distance', 'Activity', 1],
  ['cycle_min', 'Activity', 3],
  ['cycle_distance', 'Activity', 1],
  ['active_energy', 'Activity', 1],
  ['workouts', 'Workouts', 0],
  ['workouts_min', 'Workouts', 3],
  ['workouts_distance', 'Workouts', 1],
  ['productive_min', 'Productivity', 3],
  ['neutral_min', 'Productivity', 3],
  ['distracting_min', 'Productivity', 3],
  ['commits', 'Productivity', 0],
  ['tasks_completed', 'Productivity', 0],
  ['words_written', 'Productivity', 0],
  ['emails_sent', 'Productivity', 0],
  ['emails_received', 'Productivity', 0],
  ['pomodoros_min', 'Productivity', 3],
  ['keystrokes', 'Productivity', 3],
  ['custom', 'Custom tracking', 2],
  ['coffees', 'Food and drink', 0],
  ['alcoholic_drinks', 'Food and drink', 0],
  ['energy', 'Food and drink', 1],
  ['water', 'Food and drink', 0],
  ['carbohydrates', 'Food and drink', 1],
  ['fat', 'Food and drink', 1],
  ['fibre', 'Food and drink', 1],
  ['protein', 'Food and drink', 1],
  ['sugar', 'Food and drink', 1],
  ['sodium', 'Food and drink', 1],
  ['cholesterol', 'Food and drink', 1],
  ['caffeine', 'Food and drink', 1],
  ['money_spent', 'Finance', 1],
  ['mood', 'Mood', 0],
  ['mood_note', 'Mood', 2],
  ['sleep', 'Sleep', 3],
  ['time_in_bed', 'Sleep', 3],
  ['sleep_start', 'Sleep', 6],
  ['sleep_end', 'Sleep', 4],
  ['sleep_awakenings', 'Sleep', 0],
  ['events', 'Events', 0],
  ['events_duration', 'Events', 3],
  ['weight', 'Health', 1],
  ['body_fat', 'Health', 5],
  ['lean_mass', 'Health', 1],
  ['heartrate', 'Health', 0],
  ['heartrate_max', 'Health', 0],
  ['heartrate_resting', 'Health', 0],
  ['meditation_min', 'Health', 3],
  ['menstrual_flow', 'Health', 0],
  ['sexual_activity', 'Health', 0],
  ['checkins', 'Location', 0],
  ['location', 'Location', 2],
  ['tracks', 'Media', 0],
  ['articles_read', 'Media', 0],
  ['pages_read', 'Media', 0],
  ['mobile_screen_min', 'Media', 3],
  ['gaming_min', 'Media', 3],
  ['tv_min', 'Media', 3],
  ['network1_posts', 'Social', 0],
  ['network1_comments', 'Social', 0],
  ['network1_reactions', 'Social', 0],
  ['network2_posts', null, 0],
  ['network2_mentions', null, 0],
  ['network2_username', null, 2],
  ['weather_temp_max', 'Weather', 1],
  ['weather_temp_min', 'Weather', 1],
  ['weather_precipitation', 'Weather', 1],
  ['weather_cloud_cover', 'Weather', 5],
  ['weather_wind_speed', 'Weather', 1],
  ['weather_summary', 'Weather', 2],
  ['weather_icon', 'Weather', 2],
  ['sunrise', 'Weather', 4],
  ['sunset', 'Weather', 6],
];

/** The table's group wording to group names; the network2_* rows go to social (our decision). */
const SPEC_GROUP: Record<string, string> = {
  Activity: 'activity',
  Workouts: 'workouts',
  Productivity: 'productivity',
  'Custom tracking': 'custom',
  'Food and drink': 'food',
  Finance: 'finance',
  Mood: 'mood',
  Sleep: 'sleep',
  Events: 'events',
  Health: 'health',
  Location: 'location',
  Media: 'media',
  Social: 'social',
  Weather: 'weather',
};

describe('catalogue', () => {
  test('has the 16 groups of the spec, in its order, with distinct labels and priorities', () => {
    expect(GROUP_NAMES).toEqual([
      'activity',
      'productivity',
      'mood',
      'sleep',
      'workouts',
      'events',
      'finance',
      'food',
      'health',
      'location',
      'media',
      'social',
      'weather',
      'symptoms',
      'medication',
      'custom',
    ]);
    expect(GROUPS.map((g) => g.name)).toEqual(GROUP_NAMES);
    expect(new Set(GROUPS.map((g) => g.label)).size).toBe(16);
    expect(GROUPS.map((g) => g.priority)).toEqual(GROUPS.map((_, i) => i + 1));
    expect(GROUPS.find((g) => g.name === 'food')!.label).toBe('Food and drink');
  });

  test.each(SPEC_ATTRIBUTES)('%s is a template in the spec group %s with value type %d', (name, group, valueType) => {
    const template = TEMPLATES_BY_NAME.get(name);
    expect(template).toBeDefined();
    expect(template!.group).toBe(group === null ? 'social' : SPEC_GROUP[group]);
    expect(template!.valueType).toBe(valueType);
  });

  test('holds exactly the spec attributes, each once', () => {
    const names = TEMPLATES.map((t) => t.name);
    expect(new Set(names).size).toBe(names.length);
    expect([...names].sort()).toEqual(SPEC_ATTRIBUTES.map(([name]) => name).sort());
  });

  test('every template has a label, a known group and a positive priority', () => {
    for (const t of TEMPLATES) {
      expect(t.label.trim()).not.toBe('');
      expect(GROUP_NAMES).toContain(t.group);
      expect(Number.isInteger(t.priority) && t.priority >= 1).toBe(true);
    }
    expect(new Set(TEMPLATES.map((t) => t.label)).size).toBe(TEMPLATES.length);
  });

  test('the custom template has priority 1 so tags (priority >= 2) sort after it', () => {
    expect(TEMPLATES_BY_NAME.get('custom')!.priority).toBe(1);
  });

  test('low priority is kept for secondary templates; the first of each group is not', () => {
    const low = TEMPLATES.filter((t) => t.priority >= LOW_PRIORITY)
      .map((t) => t.name)
      .sort();
    expect(low).toEqual(['cholesterol', 'keystrokes', 'network2_username', 'sodium', 'weather_icon']);
    expect(TEMPLATES_BY_NAME.get('steps')!.priority).toBe(1);
  });

  test('value type descriptions are the spec strings, indexed by code', () => {
    expect(VALUE_TYPE_DESCRIPTIONS).toEqual([
      'Integer',
      'Float',
      'String',
      'Period (minutes as integer)',
      'Time of day (minutes from midnight as integer)',
      'Float, percentage expressed 0.0 to 1.0',
      'Time of day (minutes from midday as integer)',
      'Boolean',
      'Scale (1-9 as integer)',
    ]);
  });

  test('built-in services are daybook and daybook-demo', () => {
    expect(BUILTIN_SERVICES.map((s) => [s.name, s.label])).toEqual([
      ['daybook', 'Daybook'],
      ['daybook-demo', 'Daybook demo data'],
    ]);
  });
});

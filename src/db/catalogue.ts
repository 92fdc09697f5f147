/**
 * The catalogue: groups, value types and attribute templates, as reviewed data.
 *
 * Names, groups, value types and units come from the spec's "Supported attributes" table;
 * labels and priorities are ours. Group labels follow the spec's scope table ("Food and drink
 * group", "Health and body group", "Custom tags group"), which names every group; the attribute
 * table abbreviates some of them. Priority is display order within a group, most useful first;
 * priority >= 10 is the spec's "low priority" (hidden unless asked for), used only for templates
 * few people look at.
 *
 * Change this file like code: a template's name is a stable identifier (never rename one), its
 * group may move. `seedCatalogue` at the end writes it to the database.
 */

import type { Knex } from 'knex';

/** Every group name, in display order (the spec's list, which is also the scope prefix list). */
export const GROUP_NAMES = [
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
] as const;

/** A group name as used in filters and scope names. */
export type GroupName = (typeof GROUP_NAMES)[number];

/** A group as stored in `groups` and embedded in API objects. */
export interface GroupDef {
  readonly name: GroupName;
  readonly label: string;
  readonly priority: number;
}

const GROUP_LABELS: Record<GroupName, string> = {
  activity: 'Activity',
  productivity: 'Productivity',
  mood: 'Mood',
  sleep: 'Sleep',
  workouts: 'Workouts',
  events: 'Events',
  finance: 'Finance',
  food: 'Food and drink',
  health: 'Health and body',
  location: 'Location',
  media: 'Media',
  social: 'Social',
  weather: 'Weather',
  symptoms: 'Symptoms',
  medication: 'Medication',
  custom: 'Custom tags',
};

/** The 16 groups; priority is their position in the spec's list (1-based). */
export const GROUPS: readonly GroupDef[] = GROUP_NAMES.map((name, i) => ({
  name,
  label: GROUP_LABELS[name],
  priority: i + 1,
}));

/** Value type codes by meaning (the spec's "Value types" table). */
export const VALUE_TYPES = {
  integer: 0,
  float: 1,
  string: 2,
  period: 3,
  timeOfDay: 4,
  percentage: 5,
  timeFromMidday: 6,
  boolean: 7,
  scale: 8,
} as const;

/** A value type code, 0..8. */
export type ValueType = (typeof VALUE_TYPES)[keyof typeof VALUE_TYPES];

/** `value_type_description` for each value type, indexed by code; exact strings from the spec. */
export const VALUE_TYPE_DESCRIPTIONS = [
  'Integer',
  'Float',
  'String',
  'Period (minutes as integer)',
  'Time of day (minutes from midnight as integer)',
  'Float, percentage expressed 0.0 to 1.0',
  'Time of day (minutes from midday as integer)',
  'Boolean',
  'Scale (1-9 as integer)',
] as const;

/** Whether a value type is stored as text (`value_text`) rather than a number (`value_num`). */
export function isTextValueType(valueType: number): boolean {
  return valueType === VALUE_TYPES.string;
}

/** Whether values of this type must be JSON integers (docs/decisions.md, "Values and writes": integers for 0, 3, 4, 6, 7, 8). */
export function isIntegerValueType(valueType: number): boolean {
  return valueType !== VALUE_TYPES.float && valueType !== VALUE_TYPES.percentage && valueType !== VALUE_TYPES.string;
}

/** An attribute template as stored in `templates`. */
export interface TemplateDef {
  readonly name: string;
  readonly label: string;
  readonly group: GroupName;
  readonly valueType: ValueType;
  readonly priority: number;
  /** Unit as the spec words it, null when it gives none. */
  readonly unit: string | null;
  /** A constraint the spec states (not stored; for people and validators). */
  readonly note?: string;
}

const { integer: INT, float: FLOAT, string: STR, period: PERIOD, timeOfDay: TOD, percentage: PCT, timeFromMidday: TOD_NOON } = VALUE_TYPES;

/** Compact row: [name, label, group, value type, priority, unit, note?]. One line per template reads best. */
type Row = [string, string, GroupName, ValueType, number, string | null, string?];

const MIN = 'minutes';

const ROWS: Row[] = [
  // activity
  ['steps', 'Steps', 'activity', INT, 1, null],
  ['steps_active_min', 'Active minutes', 'activity', PERIOD, 2, MIN],
  ['steps_distance', 'Distance', 'activity', FLOAT, 3, 'km'],
  ['active_energy', 'Active energy', 'activity', FLOAT, 4, 'kJ'],
  ['floors', 'Floors climbed', 'activity', INT, 5, null],
  ['steps_elevation', 'Elevation', 'activity', FLOAT, 6, 'km'],
  ['cycle_min', 'Cycling time', 'activity', PERIOD, 7, MIN],
  ['cycle_distance', 'Cycling distance', 'activity', FLOAT, 8, 'km'],

  // workouts
  ['workouts', 'Workouts', 'workouts', INT, 1, null],
  ['workouts_min', 'Workout time', 'workouts', PERIOD, 2, MIN],
  ['workouts_distance', 'Workout distance', 'workouts', FLOAT, 3, 'km'],

  // productivity
  ['productive_min', 'Productive time', 'productivity', PERIOD, 1, MIN],
  ['distracting_min', 'Distracting time', 'productivity', PERIOD, 2, MIN],
  ['neutral_min', 'Neutral time', 'productivity', PERIOD, 3, MIN],
  ['tasks_completed', 'Tasks completed', 'productivity', INT, 4, null],
  ['commits', 'Commits', 'productivity', INT, 5, null],
  ['words_written', 'Words written', 'productivity', INT, 6, null],
  ['pomodoros_min', 'Pomodoro time', 'productivity', PERIOD, 7, MIN],
  ['emails_sent', 'Emails sent', 'productivity', INT, 8, null],
  ['emails_received', 'Emails received', 'productivity', INT, 9, null],
  // A raw count the spec lists with the period type; kept as listed, low priority (rarely useful).
  ['keystrokes', 'Keystrokes', 'productivity', PERIOD, 10, null, 'listed with the period type'],

  // custom: the day's tags as text; priority 1 so tag attributes (priority >= 2) sort after it.
  ['custom', 'Custom tags', 'custom', STR, 1, null, 'string of tags'],

  // food
  ['coffees', 'Coffees', 'food', INT, 1, null],
  ['alcoholic_drinks', 'Alcoholic drinks', 'food', INT, 2, null],
  ['water', 'Water', 'food', INT, 3, 'ml'],
  ['energy', 'Energy consumed', 'food', FLOAT, 4, 'kJ'],
  ['caffeine', 'Caffeine', 'food', FLOAT, 5, 'mg'],
  ['carbohydrates', 'Carbohydrates', 'food', FLOAT, 6, 'g'],
  ['protein', 'Protein', 'food', FLOAT, 6, 'g'],
  ['fat', 'Fat', 'food', FLOAT, 6, 'g'],
  ['fibre', 'Fibre', 'food', FLOAT, 7, 'g'],
  ['sugar', 'Sugar', 'food', FLOAT, 7, 'g'],
  // Micronutrients only detailed food logs carry: low priority.
  ['sodium', 'Sodium', 'food', FLOAT, 10, 'mg'],
  ['cholesterol', 'Cholesterol', 'food', FLOAT, 10, 'mg'],

  // finance
  ['money_spent', 'Money spent', 'finance', FLOAT, 1, "user's local currency unit"],

  // mood
  ['mood', 'Mood', 'mood', INT, 1, null, 'integer 1 to 9 inclusive'],
  ['mood_note', 'Mood note', 'mood', STR, 2, null, 'string, max 1000 characters'],

  // sleep
  ['sleep', 'Time asleep', 'sleep', PERIOD, 1, MIN],
  ['time_in_bed', 'Time in bed', 'sleep', PERIOD, 2, MIN],
  ['sleep_start', 'Bedtime', 'sleep', TOD_NOON, 3, 'minutes from midday'],
  ['sleep_end', 'Wake time', 'sleep', TOD, 4, 'minutes from midnight'],
  ['sleep_awakenings', 'Awakenings', 'sleep', INT, 5, null],

  // events
  ['events', 'Events', 'events', INT, 1, null],
  ['events_duration', 'Time in events', 'events', PERIOD, 2, MIN],

  // health
  ['weight', 'Weight', 'health', FLOAT, 1, 'kg'],
  ['body_fat', 'Body fat', 'health', PCT, 2, null, '0.0 to 1.0'],
  ['lean_mass', 'Lean mass', 'health', FLOAT, 3, 'kg'],
  ['heartrate_resting', 'Resting heart rate', 'health', INT, 4, null],
  ['heartrate', 'Heart rate', 'health', INT, 5, null],
  ['heartrate_max', 'Maximum heart rate', 'health', INT, 6, null],
  ['meditation_min', 'Meditation', 'health', PERIOD, 7, MIN],
  ['menstrual_flow', 'Menstrual flow', 'health', INT, 8, null, '0 none, 1 spotting, 2 light, 3 medium, 4 heavy'],
  ['sexual_activity', 'Sexual activity', 'health', INT, 9, null],

  // location
  ['checkins', 'Check-ins', 'location', INT, 1, null],
  ['location', 'Location', 'location', STR, 2, null, "string 'lat,lng', both floats"],

  // media
  ['tracks', 'Tracks played', 'media', INT, 1, null],
  ['pages_read', 'Pages read', 'media', INT, 2, null],
  ['articles_read', 'Articles read', 'media', INT, 3, null],
  ['mobile_screen_min', 'Phone screen time', 'media', PERIOD, 4, MIN],
  ['tv_min', 'TV time', 'media', PERIOD, 5, MIN],
  ['gaming_min', 'Gaming time', 'media', PERIOD, 6, MIN],

  // social
  ['network1_posts', 'Network 1 posts', 'social', INT, 1, null],
  ['network1_comments', 'Network 1 comments', 'social', INT, 2, null],
  ['network1_reactions', 'Network 1 reactions', 'social', INT, 3, null],
  // The spec's listing leaves the group of the network2_* rows empty; they are a social network's
  // counts like network1_*, so they live in social. The username is not a measure: low priority.
  ['network2_posts', 'Network 2 posts', 'social', INT, 4, null],
  ['network2_mentions', 'Network 2 mentions', 'social', INT, 5, null],
  ['network2_username', 'Network 2 username', 'social', STR, 10, null],

  // weather
  ['weather_temp_max', 'Maximum temperature', 'weather', FLOAT, 1, 'degrees Celsius'],
  ['weather_temp_min', 'Minimum temperature', 'weather', FLOAT, 2, 'degrees Celsius'],
  ['weather_precipitation', 'Precipitation', 'weather', FLOAT, 3, 'inches of water per hour'],
  ['weather_cloud_cover', 'Cloud cover', 'weather', PCT, 4, null, '0.0 to 1.0'],
  ['weather_wind_speed', 'Wind speed', 'weather', FLOAT, 5, 'km/hr'],
  ['weather_summary', 'Weather summary', 'weather', STR, 6, null],
  ['sunrise', 'Sunrise', 'weather', TOD, 7, 'minutes from midnight'],
  ['sunset', 'Sunset', 'weather', TOD_NOON, 8, 'minutes from midday'],
  // An icon name is for display next to the summary, not data to look at: low priority.
  ['weather_icon', 'Weather icon', 'weather', STR, 10, null, 'name of icon'],
];

/** Every template, in catalogue order (group by group). */
export const TEMPLATES: readonly TemplateDef[] = ROWS.map(([name, label, group, valueType, priority, unit, note]) => ({
  name,
  label,
  group,
  valueType,
  priority,
  unit,
  ...(note === undefined ? {} : { note }),
}));

/** Templates keyed by name. */
export const TEMPLATES_BY_NAME: ReadonlyMap<string, TemplateDef> = new Map(TEMPLATES.map((t) => [t.name, t]));

/** Priorities at or above this are the spec's "low priority". */
export const LOW_PRIORITY = 10;

/** A built-in service row in `oauth_clients` (no secret, never used to sign in). */
export interface BuiltinServiceDef {
  /** `client_id`, the service `name` on the wire. */
  readonly name: string;
  /** The service `label` on the wire. */
  readonly label: string;
  readonly description: string;
}

/** Owner of attributes a person tracks by hand in the web pages (docs/decisions.md, "Values and writes"). */
export const MANUAL_SERVICE: BuiltinServiceDef = {
  name: 'daybook',
  label: 'Daybook',
  description: 'Attributes you track by hand in Daybook.',
};

/** Owner of the demo generator's attributes. */
export const DEMO_SERVICE: BuiltinServiceDef = {
  name: 'daybook-demo',
  label: 'Daybook demo data',
  description: 'Synthetic data generated to show what Daybook does.',
};

/** The built-in services seeded with the catalogue. */
export const BUILTIN_SERVICES: readonly BuiltinServiceDef[] = [MANUAL_SERVICE, DEMO_SERVICE];

/**
 * Writes groups, templates and the built-in services, idempotently (INSERT ... ON CONFLICT DO
 * UPDATE), so every start can run it and a reviewed change to this file reaches the database.
 * Templates dropped from the file are left in place: attributes may still refer to them.
 */
export async function seedCatalogue(knex: Knex): Promise<void> {
  await knex.transaction(async (trx) => {
    await trx('groups')
      .insert(GROUPS.map((g) => ({ name: g.name, label: g.label, priority: g.priority })))
      .onConflict('name')
      .merge(['label', 'priority']);
    await trx('templates')
      .insert(
        TEMPLATES.map((t) => ({
          name: t.name,
          label: t.label,
          group_name: t.group,
          value_type: t.valueType,
          priority: t.priority,
          unit: t.unit,
        })),
      )
      .onConflict('name')
      .merge(['label', 'group_name', 'value_type', 'priority', 'unit']);
    await trx('oauth_clients')
      .insert(
        BUILTIN_SERVICES.map((s) => ({
          client_id: s.name,
          name: s.label,
          description: s.description,
          secret_hash: null,
          // Not confidential and no redirect URIs: nobody can run an OAuth flow as a built-in.
          confidential: false,
          builtin: true,
        })),
      )
      .onConflict('client_id')
      .merge(['name', 'description', 'builtin']);
  });
}

/**
 * The catalogue's attribute templates, as reviewed data.
 *
 * Names, groups, value types and units come from the interface's table of supported attributes;
 * labels and priorities are ours (docs/decisions.md, "What Daybook takes from the interface").
 * Priority is display order within a group, most useful first; priority >= 10 is "low priority"
 * (hidden unless asked for, as the OpenAPI documents say), used only for templates few people
 * look at.
 *
 * Change this file like code: a template's name is a stable identifier (never rename one), its
 * group may move. `seedCatalogue` (seed-catalogue.ts) writes it to the database.
 */

import type { GroupName } from './catalogue-groups';
import { VALUE_TYPES, type ValueType } from './catalogue-value-types';

/** An attribute template as stored in `templates`. */
export interface TemplateDef {
  readonly name: string;
  readonly label: string;
  readonly group: GroupName;
  readonly valueType: ValueType;
  readonly priority: number;
  /** Unit as the table of supported attributes words it, null when it gives none. */
  readonly unit: string | null;
  /** A constraint that table states (not stored; for people and validators). */
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
  // A raw count the table lists with the period type; kept as listed, low priority (rarely useful;
  // docs/decisions.md, "What Daybook takes from the interface").
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
  // The table leaves the group of the network2_* rows empty; they are a social network's counts
  // like network1_*, so they live in social (docs/decisions.md, "What Daybook takes from the interface"). The username is not a measure: low priority.
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

/** Priorities at or above this are "low priority" (openapi/v2/schemas/Attribute.yaml, `priority`). */
export const LOW_PRIORITY = 10;

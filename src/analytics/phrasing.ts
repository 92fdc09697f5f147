/**
 * How correlations speak to the person: for each attribute a clause for "more" (higher, later) and
 * one for "less" (lower, earlier), e.g. sleep: "you spend more time asleep" / "you spend less time
 * asleep"; sleep_start: "you go to bed later" / "you go to bed earlier". Data, one line per
 * template, reviewed like the catalogue: every numeric template has its clauses (a unit test checks
 * it). Custom tags and other custom attributes get clauses made from their label.
 *
 * Also here: which templates are daily totals that grow during the day (steps, coffees), which
 * insights must not call "low" before the day is over.
 */
import { TEMPLATES_BY_NAME } from '../db/catalogue-templates';
import { VALUE_TYPES } from '../db/catalogue-value-types';
import { isTagAttribute } from './series';

/** The two clauses of one attribute. */
export interface Phrasing {
  more: string;
  less: string;
}

/** [more, less, grows during the day]. */
type Entry = readonly [string, string, boolean?];

const TOTAL = true;

/** Clauses of every numeric template of the catalogue (string templates never correlate). */
export const TEMPLATE_PHRASES: Readonly<Record<string, Entry>> = {
  // activity
  steps: ['you walk more', 'you walk less', TOTAL],
  steps_active_min: ['you are active for longer', 'you are active for less time', TOTAL],
  steps_distance: ['you walk further', 'you walk a shorter distance', TOTAL],
  active_energy: ['you burn more active energy', 'you burn less active energy', TOTAL],
  floors: ['you climb more floors', 'you climb fewer floors', TOTAL],
  steps_elevation: ['you climb higher', 'you climb less high', TOTAL],
  cycle_min: ['you cycle for longer', 'you cycle for less time', TOTAL],
  cycle_distance: ['you cycle further', 'you cycle a shorter distance', TOTAL],
  // workouts
  workouts: ['you do more workouts', 'you do fewer workouts', TOTAL],
  workouts_min: ['you work out for longer', 'you work out for less time', TOTAL],
  workouts_distance: ['you cover more distance in workouts', 'you cover less distance in workouts', TOTAL],
  // productivity
  productive_min: ['you spend more time being productive', 'you spend less time being productive', TOTAL],
  distracting_min: ['you spend more time on distractions', 'you spend less time on distractions', TOTAL],
  neutral_min: ['you spend more neutral time on your devices', 'you spend less neutral time on your devices', TOTAL],
  tasks_completed: ['you complete more tasks', 'you complete fewer tasks', TOTAL],
  commits: ['you make more commits', 'you make fewer commits', TOTAL],
  words_written: ['you write more words', 'you write fewer words', TOTAL],
  pomodoros_min: ['you spend more time in pomodoros', 'you spend less time in pomodoros', TOTAL],
  emails_sent: ['you send more emails', 'you send fewer emails', TOTAL],
  emails_received: ['you receive more emails', 'you receive fewer emails', TOTAL],
  keystrokes: ['you type more', 'you type less', TOTAL],
  // food and drink
  coffees: ['you drink more coffee', 'you drink less coffee', TOTAL],
  alcoholic_drinks: ['you have more alcoholic drinks', 'you have fewer alcoholic drinks', TOTAL],
  water: ['you drink more water', 'you drink less water', TOTAL],
  energy: ['you eat more', 'you eat less', TOTAL],
  caffeine: ['you have more caffeine', 'you have less caffeine', TOTAL],
  carbohydrates: ['you eat more carbohydrates', 'you eat fewer carbohydrates', TOTAL],
  protein: ['you eat more protein', 'you eat less protein', TOTAL],
  fat: ['you eat more fat', 'you eat less fat', TOTAL],
  fibre: ['you eat more fibre', 'you eat less fibre', TOTAL],
  sugar: ['you eat more sugar', 'you eat less sugar', TOTAL],
  sodium: ['you have more sodium', 'you have less sodium', TOTAL],
  cholesterol: ['you have more cholesterol', 'you have less cholesterol', TOTAL],
  // finance
  money_spent: ['you spend more money', 'you spend less money', TOTAL],
  // mood
  mood: ['you are happier', 'you are less happy'],
  // sleep (times of day: more is later)
  sleep: ['you spend more time asleep', 'you spend less time asleep'],
  time_in_bed: ['you spend more time in bed', 'you spend less time in bed'],
  sleep_start: ['you go to bed later', 'you go to bed earlier'],
  sleep_end: ['you wake up later', 'you wake up earlier'],
  sleep_awakenings: ['you wake up more often in the night', 'you wake up less often in the night'],
  // events
  events: ['you have more events', 'you have fewer events', TOTAL],
  events_duration: ['you spend more time in events', 'you spend less time in events', TOTAL],
  // health
  weight: ['you weigh more', 'you weigh less'],
  body_fat: ['your body fat is higher', 'your body fat is lower'],
  lean_mass: ['your lean mass is higher', 'your lean mass is lower'],
  heartrate_resting: ['your resting heart rate is higher', 'your resting heart rate is lower'],
  heartrate: ['your heart rate is higher', 'your heart rate is lower'],
  heartrate_max: ['your maximum heart rate is higher', 'your maximum heart rate is lower'],
  meditation_min: ['you meditate for longer', 'you meditate for less time', TOTAL],
  menstrual_flow: ['your menstrual flow is heavier', 'your menstrual flow is lighter'],
  sexual_activity: ['you have more sexual activity', 'you have less sexual activity', TOTAL],
  // location
  checkins: ['you check in at more places', 'you check in at fewer places', TOTAL],
  // media
  tracks: ['you listen to more music', 'you listen to less music', TOTAL],
  pages_read: ['you read more pages', 'you read fewer pages', TOTAL],
  articles_read: ['you read more articles', 'you read fewer articles', TOTAL],
  mobile_screen_min: ['you spend more time on your phone', 'you spend less time on your phone', TOTAL],
  tv_min: ['you watch more TV', 'you watch less TV', TOTAL],
  gaming_min: ['you spend more time gaming', 'you spend less time gaming', TOTAL],
  // social
  network1_posts: ['you post more on network 1', 'you post less on network 1', TOTAL],
  network1_comments: ['you comment more on network 1', 'you comment less on network 1', TOTAL],
  network1_reactions: ['you get more reactions on network 1', 'you get fewer reactions on network 1', TOTAL],
  network2_posts: ['you post more on network 2', 'you post less on network 2', TOTAL],
  network2_mentions: ['you get more mentions on network 2', 'you get fewer mentions on network 2', TOTAL],
  // weather
  weather_temp_max: ['the day is warmer', 'the day is cooler'],
  weather_temp_min: ['the night is warmer', 'the night is colder'],
  weather_precipitation: ['it rains more', 'it rains less'],
  weather_cloud_cover: ['it is cloudier', 'it is less cloudy'],
  weather_wind_speed: ['it is windier', 'it is less windy'],
  sunrise: ['the sun rises later', 'the sun rises earlier'],
  sunset: ['the sun sets later', 'the sun sets earlier'],
};

/** The attribute fields phrasing needs. */
export interface PhrasedAttribute {
  template: string | null;
  label: string;
  group: string;
  valueType: number;
  priority: number;
}

/** A tag's or custom attribute's label as it reads inside a sentence (tag names keep `_` for spaces). */
function spoken(label: string): string {
  return label.replace(/_/g, ' ').trim();
}

/** The clauses of any numeric attribute: its template's, else made from its label and value type. */
export function phrasingFor(attribute: PhrasedAttribute): Phrasing {
  const entry = attribute.template ? TEMPLATE_PHRASES[attribute.template] : undefined;
  if (entry) return { more: entry[0], less: entry[1] };
  const label = spoken(attribute.label);
  if (isTagAttribute(attribute)) return { more: `you tag "${label}"`, less: `you don't tag "${label}"` };
  const name = label.toLowerCase();
  switch (attribute.valueType) {
    case VALUE_TYPES.timeOfDay:
    case VALUE_TYPES.timeFromMidday:
      return { more: `your ${name} is later`, less: `your ${name} is earlier` };
    case VALUE_TYPES.boolean:
      return { more: `you mark "${label}"`, less: `you don't mark "${label}"` };
    case VALUE_TYPES.period:
      return { more: `you spend more time on ${name}`, less: `you spend less time on ${name}` };
    default:
      return { more: `your ${name} is higher`, less: `your ${name} is lower` };
  }
}

/**
 * Whether the attribute's value is a daily total that grows as the day goes on (steps, coffees,
 * a tag), so today's value is not final until the day ends.
 */
export function growsDuringTheDay(attribute: PhrasedAttribute): boolean {
  const entry = attribute.template ? TEMPLATE_PHRASES[attribute.template] : undefined;
  if (entry) return entry[2] === true;
  if (isTagAttribute(attribute)) return true;
  return attribute.valueType === VALUE_TYPES.integer || attribute.valueType === VALUE_TYPES.period;
}

/** The template's clauses are defined for every numeric template (for the unit test). */
export function templatesWithoutPhrasing(): string[] {
  return [...TEMPLATES_BY_NAME.values()].filter((t) => t.valueType !== VALUE_TYPES.string && !TEMPLATE_PHRASES[t.name]).map((t) => t.name);
}

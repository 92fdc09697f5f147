/**
 * How the demo generator makes each template's values: ranges, weekly and seasonal rhythms, and
 * the few planted relationships. Data-like on purpose: one short model per template.
 *
 * Independence is by construction. Each template draws from its own random stream; the only
 * shared inputs are the "drivers" below, and each driver feeds exactly the pairs listed in
 * PLANTED_RELATIONSHIPS. Mood follows the part of sleep that coffee did not cause, so
 * coffee -> sleep and sleep -> mood leave coffee and next-day mood unrelated.
 */
import { Rng } from './demo-random';

/** One generated day. */
export interface DemoDay {
  readonly date: string;
  /** 0 Monday .. 6 Sunday. */
  readonly weekday: number;
  /** 0-based day of the year, for seasons. */
  readonly dayOfYear: number;
}

/** Latent daily series several templates read; index = day index. */
export interface Drivers {
  readonly steps: readonly number[];
  readonly coffees: readonly number[];
  /** Standard-normal sleep quality not caused by coffee; drives sleep and mood. */
  readonly sleepBase: readonly number[];
  readonly alcohol: readonly number[];
  readonly tempMax: readonly number[];
  /** Index into WEATHER, so a day's summary and icon agree. */
  readonly weatherKind: readonly number[];
}

/** Everything a model sees. */
export interface DemoContext {
  readonly days: readonly DemoDay[];
  readonly drivers: Drivers;
  /** Weekly and seasonal rhythms and drift on; off gives every series no time structure at all. */
  readonly rhythms: boolean;
}

/** A template's model: its share of missing days and its values, one per day (missing applied later). */
export interface DemoModel {
  readonly missing: number;
  generate(rng: Rng, ctx: DemoContext): Array<number | string>;
}

const clamp = (v: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, v));
const round = (v: number, dp: number): number => Math.round(v * 10 ** dp) / 10 ** dp;
const isWeekend = (d: DemoDay): boolean => d.weekday >= 5;
const isFriOrSat = (d: DemoDay): boolean => d.weekday === 4 || d.weekday === 5;
/** +1 at the warmest time of year (mid July, northern hemisphere), -1 mid January. */
const warmth = (d: DemoDay): number => Math.cos((2 * Math.PI * (d.dayOfYear - 196)) / 365.25);
/** +1 at the June solstice. */
const daylight = (d: DemoDay): number => Math.cos((2 * Math.PI * (d.dayOfYear - 172)) / 365.25);

/** Chances of 0, 1, 2 … coffees (or drinks) a day. */
const COFFEE_WEIGHTS = [0.15, 0.3, 0.3, 0.15, 0.07, 0.03];
/** Subtracted so that coffee moves sleep around its usual length rather than only down. */
const MEAN_COFFEES = COFFEE_WEIGHTS.reduce((sum, w, i) => sum + w * i, 0);
const ALCOHOL_WEIGHTS = [0.55, 0.15, 0.12, 0.08, 0.05, 0.03, 0.02];

/** Weather kinds: [summary, icon]. */
const WEATHER = [
  ['Clear throughout the day.', 'clear-day'],
  ['Partly cloudy throughout the day.', 'partly-cloudy-day'],
  ['Mostly cloudy throughout the day.', 'cloudy'],
  ['Light rain in the afternoon.', 'rain'],
  ['Windy in the morning.', 'wind'],
  ['Foggy in the morning.', 'fog'],
] as const;

/** Builds the driver series; each from its own stream, so they are independent of each other. */
export function buildDrivers(seed: number, user: number, days: readonly DemoDay[], rhythms: boolean): Drivers {
  const stream = (name: string) => new Rng(seed, `u${user}:driver:${name}`);
  const steps = stream('steps');
  const coffees = stream('coffees');
  const sleep = stream('sleep');
  const alcohol = stream('alcohol');
  const temp = stream('temp');
  const weather = stream('weather');
  const stepsLevel = steps.normal(7500, 800);
  return {
    steps: days.map((d) => {
      const weekend = rhythms && isWeekend(d) ? 1800 : 0;
      return Math.round(clamp(steps.normal(stepsLevel + weekend, 2200), 2000, 15000));
    }),
    coffees: days.map(() => coffees.weighted(COFFEE_WEIGHTS)),
    sleepBase: days.map(() => sleep.normal()),
    alcohol: days.map((d) => {
      // More drinks on Friday and Saturday evenings.
      const w = rhythms && isFriOrSat(d) ? [0.3, 0.15, 0.18, 0.15, 0.1, 0.07, 0.05] : ALCOHOL_WEIGHTS;
      return alcohol.weighted(w);
    }),
    tempMax: days.map((d) => round((rhythms ? 14 + 9 * warmth(d) : 14) + temp.normal(0, 3), 1)),
    weatherKind: days.map(() => weather.int(0, WEATHER.length - 1)),
  };
}

/** A model whose day values are drawn independently by `value`. */
function daily(missing: number, value: (rng: Rng, day: DemoDay, i: number, ctx: DemoContext) => number | string): DemoModel {
  return { missing, generate: (rng, ctx) => ctx.days.map((day, i) => value(rng, day, i, ctx)) };
}

/** Integer ~ N(mean, sd) clamped to [lo, hi]. */
const intNormal = (mean: number, sd: number, lo: number, hi: number) => daily(0.05, (r) => Math.round(clamp(r.normal(mean, sd), lo, hi)));

/** Float ~ N(mean, sd) clamped to [lo, hi], rounded to dp decimals. */
const floatNormal = (mean: number, sd: number, lo: number, hi: number, dp = 1) => daily(0.05, (r) => round(clamp(r.normal(mean, sd), lo, hi), dp));

/** Activities done on some days: with chance pDone ~ N(mean, sd) within [lo, hi] (dp decimals), else 0. */
const someDays = (pDone: number, mean: number, sd: number, lo: number, hi: number, dp = 0) =>
  daily(0.05, (r) => (r.chance(pDone) ? round(clamp(r.normal(mean, sd), lo, hi), dp) : 0));

/**
 * Scatter (sd) around a per-user level drawn once from N(level[0], level[1]), within range, for
 * measures that differ between people more than from day to day.
 */
function levelled(missing: number, level: [number, number], sd: number, range: [number, number], dp: number): DemoModel {
  return {
    missing,
    generate(rng, ctx) {
      const mean = rng.normal(level[0], level[1]);
      return ctx.days.map(() => round(clamp(rng.normal(mean, sd), range[0], range[1]), dp));
    },
  };
}

/** A user's weight: a slow random walk (rhythms) or scatter around one level (no rhythms). */
const weightModel: DemoModel = {
  missing: 0.35, // not everyone steps on the scales daily
  generate(rng, ctx) {
    let level = rng.normal(75, 8);
    return ctx.days.map(() => {
      if (ctx.rhythms) level += rng.normal(0, 0.08);
      return round(level + rng.normal(0, 0.35), 1);
    });
  },
};

/** Flow on the first five days of a 28-day cycle (rhythms), else rare scattered values. */
const menstrualModel: DemoModel = {
  missing: 0.05,
  generate(rng, ctx) {
    const start = rng.int(0, 27);
    const flow = [2, 4, 3, 2, 1];
    return ctx.days.map((_, i) => {
      if (!ctx.rhythms) return rng.chance(0.18) ? rng.int(1, 4) : 0;
      const dayOfCycle = (i + start) % 28;
      return dayOfCycle < flow.length ? flow[dayOfCycle] : 0;
    });
  },
};

const MOOD_NOTES = [
  'Good day, got a lot done.',
  'Tired but okay.',
  'Lovely walk in the park.',
  'Stressful meeting in the afternoon.',
  'Dinner with friends.',
  'Quiet day at home.',
  'Felt a bit under the weather.',
  'Great workout this morning!',
];
const TAGS = ['work', 'gym', 'friends', 'family', 'travel', 'reading', 'headache', 'late night'];

/** The model of every template the generator supports (all of the catalogue). */
export const DEMO_MODELS: Readonly<Record<string, DemoModel>> = {
  // activity: steps and active energy are a planted pair
  steps: daily(0.04, (_r, _d, i, ctx) => ctx.drivers.steps[i]),
  active_energy: daily(0.04, (r, _d, i, ctx) => round(clamp(150 + 0.17 * ctx.drivers.steps[i] + r.normal(0, 200), 200, 4000), 1)),
  steps_active_min: intNormal(55, 20, 5, 180),
  steps_distance: floatNormal(5.2, 1.8, 1, 12, 2),
  floors: intNormal(10, 5, 0, 40),
  steps_elevation: floatNormal(0.05, 0.03, 0, 0.3, 3),
  cycle_min: someDays(0.3, 45, 20, 10, 150),
  cycle_distance: someDays(0.3, 14, 6, 3, 50, 1),

  workouts: daily(0.05, (r) => r.weighted([0.5, 0.42, 0.08])),
  workouts_min: someDays(0.5, 45, 15, 15, 120),
  workouts_distance: someDays(0.4, 6, 3, 1, 21, 1),

  // productivity: work happens on weekdays
  productive_min: daily(0.05, (r, d, _i, ctx) => {
    const mean = !ctx.rhythms ? 240 : isWeekend(d) ? 90 : 300;
    return Math.round(clamp(r.normal(mean, ctx.rhythms && isWeekend(d) ? 40 : 60), 0, 600));
  }),
  distracting_min: intNormal(80, 30, 0, 300),
  neutral_min: intNormal(60, 20, 0, 240),
  tasks_completed: daily(0.05, (r, d, _i, ctx) => Math.round(clamp(r.normal(ctx.rhythms && isWeekend(d) ? 2 : 5, 2.5), 0, 20))),
  commits: intNormal(6, 4, 0, 30),
  words_written: intNormal(800, 400, 0, 4000),
  pomodoros_min: daily(0.05, (r) => 25 * r.int(0, 8)),
  emails_sent: intNormal(12, 6, 0, 60),
  emails_received: intNormal(45, 15, 0, 150),
  keystrokes: intNormal(12000, 5000, 0, 40000),

  custom: daily(0.3, (r) => {
    const picked = TAGS.filter(() => r.chance(0.25));
    return (picked.length > 0 ? picked : [r.pick(TAGS)]).join(', ');
  }),

  // food: coffees (planted, next-day sleep) and alcohol (planted, awakenings)
  coffees: daily(0.05, (_r, _d, i, ctx) => ctx.drivers.coffees[i]),
  alcoholic_drinks: daily(0.05, (_r, _d, i, ctx) => ctx.drivers.alcohol[i]),
  water: daily(0.08, (r) => 50 * Math.round(clamp(r.normal(1800, 400), 500, 4000) / 50)),
  energy: floatNormal(8700, 1300, 4000, 16000),
  caffeine: floatNormal(180, 80, 0, 600),
  carbohydrates: floatNormal(250, 50, 80, 500),
  protein: floatNormal(90, 20, 30, 200),
  fat: floatNormal(75, 20, 20, 180),
  fibre: floatNormal(25, 7, 5, 60),
  sugar: floatNormal(60, 20, 10, 200),
  sodium: floatNormal(2300, 500, 800, 5000),
  cholesterol: floatNormal(250, 80, 50, 700),

  money_spent: daily(0.05, (r) => round(Math.exp(r.normal(3.3, 0.7)), 2)),

  // mood: follows the coffee-free part of sleep (planted sleep -> mood)
  mood: daily(0.05, (r, _d, i, ctx) => Math.round(clamp(5.5 + 1.1 * ctx.drivers.sleepBase[i] + r.normal(0, 1.1), 1, 9))),
  mood_note: daily(0.6, (r) => r.pick(MOOD_NOTES)),

  // sleep: the previous day's coffees shorten it (planted, offset -1)
  sleep: daily(0.04, (_r, d, i, ctx) => {
    const coffeesYesterday = i > 0 ? ctx.drivers.coffees[i - 1] : MEAN_COFFEES;
    const lieIn = ctx.rhythms && isWeekend(d) ? 25 : 0;
    return Math.round(clamp(450 + lieIn + 40 * ctx.drivers.sleepBase[i] - 18 * (coffeesYesterday - MEAN_COFFEES), 360, 540));
  }),
  time_in_bed: intNormal(490, 35, 400, 620),
  // minutes from midday: 660 is 23:00; later on Friday and Saturday nights
  sleep_start: daily(0.04, (r, d, _i, ctx) => Math.round(clamp(r.normal(ctx.rhythms && isFriOrSat(d) ? 720 : 660, 35), 540, 870))),
  // minutes from midnight: 420 is 07:00; later at weekends
  sleep_end: daily(0.04, (r, d, _i, ctx) => Math.round(clamp(r.normal(ctx.rhythms && isWeekend(d) ? 500 : 420, 35), 300, 660))),
  sleep_awakenings: daily(0.04, (r, _d, i, ctx) => Math.min(15, r.poisson(1 + 0.8 * ctx.drivers.alcohol[i]))),

  events: daily(0.05, (r, d, _i, ctx) => Math.round(clamp(r.normal(ctx.rhythms && isWeekend(d) ? 1 : 3, 2), 0, 12))),
  events_duration: intNormal(150, 80, 0, 600),

  weight: weightModel,
  body_fat: levelled(0.35, [0.22, 0.03], 0.01, [0.15, 0.3], 3),
  lean_mass: levelled(0.35, [57, 5], 0.6, [35, 90], 1),
  heartrate_resting: intNormal(60, 3, 45, 80),
  heartrate: intNormal(75, 5, 55, 100),
  heartrate_max: intNormal(150, 15, 110, 195),
  meditation_min: someDays(0.4, 15, 5, 5, 45),
  menstrual_flow: menstrualModel,
  sexual_activity: daily(0.05, (r) => (r.chance(0.25) ? 1 : 0)),

  checkins: intNormal(2, 1.5, 0, 10),
  location: daily(0.1, (r) => `${round(51.5074 + r.normal(0, 0.02), 4)},${round(-0.1278 + r.normal(0, 0.03), 4)}`),

  tracks: intNormal(25, 15, 0, 120),
  pages_read: intNormal(20, 15, 0, 150),
  articles_read: intNormal(4, 3, 0, 25),
  mobile_screen_min: intNormal(180, 50, 20, 600),
  tv_min: intNormal(70, 45, 0, 300),
  gaming_min: someDays(0.4, 60, 30, 10, 240),

  network1_posts: intNormal(1, 1, 0, 10),
  network1_comments: intNormal(3, 2.5, 0, 20),
  network1_reactions: intNormal(12, 8, 0, 60),
  network2_posts: intNormal(2, 2, 0, 20),
  network2_mentions: intNormal(1, 1.5, 0, 15),
  network2_username: daily(0.5, () => 'daybook_demo'),

  // weather: max and min temperature are a planted pair; seasons with rhythms on
  weather_temp_max: daily(0.01, (_r, _d, i, ctx) => ctx.drivers.tempMax[i]),
  weather_temp_min: daily(0.01, (r, _d, i, ctx) => round(ctx.drivers.tempMax[i] - clamp(r.normal(7, 2), 1, 15), 1)),
  weather_precipitation: daily(0.01, (r) => (r.chance(0.4) ? round(Math.exp(r.normal(-3, 1)), 3) : 0)),
  weather_cloud_cover: daily(0.01, (r) => round(r.float(), 2)),
  weather_wind_speed: floatNormal(15, 6, 0, 70),
  weather_summary: daily(0.01, (_r, _d, i, ctx) => WEATHER[ctx.drivers.weatherKind[i]][0]),
  weather_icon: daily(0.01, (_r, _d, i, ctx) => WEATHER[ctx.drivers.weatherKind[i]][1]),
  // London-like day lengths with rhythms on; scatter over the same range without
  sunrise: daily(0.01, (r, d, _i, ctx) => Math.round(ctx.rhythms ? 385 - 102 * daylight(d) : r.int(283, 487))),
  sunset: daily(0.01, (r, d, _i, ctx) => Math.round(ctx.rhythms ? 397 + 164 * daylight(d) : r.int(233, 561))),
};

/**
 * Templates whose values follow the calendar when rhythms are on (so they relate to each other
 * through it): documentation for people reading the generator, kept beside the models it describes.
 * @public
 */
export const RHYTHMIC_TEMPLATES: Readonly<Record<string, string>> = {
  steps: 'more at weekends',
  active_energy: 'follows steps',
  productive_min: 'much less at weekends',
  tasks_completed: 'fewer at weekends',
  events: 'fewer at weekends',
  sleep: 'longer at weekends',
  sleep_start: 'an hour later on Friday and Saturday nights',
  sleep_end: 'later at weekends',
  alcoholic_drinks: 'more on Friday and Saturday',
  sleep_awakenings: 'follows alcoholic drinks',
  weight: 'slow drift',
  menstrual_flow: '28-day cycle',
  weather_temp_max: 'seasons',
  weather_temp_min: 'seasons',
  sunrise: 'seasons',
  sunset: 'seasons',
};

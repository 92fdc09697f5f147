/**
 * The demo data generator: deterministic, synthetic but plausible daily values for catalogue
 * templates, with a few planted relationships and nothing else related (see demo-models.ts).
 */
import { TEMPLATES, TEMPLATES_BY_NAME } from '../db/catalogue-templates';
import type { ValueType } from '../db/catalogue-value-types';
import { DEMO_MODELS, buildDrivers, type DemoDay } from './demo-models';
import { Rng } from './demo-random';

/** A relationship the generator puts into the data on purpose. */
export interface PlantedRelationship {
  readonly attribute: string;
  readonly attribute2: string;
  /** docs/decisions.md's meaning: 0 same day, -1 when attribute2 is the day after attribute. */
  readonly offset: 0 | -1;
  readonly direction: 'positive' | 'negative';
  /** Pearson r over a year of generated data; seeds and the rhythms setting land within about 0.1. */
  readonly approximateR: number;
}

/**
 * The only related pairs (and offsets) in generated data. With `rhythms: false` every other pair
 * of templates, at offsets 0 and -1, is independent. With rhythms on (the default) templates in
 * RHYTHMIC_TEMPLATES also relate through weekday, season or drift, as real data does.
 */
export const PLANTED_RELATIONSHIPS: readonly PlantedRelationship[] = [
  { attribute: 'steps', attribute2: 'active_energy', offset: 0, direction: 'positive', approximateR: 0.9 },
  { attribute: 'sleep', attribute2: 'mood', offset: 0, direction: 'positive', approximateR: 0.6 },
  { attribute: 'coffees', attribute2: 'sleep', offset: -1, direction: 'negative', approximateR: -0.47 },
  { attribute: 'alcoholic_drinks', attribute2: 'sleep_awakenings', offset: 0, direction: 'positive', approximateR: 0.67 },
  { attribute: 'weather_temp_max', attribute2: 'weather_temp_min', offset: 0, direction: 'positive', approximateR: 0.9 },
];

/**
 * The default selection (25 templates over 13 of the 14 groups that have templates; custom tags
 * are left out): every planted pair plus the measures most people track.
 */
export const DEFAULT_DEMO_TEMPLATES: readonly string[] = [
  'steps',
  'active_energy',
  'steps_active_min',
  'sleep',
  'sleep_start',
  'sleep_end',
  'sleep_awakenings',
  'mood',
  'mood_note',
  'coffees',
  'alcoholic_drinks',
  'water',
  'productive_min',
  'distracting_min',
  'tasks_completed',
  'weight',
  'body_fat',
  'heartrate_resting',
  'workouts',
  'money_spent',
  'events',
  'checkins',
  'tracks',
  'network1_posts',
  'weather_temp_max',
];

/** Selection order for a count: the defaults, then the rest of the catalogue, `custom` last. */
const ORDER: readonly string[] = [
  ...DEFAULT_DEMO_TEMPLATES,
  ...TEMPLATES.map((t) => t.name).filter((n) => n !== 'custom' && !DEFAULT_DEMO_TEMPLATES.includes(n)),
  'custom',
];

/** Options of `generateDemoData`. */
export interface DemoDataOptions {
  /** Any integer; the same options always give the same data. */
  seed: number;
  /** Number of days, ending at endDate. */
  days: number;
  /** Last day, YYYY-mm-dd. */
  endDate: string;
  /** How many templates (the first n of the selection order, up to the whole catalogue) or which. Default: the 25 defaults. */
  attributes?: number | readonly string[];
  /** Which demo user (0, 1, …): users of one seed get different, equally plausible data. Default 0. */
  user?: number;
  /** Weekly and seasonal rhythms and drift; false leaves only the planted relationships. Default true. */
  rhythms?: boolean;
}

/** One day's value: numbers for numeric value types (integers where the type says so), strings for type 2. */
export interface DemoPoint {
  date: string;
  value: number | string;
}

/** A template's generated values, days without data left out. */
export interface DemoSeries {
  template: string;
  valueType: ValueType;
  values: DemoPoint[];
}

const DAY_MS = 86_400_000;

/** Parses YYYY-mm-dd to UTC midnight milliseconds; throws on anything else. */
function parseDate(text: string): number {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  const ms = match ? Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])) : NaN;
  if (!match || new Date(ms).toISOString().slice(0, 10) !== text) throw new RangeError(`endDate must be YYYY-mm-dd, got ${text}`);
  return ms;
}

/** The calendar of the run: `count` days ending at `endDate`. */
function calendar(endDate: string, count: number): DemoDay[] {
  const end = parseDate(endDate);
  const days: DemoDay[] = [];
  for (let i = count - 1; i >= 0; i--) {
    const at = new Date(end - i * DAY_MS);
    days.push({
      date: at.toISOString().slice(0, 10),
      weekday: (at.getUTCDay() + 6) % 7,
      dayOfYear: Math.floor((at.getTime() - Date.UTC(at.getUTCFullYear(), 0, 1)) / DAY_MS),
    });
  }
  return days;
}

/** The template names a run covers, validated. */
export function selectDemoTemplates(attributes: DemoDataOptions['attributes']): string[] {
  if (attributes === undefined) return [...DEFAULT_DEMO_TEMPLATES];
  if (typeof attributes === 'number') {
    if (!Number.isInteger(attributes) || attributes < 0 || attributes > ORDER.length) {
      throw new RangeError(`attributes must be an integer from 0 to ${ORDER.length}, got ${attributes}`);
    }
    return ORDER.slice(0, attributes);
  }
  for (const name of attributes) {
    if (!DEMO_MODELS[name]) throw new RangeError(`no demo model for template ${name}`);
  }
  return [...new Set(attributes)];
}

/** Generates demo data; pure and deterministic (60 templates x 365 days takes milliseconds). */
export function generateDemoData(opts: DemoDataOptions): DemoSeries[] {
  if (!Number.isInteger(opts.days) || opts.days < 0) throw new RangeError(`days must be a non-negative integer, got ${opts.days}`);
  const user = opts.user ?? 0;
  const rhythms = opts.rhythms ?? true;
  const days = calendar(opts.endDate, opts.days);
  const ctx = { days, drivers: buildDrivers(opts.seed, user, days, rhythms), rhythms };
  return selectDemoTemplates(opts.attributes).map((name) => {
    const model = DEMO_MODELS[name];
    const raw = model.generate(new Rng(opts.seed, `u${user}:values:${name}`), ctx);
    // Missing days from a stream of their own, so they do not disturb the values.
    const gaps = new Rng(opts.seed, `u${user}:missing:${name}`);
    const values: DemoPoint[] = [];
    raw.forEach((value, i) => {
      if (!gaps.chance(model.missing)) values.push({ date: ctx.days[i].date, value });
    });
    return { template: name, valueType: TEMPLATES_BY_NAME.get(name)!.valueType, values };
  });
}

/**
 * Which Apple Health record becomes which Daybook column, in what unit, aggregated how over a day
 * (docs/apple-health.md is the same table for people). Quantity records are mapped here; sleep,
 * mindful sessions, menstrual flow and workouts have their own readers (sleep.ts, workouts.ts,
 * categories in read-export.ts).
 */
import { TEMPLATES_BY_NAME } from '../../../db/catalogue-templates';
import type { FileColumn } from '../types';
import type { UnitFamily } from './units';

/**
 * How a day's records make its value:
 * - `sum`: totals per source, then the source with the largest total (docs/apple-health.md, "Several sources");
 * - `mean` / `max`: over every sample of the day, all sources;
 * - `latest`: the reading with the latest start time that day, any source.
 */
export type DailyRule = 'sum' | 'mean' | 'max' | 'latest';

export interface QuantityTarget {
  column: string;
  rule: DailyRule;
}

export interface QuantityMapping {
  family: UnitFamily;
  targets: QuantityTarget[];
}

const one = (column: string, rule: DailyRule): QuantityTarget[] => [{ column, rule }];

const Q = 'HKQuantityTypeIdentifier';

/** Quantity record types, by `type`. */
export const QUANTITIES: ReadonlyMap<string, QuantityMapping> = new Map<string, QuantityMapping>([
  [`${Q}StepCount`, { family: 'count', targets: one('steps', 'sum') }],
  [`${Q}DistanceWalkingRunning`, { family: 'km', targets: one('steps_distance', 'sum') }],
  [`${Q}FlightsClimbed`, { family: 'count', targets: one('floors', 'sum') }],
  [`${Q}ActiveEnergyBurned`, { family: 'kJ', targets: one('active_energy', 'sum') }],
  [`${Q}AppleExerciseTime`, { family: 'minutes', targets: one('steps_active_min', 'sum') }],
  [`${Q}DistanceCycling`, { family: 'km', targets: one('cycle_distance', 'sum') }],
  [`${Q}BodyMass`, { family: 'kg', targets: one('weight', 'latest') }],
  [`${Q}BodyFatPercentage`, { family: 'fraction', targets: one('body_fat', 'latest') }],
  [`${Q}LeanBodyMass`, { family: 'kg', targets: one('lean_mass', 'latest') }],
  [
    `${Q}HeartRate`,
    {
      family: 'beatsPerMinute',
      targets: [
        { column: 'heartrate', rule: 'mean' },
        { column: 'heartrate_max', rule: 'max' },
      ],
    },
  ],
  [`${Q}RestingHeartRate`, { family: 'beatsPerMinute', targets: one('heartrate_resting', 'latest') }],
  [`${Q}DietaryWater`, { family: 'ml', targets: one('water', 'sum') }],
  [`${Q}DietaryEnergyConsumed`, { family: 'kJ', targets: one('energy', 'sum') }],
  [`${Q}DietaryCarbohydrates`, { family: 'g', targets: one('carbohydrates', 'sum') }],
  [`${Q}DietaryFatTotal`, { family: 'g', targets: one('fat', 'sum') }],
  [`${Q}DietaryFiber`, { family: 'g', targets: one('fibre', 'sum') }],
  [`${Q}DietaryProtein`, { family: 'g', targets: one('protein', 'sum') }],
  [`${Q}DietarySugar`, { family: 'g', targets: one('sugar', 'sum') }],
  [`${Q}DietarySodium`, { family: 'mg', targets: one('sodium', 'sum') }],
  [`${Q}DietaryCholesterol`, { family: 'mg', targets: one('cholesterol', 'sum') }],
  [`${Q}DietaryCaffeine`, { family: 'mg', targets: one('caffeine', 'sum') }],
  [`${Q}BodyTemperature`, { family: 'celsius', targets: one('body_temperature', 'latest') }],
]);

/** Category record types (their values are names, not numbers). */
export const SLEEP_TYPE = 'HKCategoryTypeIdentifierSleepAnalysis';
export const MINDFUL_TYPE = 'HKCategoryTypeIdentifierMindfulSession';
export const MENSTRUAL_FLOW_TYPE = 'HKCategoryTypeIdentifierMenstrualFlow';
export const SPOTTING_TYPE = 'HKCategoryTypeIdentifierIntermenstrualBleeding';

/** Menstrual flow as the menstrual_flow template's scale (0 none, 1 spotting, 2 light, 3 medium, 4 heavy). */
export const MENSTRUAL_FLOW: ReadonlyMap<string, number> = new Map([
  ['HKCategoryValueMenstrualFlowNone', 0],
  // "Had flow" without a level: the least flow that is more than spotting (docs/apple-health.md).
  ['HKCategoryValueMenstrualFlowUnspecified', 2],
  ['HKCategoryValueMenstrualFlowLight', 2],
  ['HKCategoryValueMenstrualFlowMedium', 3],
  ['HKCategoryValueMenstrualFlowHeavy', 4],
]);

/**
 * Every column the reader can give, in the order values come out: templates by name, then body
 * temperature, which has no template (a °C float the person maps to an attribute or skips).
 */
const TEMPLATE_COLUMNS = [
  'steps',
  'steps_distance',
  'floors',
  'active_energy',
  'steps_active_min',
  'cycle_distance',
  'workouts',
  'workouts_min',
  'workouts_distance',
  'sleep',
  'time_in_bed',
  'sleep_start',
  'sleep_end',
  'sleep_awakenings',
  'weight',
  'body_fat',
  'lean_mass',
  'heartrate',
  'heartrate_max',
  'heartrate_resting',
  'meditation_min',
  'menstrual_flow',
  'water',
  'energy',
  'carbohydrates',
  'fat',
  'fibre',
  'protein',
  'sugar',
  'sodium',
  'cholesterol',
  'caffeine',
];

function templateColumn(name: string): FileColumn {
  const t = TEMPLATES_BY_NAME.get(name);
  if (t === undefined) throw new Error(`Apple Health mapping names ${name}, which is not a template`);
  return { key: name, label: t.label, name, template: name, group: t.group, valueType: t.valueType };
}

export const ALL_COLUMNS: readonly FileColumn[] = [
  ...TEMPLATE_COLUMNS.map(templateColumn),
  { key: 'body_temperature', label: 'Body temperature', name: 'body_temperature', group: 'health', valueType: 1 },
];

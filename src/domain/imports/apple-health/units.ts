/**
 * Apple Health writes each record in the unit the person chose (lb, mi, kcal, fl oz, °F...);
 * Daybook stores metric (the interface's rule 4). Each family converts to the one unit its
 * templates store (docs/apple-health.md has the table).
 */

type Convert = (value: number) => number;

const times =
  (factor: number): Convert =>
  (v) =>
    v * factor;

/** The families of units, by the unit Daybook stores. */
export const UNIT_FAMILIES = {
  count: { count: times(1) },
  beatsPerMinute: { 'count/min': times(1) },
  /** Kilometres. */
  km: { km: times(1), m: times(0.001), cm: times(0.00001), mi: times(1.609344), ft: times(0.0003048), yd: times(0.0009144) },
  /** Kilojoules (1 kcal = 4.184 kJ; Apple's "Cal" is the food calorie, a kcal). */
  kJ: { kJ: times(1), J: times(0.001), kcal: times(4.184), Cal: times(4.184), cal: times(0.004184) },
  /** Minutes. */
  minutes: { min: times(1), s: times(1 / 60), hr: times(60), h: times(60), ms: times(1 / 60_000) },
  /** Kilograms (body measures). */
  kg: { kg: times(1), g: times(0.001), lb: times(0.45359237), st: times(6.35029318), oz: times(0.028349523125) },
  /** Grams (food). */
  g: { g: times(1), mg: times(0.001), mcg: times(0.000001), kg: times(1000), oz: times(28.349523125), lb: times(453.59237) },
  /** Milligrams (food). */
  mg: { mg: times(1), mcg: times(0.001), g: times(1000), oz: times(28349.523125) },
  /** Millilitres. */
  ml: {
    mL: times(1),
    L: times(1000),
    dL: times(100),
    cL: times(10),
    fl_oz_us: times(29.5735295625),
    fl_oz_imp: times(28.4130625),
    cup_us: times(236.5882365),
    cup_imp: times(284.130625),
    pt_us: times(473.176473),
    pt_imp: times(568.26125),
  },
  /** A fraction 0.0-1.0: Apple's "%" unit already is one (0.21 is 21 %). */
  fraction: { '%': times(1) },
  /** Degrees Celsius. */
  celsius: { degC: times(1), degF: (v: number) => ((v - 32) * 5) / 9, K: (v: number) => v - 273.15 },
} satisfies Record<string, Record<string, Convert>>;

export type UnitFamily = keyof typeof UNIT_FAMILIES;

/** The converter from `unit` to the family's stored unit; undefined for a unit Daybook does not know. */
export function converter(family: UnitFamily, unit: string): Convert | undefined {
  const units: Record<string, Convert> = UNIT_FAMILIES[family];
  return Object.hasOwn(units, unit) ? units[unit] : undefined;
}

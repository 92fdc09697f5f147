/**
 * The catalogue's value types: the codes 0..8, the description the API gives each, and whether
 * a type's values are stored as text and must be integers.
 */

/** Value type codes by meaning (openapi/common/schemas/ValueType.yaml). */
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

/** `value_type_description` for each value type, indexed by code; the exact strings of openapi/common/schemas/ValueTypeDescription.yaml. */
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

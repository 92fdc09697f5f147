/**
 * Correlations as the API lists them (analytics/correlations.ts computes and stores them weekly):
 * the latest week's list with its filters, the order-insensitive pair lookup, visibility, and the
 * v2 document's Correlation object.
 *
 * Visibility: a correlation is shown when at least one of its two attributes is visible to the
 * token (the v2 document's rule for `listCorrelations` and `getCorrelationCombo`).
 */
import type { Knex } from 'knex';
import type { components } from '../../../generated/types/v2';
import { STRONG_R } from './correlation-strength';
import type { Database } from '../../db/database';
import { empty, raw, rows, sql, type Sql } from '../../db/sql';
import { MAX_OFFSET } from '../tracking/values';
import { visibleTo, type Visibility } from '../apps-and-grants/visibility';

/** The Correlation of the v2 document (openapi/v2/schemas/Correlation.yaml). */
export type CorrelationObject = components['schemas']['Correlation'];

interface Row {
  date: string;
  period: number;
  offset: number;
  attribute: string;
  attribute2: string;
  value: number;
  p: number;
  percentage: number;
  stars: number;
  second_person: string;
  second_person_elements: string[];
  strength_description: string;
  stars_description: string;
  total?: number;
}

/**
 * The columns the correlation readers select, in the select list's order, each with its
 * expression: the select list is written from this list, so a list row read as an array
 * (`readArrays`) holds each column at its position here (`AT`). `second_person_elements` (a text[]
 * column) is read as JSON: pg parses a text array in JavaScript (postgres-array, character by
 * character: about 2.4 µs for the three sentence parts, 3.7 % of a correlations list's CPU in the
 * bench's profile) and JSON with `JSON.parse` (about 0.5 µs); the answer is the same array of
 * strings (docs/request-path.md, "Issue 35, third stop").
 */
const SELECTED = [
  ['date', 'c.date'],
  ['period', 'c.period'],
  ['offset', 'c."offset"'],
  ['attribute', 'a1.name'],
  ['attribute2', 'a2.name'],
  ['value', 'c.value'],
  ['p', 'c.p'],
  ['percentage', 'c.percentage'],
  ['stars', 'c.stars'],
  ['second_person', 'c.second_person'],
  ['second_person_elements', 'array_to_json(c.second_person_elements)'],
  ['strength_description', 'c.strength_description'],
  ['stars_description', 'c.stars_description'],
] as const satisfies ReadonlyArray<readonly [keyof Row, string]>;

const SELECT_LIST = raw(SELECTED.map(([name, expression]) => `${expression} as "${name}"`).join(', '));

/** Each selected column's position in a row read as an array. */
const AT = Object.fromEntries(SELECTED.map(([name], i) => [name, i])) as Record<(typeof SELECTED)[number][0], number>;
/** The list's window count (`total`), right after the selected columns. */
const TOTAL_AT = SELECTED.length;

/** The document's `offset`: -1 (the attribute a day before the other) or 0. */
const documentOffset = (offset: unknown): -1 | 0 => (offset === -1 ? -1 : 0);

/**
 * The Correlation object of a row read as an array (the list's reader: pg copies no row object;
 * docs/request-path.md, "Issue 35, fifth stop"); the same fields as `correlationObject`.
 */
function correlationOfValues(values: readonly unknown[]): CorrelationObject {
  return {
    date: values[AT.date] as string,
    period: values[AT.period] as number,
    offset: documentOffset(values[AT.offset]),
    attribute: values[AT.attribute] as string,
    attribute2: values[AT.attribute2] as string,
    value: values[AT.value] as number,
    p: values[AT.p] as number,
    percentage: values[AT.percentage] as number,
    stars: values[AT.stars] as number,
    second_person: values[AT.second_person] as string,
    second_person_elements: values[AT.second_person_elements] as string[],
    attribute_category: null,
    strength_description: values[AT.strength_description] as CorrelationObject['strength_description'],
    stars_description: values[AT.stars_description] as CorrelationObject['stars_description'],
    description: null,
    occurrence: null,
    rating: null,
  };
}

/** docs/decisions.md, "Derived data" (correlation extra fields): attribute_category, description, occurrence and rating are null. */
export function correlationObject(row: Row): CorrelationObject {
  return {
    date: row.date,
    period: row.period,
    offset: documentOffset(row.offset),
    attribute: row.attribute,
    attribute2: row.attribute2,
    value: row.value,
    p: row.p,
    percentage: row.percentage,
    stars: row.stars,
    second_person: row.second_person,
    second_person_elements: row.second_person_elements,
    attribute_category: null,
    strength_description: row.strength_description as CorrelationObject['strength_description'],
    stars_description: row.stars_description as CorrelationObject['stars_description'],
    description: null,
    occurrence: null,
    rating: null,
  };
}

/**
 * The person's key as the planner must not see it: `(select $n::bigint)`, an InitPlan whose value
 * a plan only learns when it runs. A named statement's first five calls are planned for the
 * person's key (custom plans); PostgreSQL then keeps its generic plan only when that plan's
 * estimate is no worse than theirs. For the list, a person with fewer correlations than the average
 * got custom plans for ever, each planned anew (about 0.7-1.0 ms of planning a call) and worse
 * than the generic one: the `(user_id, attribute2_id, date)` index read whole (258 buffers) rather
 * than the primary key's `(user_id, date)` prefix (27 buffers). With the key hidden every plan is
 * that one, the generic plan is kept for every person, and the answer is the same
 * (docs/request-path.md, "Issue 35, fifth stop").
 */
const personKey = (userId: number): Sql => sql`(select ${userId}::bigint)`;

/**
 * The person's correlations joined to both attributes (`a1`, `a2`), at least one of them visible,
 * the `SELECTED` columns in their order, then `extra`; `where` adds conditions.
 */
function visibleCorrelations(userId: number, visibility: Visibility, where: Sql, extra: Sql = empty): Sql {
  return sql`select ${SELECT_LIST}${extra}
  from correlations c
  join attributes a1 on a1.user_id = c.user_id and a1.id = c.attribute_id
  join attributes a2 on a2.user_id = c.user_id and a2.id = c.attribute2_id
 where c.user_id = ${personKey(userId)} and (${visibleTo(visibility, raw('a1'))} or ${visibleTo(visibility, raw('a2'))}) ${where}`;
}

export interface CorrelationFilters {
  /** |value| >= 0.4 only. */
  strong?: boolean;
  /** Five stars only. */
  confident?: boolean;
  /**
   * Only those involving this attribute, on either side. Visibility is the list's own rule (one
   * visible side), so the filtered list is exactly the part of the unfiltered list that names it.
   */
  attribute?: string;
}

/**
 * A page of the correlations of the person's latest weekly computation (the week's set, possibly
 * empty; earlier weeks stay stored but are not listed), strongest first.
 */
export async function listCorrelations(
  db: Database,
  input: { userId: number; visibility: Visibility; filters: CorrelationFilters; page: { limit: number; offset: number } },
): Promise<{ count: number; results: CorrelationObject[] }> {
  const { filters, userId } = input;
  const name = filters.attribute;
  const rows = await db.readArrays(sql`${visibleCorrelations(
    userId,
    input.visibility,
    sql`and c.date = (select max(w.date) from derived_weeks w where w.user_id = ${userId})
   ${filters.strong ? sql`and abs(c.value) >= ${STRONG_R}::float8` : empty}
   ${filters.confident ? sql`and c.stars = 5` : empty}
   ${name === undefined ? empty : sql`and (a1.name = ${name} or a2.name = ${name})`}`,
    sql`, count(*) over () as total`,
  )}
 order by abs(c.value) desc, a1.name, a2.name, c."offset" desc
 limit ${input.page.limit}::bigint offset ${Math.min(input.page.offset, MAX_OFFSET)}::bigint`);
  return { count: (rows[0]?.[TOTAL_AT] as number | undefined) ?? 0, results: rows.map(correlationOfValues) };
}

/**
 * The correlation of two attributes in either order (docs/decisions.md, "Derived data"): of the newest
 * week that found the pair, the one with the largest |value| across offsets. Undefined when none
 * exists or neither attribute is visible.
 */
export async function findCorrelationCombo(
  db: Knex,
  input: { userId: number; visibility: Visibility; attribute: string; attribute2: string },
): Promise<CorrelationObject | undefined> {
  const { attribute, attribute2 } = input;
  const [row] = await rows<Row>(
    db,
    sql`${visibleCorrelations(
      input.userId,
      input.visibility,
      sql`and ((a1.name = ${attribute} and a2.name = ${attribute2}) or (a1.name = ${attribute2} and a2.name = ${attribute}))`,
    )}
 order by c.date desc, abs(c.value) desc, c."offset" desc limit 1`,
  );
  return row ? correlationObject(row) : undefined;
}

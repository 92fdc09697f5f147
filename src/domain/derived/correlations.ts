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

/** docs/decisions.md, "Derived data" (correlation extra fields): attribute_category, description, occurrence and rating are null. */
export function correlationObject(row: Row): CorrelationObject {
  return {
    date: row.date,
    period: row.period,
    offset: row.offset === -1 ? -1 : 0,
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
 * The person's correlations joined to both attributes (`a1`, `a2`), at least one of them visible;
 * `where` adds conditions. `second_person_elements` (a text[] column) is read as JSON: pg parses a
 * text array in JavaScript (postgres-array, character by character: about 2.4 µs for the three
 * sentence parts, 3.7 % of a correlations list's CPU in the bench's profile) and JSON with
 * `JSON.parse` (about 0.5 µs); the answer is the same array of strings (docs/request-path.md,
 * "Issue 35, third stop").
 */
function visibleCorrelations(userId: number, visibility: Visibility, where: Sql, extra: Sql = empty): Sql {
  return sql`select c.date, c.period, c."offset", a1.name as attribute, a2.name as attribute2, c.value, c.p, c.percentage, c.stars,
       c.second_person, array_to_json(c.second_person_elements) as second_person_elements, c.strength_description, c.stars_description${extra}
  from correlations c
  join attributes a1 on a1.user_id = c.user_id and a1.id = c.attribute_id
  join attributes a2 on a2.user_id = c.user_id and a2.id = c.attribute2_id
 where c.user_id = ${userId} and (${visibleTo(visibility, raw('a1'))} or ${visibleTo(visibility, raw('a2'))}) ${where}`;
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
  const rows = await db.read<Row>(sql`${visibleCorrelations(
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
  return { count: rows[0]?.total ?? 0, results: rows.map(correlationObject) };
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

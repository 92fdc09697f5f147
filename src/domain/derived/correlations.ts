/**
 * Correlations as the API lists them (analytics/correlations.ts computes and stores them weekly):
 * the latest week's list with its filters, the order-insensitive pair lookup, visibility, and the
 * spec's Correlation object.
 *
 * Visibility: a correlation is shown when at least one of its two attributes is visible to the
 * token (the spec's combo rule, applied to the list too).
 */
import type { Knex } from 'knex';
import type { components } from '../../../generated/types/v2';
import { STRONG_R } from './correlation-strength';
import { DeferredCheck } from '../apps-and-grants/recent-credentials';
import { MAX_OFFSET } from '../tracking/values';
import { whereVisible, type Visibility } from '../apps-and-grants/visibility';

/** The spec's Correlation (version 2), as the document defines it. */
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

/** The person's correlations joined to both attributes (`a1`, `a2`), at least one of them visible. */
function visibleCorrelations(db: Knex, userId: number, visibility: Visibility): Knex.QueryBuilder {
  return db('correlations as c')
    .join('attributes as a1', function joinFirst() {
      this.on('a1.user_id', 'c.user_id').andOn('a1.id', 'c.attribute_id');
    })
    .join('attributes as a2', function joinSecond() {
      this.on('a2.user_id', 'c.user_id').andOn('a2.id', 'c.attribute2_id');
    })
    .where('c.user_id', userId)
    .where(function eitherVisible() {
      this.where(function firstVisible() {
        whereVisible(this, visibility, 'a1');
      }).orWhere(function secondVisible() {
        whereVisible(this, visibility, 'a2');
      });
    })
    .select(
      'c.date',
      'c.period',
      'c.offset',
      'a1.name as attribute',
      'a2.name as attribute2',
      'c.value',
      'c.p',
      'c.percentage',
      'c.stars',
      'c.second_person',
      'c.second_person_elements',
      'c.strength_description',
      'c.stars_description',
    );
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
  db: Knex,
  input: { userId: number; visibility: Visibility; filters: CorrelationFilters; page: { limit: number; offset: number }; check?: DeferredCheck },
): Promise<{ count: number; results: CorrelationObject[] }> {
  const query = visibleCorrelations(db, input.userId, input.visibility)
    .select(db.raw('count(*) over () as total'))
    .whereRaw('c.date = (select max(w.date) from derived_weeks w where w.user_id = ?)', [input.userId]);
  if (input.filters.strong) query.whereRaw('abs(c.value) >= ?', [STRONG_R]);
  if (input.filters.confident) query.where('c.stars', 5);
  const name = input.filters.attribute;
  if (name !== undefined) {
    query.where(function involves() {
      this.where('a1.name', name).orWhere('a2.name', name);
    });
  }
  query.orderByRaw('abs(c.value) desc, a1.name, a2.name, c."offset" desc').limit(input.page.limit).offset(Math.min(input.page.offset, MAX_OFFSET));
  const rows = await DeferredCheck.read<Row>(db, query, input.check, 'date');
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
  const row: Row | undefined = await visibleCorrelations(db, input.userId, input.visibility)
    .where(function eitherOrder() {
      this.where({ 'a1.name': attribute, 'a2.name': attribute2 }).orWhere({ 'a1.name': attribute2, 'a2.name': attribute });
    })
    .orderByRaw('c.date desc, abs(c.value) desc, c."offset" desc')
    .first();
  return row ? correlationObject(row) : undefined;
}

/**
 * Version 1's insight lists, as a thin wrapper over `listInsights` (domain/insights.ts), which holds
 * every rule: visibility by the insight's attribute, the date bounds local to the person, newest
 * first, the object. Version 1 needs two things that function does not offer yet:
 *
 * - the per-attribute list (`insights/attribute/:attribute/`): the wrapper walks the person's
 *   insights in list order and keeps those about the attribute, then pages them itself;
 * - `value`, `value2` and `comment`: read for the page's insights by their identity
 *   (created to the second, type, attribute, target date, text).
 *
 * Both collapse into `listInsights` once it takes an `attribute` filter and returns the three
 * columns (asked of its owner); callers would not change.
 */
import type { Knex } from 'knex';
import { listInsights, type InsightFilters, type InsightObject } from './insights';
import type { Visibility } from './visibility';

/** The text fields only version 1's insight carries. */
export interface InsightFigures {
  value: string | null;
  value2: string | null;
  comment: string | null;
}

export interface V1InsightEntry {
  insight: InsightObject;
  figures: InsightFigures;
}

export interface V1InsightFilters extends InsightFilters {
  /** Only insights about this attribute (by name). */
  attribute?: string;
}

/** Insights read per query while looking for one attribute's. */
const SCAN_BATCH = 500;

/** One page of insights, with the total, for the per-attribute list: every matching insight is walked in order. */
async function pageAboutAttribute(
  db: Knex,
  input: { userId: number; visibility: Visibility; filters: InsightFilters; attribute: string; page: { limit: number; offset: number } },
): Promise<{ count: number; results: InsightObject[] }> {
  const results: InsightObject[] = [];
  let count = 0;
  for (let offset = 0; ; offset += SCAN_BATCH) {
    const batch = await listInsights(db, { userId: input.userId, visibility: input.visibility, filters: input.filters, page: { limit: SCAN_BATCH, offset } });
    for (const insight of batch.results) {
      if (insight.type.attribute.name !== input.attribute) continue;
      if (count >= input.page.offset && results.length < input.page.limit) results.push(insight);
      count += 1;
    }
    if (batch.results.length < SCAN_BATCH) break;
  }
  return { count, results };
}

const second = (at: Date | string) => Math.floor(new Date(at).getTime() / 1000);

function identity(created: number, type: string, attribute: string, targetDate: string | null, text: string): string {
  return JSON.stringify([created, type, attribute, targetDate, text]);
}

/** `value`, `value2` and `comment` of each insight of a page, in one query. */
async function figuresOf(db: Knex, userId: number, insights: InsightObject[]): Promise<InsightFigures[]> {
  if (insights.length === 0) return [];
  const seconds = insights.map((i) => second(i.created));
  const rows: Array<{ created: Date; type_name: string; attribute: string; target_date: string | null; text: string } & InsightFigures> = await db('insights as i')
    .join('attributes as a', function joinAttribute() {
      this.on('a.user_id', 'i.user_id').andOn('a.id', 'i.attribute_id');
    })
    .where('i.user_id', userId)
    .where('i.created', '>=', new Date(Math.min(...seconds) * 1000))
    .where('i.created', '<', new Date((Math.max(...seconds) + 1) * 1000))
    .whereIn('i.type_name', [...new Set(insights.map((i) => i.type.name))])
    .whereIn('a.name', [...new Set(insights.map((i) => i.type.attribute.name))])
    .select('i.created', 'i.type_name', 'a.name as attribute', 'i.target_date', 'i.text', 'i.value', 'i.value2', 'i.comment');
  const byIdentity = new Map<string, InsightFigures>();
  for (const row of rows) {
    byIdentity.set(identity(second(row.created), row.type_name, row.attribute, row.target_date, row.text), {
      value: row.value,
      value2: row.value2,
      comment: row.comment,
    });
  }
  return insights.map(
    (i) => byIdentity.get(identity(second(i.created), i.type.name, i.type.attribute.name, i.target_date, i.text)) ?? { value: null, value2: null, comment: null },
  );
}

/**
 * A page of the person's insights as version 1 lists them: `listInsights`' page (optionally only
 * those about one attribute), each with its value, value2 and comment.
 */
export async function listV1Insights(
  db: Knex,
  input: { userId: number; visibility: Visibility; filters: V1InsightFilters; page: { limit: number; offset: number } },
): Promise<{ count: number; results: V1InsightEntry[] }> {
  const { attribute, ...filters } = input.filters;
  const page =
    attribute === undefined
      ? await listInsights(db, { userId: input.userId, visibility: input.visibility, filters, page: input.page })
      : await pageAboutAttribute(db, { userId: input.userId, visibility: input.visibility, filters, attribute, page: input.page });
  const figures = await figuresOf(db, input.userId, page.results);
  return { count: page.count, results: page.results.map((insight, index) => ({ insight, figures: figures[index] })) };
}

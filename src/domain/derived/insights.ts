/**
 * Insights as the API lists them (analytics/insights computes and stores them): filters,
 * visibility by the insight's attribute, newest first, and the v2 document's Insight object.
 */
import { knexRaw, raw, sql } from '../../db/sql';
import { localDateIn } from '../time';
import type { components } from '../../../generated/types/v2';
import type { Knex } from 'knex';
import { VALUE_TYPE_DESCRIPTIONS, type ValueType } from '../../db/catalogue-value-types';
import type { GroupName } from '../../db/catalogue-groups';
import { MAX_OFFSET } from '../tracking/values';
import { whereVisible, type Visibility } from '../apps-and-grants/visibility';

/** The Insight of the v2 document (openapi/v2/schemas/Insight.yaml). */
export type InsightObject = components['schemas']['Insight'];

/** The text fields only version 1's Insight carries. */
export interface InsightFigures {
  value: string | null;
  value2: string | null;
  comment: string | null;
}

/** An insight with its version-1-only fields, for version 1's lists. */
export interface InsightEntry {
  insight: InsightObject;
  figures: InsightFigures;
}

export interface InsightFilters {
  /** Only insights about this attribute (by name). */
  attribute?: string;
  /** Oldest local day of `created`, inclusive. */
  dateMin?: string;
  /** Newest local day of `created`, inclusive. */
  dateMax?: string;
  priority?: number;
}

interface Row {
  created: Date;
  target_date: string | null;
  type_name: string;
  period: number;
  priority: number;
  html: string;
  text: string;
  value: string | null;
  value2: string | null;
  comment: string | null;
  attribute_name: string;
  attribute_label: string;
  group_name: string;
  group_label: string;
  group_priority: number;
  attribute_priority: number;
  value_type: number;
  total: number;
}

/** ISO 8601 in UTC, to the second, as the v2 document's examples write it (openapi/v2/schemas/Insight.yaml). */
function utcDateTime(at: Date): string {
  return at.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function insightObject(row: Row): InsightObject {
  return {
    created: utcDateTime(row.created),
    target_date: row.target_date,
    type: {
      name: row.type_name,
      period: row.period,
      priority: row.priority as 1 | 2 | 3 | 4,
      attribute: {
        name: row.attribute_name,
        label: row.attribute_label,
        group: { name: row.group_name as GroupName, label: row.group_label, priority: row.group_priority },
        priority: row.attribute_priority,
        value_type: row.value_type as ValueType,
        value_type_description: VALUE_TYPE_DESCRIPTIONS[row.value_type],
      },
    },
    html: row.html,
    text: row.text,
  };
}

export interface ListInsightsInput {
  userId: number;
  visibility: Visibility;
  filters: InsightFilters;
  page: { limit: number; offset: number };
}

/**
 * A page of the person's insights about attributes the token may see, newest first, each with its
 * version-1 fields, leaving out those with a change to their source days pending. `dateMin` and `dateMax` bound the day the insight was created on, in the
 * person's time zone. One query.
 */
export async function listInsightEntries(db: Knex, input: ListInsightsInput): Promise<{ count: number; results: InsightEntry[] }> {
  const query = db('insights as i')
    .join('attributes as a', function joinAttribute() {
      this.on('a.user_id', 'i.user_id').andOn('a.id', 'i.attribute_id');
    })
    .join('groups as g', 'g.name', 'a.group_name')
    .join('users as u', 'u.id', 'i.user_id')
    .where('i.user_id', input.userId)
    .select(
      'i.created',
      'i.target_date',
      'i.type_name',
      'i.period',
      'i.priority',
      'i.html',
      'i.text',
      'i.value',
      'i.value2',
      'i.comment',
      'a.name as attribute_name',
      'a.label as attribute_label',
      'a.group_name',
      'g.label as group_label',
      'g.priority as group_priority',
      'a.priority as attribute_priority',
      'a.value_type',
      db.raw('count(*) over () as total'),
    );
  whereVisible(query, input.visibility);
  // An insight whose source days changed since the insight run last looked is hidden until the run
  // has rechecked it (src/analytics/recheck.ts): the lists never show one the data contradicts.
  query.whereNotExists(function pendingChange() {
    this.select(db.raw('1')).from('value_changes as c').whereRaw('c.user_id = i.user_id and c.date between i.source_from and i.as_of');
  });
  const { attribute, dateMin, dateMax, priority } = input.filters;
  if (attribute !== undefined) query.where('a.name', attribute);
  const createdOn = localDateIn(raw('i.created'), raw('u.timezone'));
  if (dateMin) query.whereRaw(...knexRaw(sql`${createdOn} >= ${dateMin}::date`));
  if (dateMax) query.whereRaw(...knexRaw(sql`${createdOn} <= ${dateMax}::date`));
  if (priority !== undefined) query.where('i.priority', priority);
  const rows: Row[] = await query
    .orderBy([
      { column: 'i.created', order: 'desc' },
      { column: 'i.id', order: 'desc' },
    ])
    .limit(input.page.limit)
    .offset(Math.min(input.page.offset, MAX_OFFSET));
  return {
    count: rows[0]?.total ?? 0,
    results: rows.map((row) => ({ insight: insightObject(row), figures: { value: row.value, value2: row.value2, comment: row.comment } })),
  };
}

/** A page of the person's insights as version 2 lists them (see `listInsightEntries`). */
export async function listInsights(db: Knex, input: ListInsightsInput): Promise<{ count: number; results: InsightObject[] }> {
  const { count, results } = await listInsightEntries(db, input);
  return { count, results: results.map((entry) => entry.insight) };
}

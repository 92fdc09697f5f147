/**
 * Averages as the API lists them (the weekly sets of medians that analytics/averages.ts computes):
 * filters, the visibility rule, the order, and the v2 document's Average object. One query: the page's
 * rows carry a window count of all matching rows.
 */
import { knexRaw, raw, sql } from '../../db/sql';
import { attributeOrder } from '../tracking/attribute-order';
import type { components } from '../../../generated/types/v2';
import type { Knex } from 'knex';
import { MAX_OFFSET } from '../tracking/values';
import { whereVisible, type Visibility } from '../apps-and-grants/visibility';

/** The v2 document's Average: every field a number (a weekday without data holds the overall median). */
export type AverageObject = components['schemas']['Average'];

/**
 * Which sets a list holds: `latest-set` the person's newest weekly set (one date: version 2's
 * list, where an attribute without data in the newest window is absent); `latest-per-attribute`
 * each attribute's own newest set (version 1's "most recent Average for each attribute");
 * `all` every set (include_historical).
 */
export type AverageSets = 'latest-set' | 'latest-per-attribute' | 'all';

export interface AverageFilters {
  groups?: readonly string[];
  /** Attribute names. */
  names?: readonly string[];
  /** Oldest set date, inclusive. */
  dateMin?: string;
  /** Newest set date, inclusive. */
  dateMax?: string;
  /** Which sets within the date bounds; `latest-set` when absent. */
  sets?: AverageSets;
}

type Row = AverageObject & { total: number };

/**
 * A page of averages within the date bounds, the sets `filters.sets` says, ordered by group
 * priority, attribute priority, name, then newest set first. The newest set's date comes from
 * `derived_weeks` (every weekly computation records its date there, also one that found no
 * attribute with data), so a week without any set is the latest set, and empty.
 */
export async function listAverages(
  db: Knex,
  input: { userId: number; visibility: Visibility; filters: AverageFilters; page: { limit: number; offset: number } },
): Promise<{ count: number; results: AverageObject[] }> {
  const { filters } = input;
  const sets = db('averages as av')
    .join('attributes as a', function joinAttribute() {
      this.on('a.user_id', 'av.user_id').andOn('a.id', 'av.attribute_id');
    })
    .join('groups as g', 'g.name', 'a.group_name')
    .where('av.user_id', input.userId)
    .select(
      'a.name as attribute',
      'av.date',
      'av.overall',
      'av.monday',
      'av.tuesday',
      'av.wednesday',
      'av.thursday',
      'av.friday',
      'av.saturday',
      'av.sunday',
      'g.priority as group_priority',
      'a.priority as attribute_priority',
      db.raw('row_number() over (partition by av.attribute_id order by av.date desc) as newest'),
    );
  whereVisible(sets, input.visibility);
  if (filters.groups) sets.whereIn('a.group_name', [...filters.groups]);
  if (filters.names) sets.whereIn('a.name', [...filters.names]);
  if (filters.dateMin) sets.where('av.date', '>=', filters.dateMin);
  if (filters.dateMax) sets.where('av.date', '<=', filters.dateMax);
  if ((filters.sets ?? 'latest-set') === 'latest-set') sets.where('av.date', latestWeek(db, input.userId, filters));

  const query = db
    .from(sets.as('s'))
    .select('s.attribute', 's.date', 's.overall', 's.monday', 's.tuesday', 's.wednesday', 's.thursday', 's.friday', 's.saturday', 's.sunday')
    .select(db.raw('count(*) over () as total'))
    .orderByRaw(...knexRaw(sql`${attributeOrder(raw('s.group_priority'), raw('s.attribute_priority'), raw('s.attribute'))}, s.date desc`))
    .limit(input.page.limit)
    .offset(Math.min(input.page.offset, MAX_OFFSET));
  if (filters.sets === 'latest-per-attribute') query.where('s.newest', 1);
  const rows: Row[] = await query;
  return { count: rows[0]?.total ?? 0, results: rows.map(({ total: _total, ...average }) => average) };
}

/** The date of the person's newest weekly computation within the date bounds, as a subquery. */
function latestWeek(db: Knex, userId: number, filters: AverageFilters): Knex.QueryBuilder {
  const weeks = db('derived_weeks as w').where('w.user_id', userId).max('w.date');
  if (filters.dateMin) weeks.where('w.date', '>=', filters.dateMin);
  if (filters.dateMax) weeks.where('w.date', '<=', filters.dateMax);
  return weeks;
}

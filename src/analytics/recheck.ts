/**
 * Insights follow the data (docs/decisions.md, "Insights follow the data"). An insight stores the
 * local date it was found as of (`as_of`) and its source days (`source_from` to `as_of`: the
 * window the insight run loads). When values of any of those days change (the `value_changes`
 * rows the write endpoints record), the insight run finds the stored insights of every type again
 * as of their own `as_of`, on the data as it is now:
 * - found again with the same key: its sentence and figures are brought up to date ("Mood today: 3"
 *   after a 4 became a 3), keeping its `created`;
 * - not found any more: it is withdrawn (deleted): "Mood today: 4, below a usual Thursday" after
 *   the 4 became a 7.
 * Insights of a type this code does not know (none are made today) are left as they are.
 * Until the run has done so, the API's lists hide an insight whose source days have a pending
 * change (domain/derived/insights.ts), so they never show one that contradicts the data.
 */
import type { Knex } from 'knex';
import { addDays } from '../domain/time';
import { inTransaction, knexRaw, sql } from '../db/sql';
import { INSIGHT_LOOKBACK_DAYS, INSIGHT_TYPES, dedupeKey, findInsights, type Insight } from './insights';
import { loadUserData } from './load-user-data';
import type { SeenChange } from './store';

interface StoredInsight {
  id: number;
  type_name: string;
  dedupe_key: string;
  as_of: string;
  target_date: string | null;
  html: string;
  text: string;
  value: string | null;
  value2: string | null;
}

/** What a recheck did. */
export interface RecheckSummary {
  updated: number;
  withdrawn: number;
}

const KNOWN_TYPES = new Set(INSIGHT_TYPES.map((type) => type.name));

/** The person's stored insights of known types whose source days include one of `dates`. */
async function insightsOver(trx: Knex.Transaction, userId: number, dates: string[]): Promise<StoredInsight[]> {
  const stored = await inTransaction<StoredInsight>(
    trx,
    sql`select i.id, i.type_name, i.dedupe_key, i.as_of::text as as_of, i.target_date::text as target_date, i.html, i.text, i.value, i.value2
          from insights i
         where i.user_id = ${userId} and i.as_of >= ${[...dates].sort()[0]}::date
           and exists (select 1 from jsonb_array_elements_text(${JSON.stringify(dates)}::jsonb) d where d::date between i.source_from and i.as_of)`,
  );
  return stored.filter((row) => KNOWN_TYPES.has(row.type_name));
}

function sameFigures(row: StoredInsight, found: Insight): boolean {
  return (
    row.html === found.html &&
    row.text === found.text &&
    row.value === (found.value ?? null) &&
    row.value2 === (found.value2 ?? null) &&
    row.target_date === found.targetDate
  );
}

/**
 * Rechecks the insights whose source days include a changed day (in the caller's transaction,
 * under the person's lock): brings each up to date or withdraws it.
 */
export async function recheckInsights(trx: Knex.Transaction, userId: number, changes: SeenChange[]): Promise<RecheckSummary> {
  if (changes.length === 0) return { updated: 0, withdrawn: 0 };
  const stored = await insightsOver(
    trx,
    userId,
    changes.map((change) => change.date),
  );
  if (stored.length === 0) return { updated: 0, withdrawn: 0 };
  const asOfs = [...new Set(stored.map((row) => row.as_of))].sort();
  const data = await loadUserData(trx, userId, addDays(asOfs[0], -INSIGHT_LOOKBACK_DAYS), asOfs[asOfs.length - 1]);
  const foundAsOf = new Map(asOfs.map((asOf) => [asOf, new Map(findInsights(data, asOf).map((found) => [dedupeKey(found), found]))]));
  const withdrawn: number[] = [];
  const updated: Array<{ id: number; html: string; text: string; value: string | null; value2: string | null; target_date: string | null }> = [];
  for (const row of stored) {
    const found = foundAsOf.get(row.as_of)?.get(row.dedupe_key);
    if (!found) withdrawn.push(row.id);
    else if (!sameFigures(row, found)) {
      updated.push({ id: row.id, html: found.html, text: found.text, value: found.value ?? null, value2: found.value2 ?? null, target_date: found.targetDate });
    }
  }
  if (withdrawn.length > 0) await trx('insights').where({ user_id: userId }).whereIn('id', withdrawn).delete();
  if (updated.length > 0) {
    await trx.raw(
      ...knexRaw(sql`update insights i set html = r.html, text = r.text, value = r.value, value2 = r.value2, target_date = r.target_date
        from jsonb_to_recordset(${JSON.stringify(updated)}::jsonb) as r(id bigint, html text, text text, value text, value2 text, target_date date)
       where i.user_id = ${userId} and i.id = r.id`),
    );
  }
  return { updated: updated.length, withdrawn: withdrawn.length };
}

/**
 * Daily values: how the stored columns become JSON typed by the attribute's value type, and the
 * list of one attribute's values. A day's value is stored in `value_num` (every numeric type, the
 * boolean as 0/1) or `value_text` (strings); the API answers integers for types 0, 3, 4, 6, 7 and 8,
 * numbers for 1 and 5, strings for 2, and null for a day without data (docs/decisions.md, "Values and writes").
 */
import type { components } from '../../../generated/types/v2';
import type { Knex } from 'knex';
import type { Database } from '../../db/database';
import { fragment, raw, sql } from '../../db/sql';
import { isIntegerValueType, isTextValueType, VALUE_TYPES } from '../../db/catalogue-value-types';
import { addDays, daysBetween, daysEndingAt, FIRST_DATE } from '../time';
import { visibleTo, whereVisible, type Visibility } from '../apps-and-grants/visibility';

/** A value as the API shows it. */
export type JsonValue = components['schemas']['ValueValue'];

/** One day's value of one attribute (openapi/common/schemas/Value.yaml). */
export type ValueObject = components['schemas']['Value'];

/** `value_num` may arrive as a JS number (pg) or inside JSON, where Postgres spells NaN/Infinity as strings. */
function finiteNumber(num: unknown): number | null {
  const n = typeof num === 'number' ? num : typeof num === 'string' && num.trim() !== '' ? Number(num) : NaN;
  return Number.isFinite(n) ? n : null;
}

/**
 * The stored columns of a day as the API's JSON value for `valueType`. Integer types are rounded,
 * so a value written while the attribute had a float type still comes back as a JSON integer;
 * a number stored for a string attribute (its type changed) comes back as its text.
 */
export function typedValue(valueType: number, num: unknown, text: unknown): JsonValue {
  if (isTextValueType(valueType)) {
    if (typeof text === 'string') return text;
    const n = finiteNumber(num);
    return n === null ? null : String(n);
  }
  const n = finiteNumber(num) ?? finiteNumber(text);
  if (n === null) return null;
  // Math.round(-0.2) is -0, which JSON writes as 0 anyway; `|| 0` keeps it out of comparisons too.
  return isIntegerValueType(valueType) ? Math.round(n) || 0 : n;
}

/** The columns that store `value` for an attribute of `valueType` (the inverse of `typedValue`). */
export function storedValue(valueType: number, value: number | string): { value_num: number | null; value_text: string | null } {
  return isTextValueType(valueType) ? { value_num: null, value_text: String(value) } : { value_num: Number(value), value_text: null };
}

export interface ListValuesInput {
  userId: number;
  attribute: string;
  visibility: Visibility;
  /** Newest date listed, inclusive. */
  dateMax: string;
  limit: number;
  offset: number;
}

/** Postgres' OFFSET is a bigint; a page number past this is past the end of any list anyway. */
export const MAX_OFFSET = Number.MAX_SAFE_INTEGER;

/** A page of values as JSON text (the page's `Value` objects), with the total and how many are on it. */
export interface ValuesPageText {
  count: number;
  shown: number;
  results: string;
}

/**
 * The SQL of a stored day's value (`v`, of the attribute `a`) as the JSON text that `typedValue`
 * and `JSON.stringify` write, for the values whose text PostgreSQL writes byte for byte as
 * JavaScript does; null for the others, which `listValuesText` types in JavaScript. Written by
 * PostgreSQL: a string without control characters, quotes or backslashes (between quotes as it
 * is); an integer type's whole number under 10^15 (as a bigint); a float type's 0 (also -0, which
 * JSON writes 0) or number of magnitude in [10^-4, 10^15 - 0.5), where PostgreSQL writes fixed
 * notation and the digits JavaScript writes for the number pg would have parsed from the same
 * text: the shortest that read back the same double (extra_float_digits >= 1, the default since
 * PostgreSQL 12), or at most 15 significant digits, which any double read back from them also
 * prints as (extra_float_digits 0; the half below 10^15 is left out as it rounds up to `1e+15`
 * there). Outside that range PostgreSQL writes `1e-05` and `1e+15`; NaN and infinities fall
 * outside too. Everything else (a number stored for a string attribute, text for a number, a
 * fraction for an integer type: a type changed after the write) is typed in JavaScript
 * (docs/decisions.md, "The values list's JSON is written by PostgreSQL").
 */
const VALUE_TEXT = raw(`case
     when a.value_type = ${VALUE_TYPES.string} then case when v.value_text !~ '[[:cntrl:]"]' and strpos(v.value_text, chr(92)) = 0 then '"' || v.value_text || '"' end
     when a.value_type in (${VALUE_TYPES.float}, ${VALUE_TYPES.percentage}) then case
       when v.value_num = 0 then '0'
       when abs(v.value_num) >= 1e-4 and abs(v.value_num) < 999999999999999.5 then v.value_num::text end
     else case when v.value_num = trunc(v.value_num) and abs(v.value_num) < 1e15 then v.value_num::bigint::text end
   end`);

/**
 * One attribute's stored values up to `dateMax`, newest first, one page of them, with the total,
 * as the JSON text of the page's `Value` objects (the answer's `results`). Days without data are
 * not listed, so the total counts stored values. An unknown attribute, or one `visibility` hides,
 * has no values. One query, one row: the attribute is found first, then (lateral, once for it) the
 * total is counted from the primary key's index alone and the page is read newest first from that
 * index, so only the page's rows are fetched, however long the history (a page past the end has
 * no rows and so no total; the caller only needs one for page 1, where no rows means 0).
 * PostgreSQL writes each object's text (`VALUE_TEXT`); the few values it cannot write as
 * JavaScript does come back as `[date, value_num, value_text]` in `odd`, in the page's order, and
 * are typed here (docs/request-path.md, "Issue 35, fifth stop").
 */
export async function listValuesText(db: Database, input: ListValuesInput): Promise<ValuesPageText> {
  type Row = { total: number | null; shown: number; value_type: number | null; results: string | null; odd: Array<[string, unknown, unknown]> | null };
  const [page] = await db.read<Row>(sql`select max(p.total) as total, count(*) as shown, max(p.value_type) as value_type,
       '[' || string_agg(case when p.value is null then 'null' else '{"date":"' || p.date::text || '","value":' || p.value || '}' end, ',' order by p.date desc) || ']' as results,
       json_agg(json_build_array(p.date::text, p.value_num, p.value_text) order by p.date desc) filter (where p.value is null) as odd
  from (select v.date, v.value_num, v.value_text, a.value_type, n.total, ${VALUE_TEXT} as value
  from attributes a
  cross join lateral (
    select count(*) as total from attribute_values c
     where c.user_id = a.user_id and c.attribute_id = a.id and c.date <= ${input.dateMax}::date
  ) as n
  cross join lateral (
    select v.date, v.value_num, v.value_text from attribute_values v
     where v.user_id = a.user_id and v.attribute_id = a.id and v.date <= ${input.dateMax}::date
     order by v.date desc limit ${input.limit}::bigint offset ${Math.min(input.offset, MAX_OFFSET)}::bigint
  ) as v
 where a.user_id = ${input.userId} and a.name = ${input.attribute} and ${visibleTo(input.visibility, raw('a'))}) as p`);
  if (!page?.results) return { count: 0, shown: 0, results: '[]' };
  const results = page.odd ? withOddValues(page.results, page.odd, page.value_type ?? 0) : page.results;
  return { count: page.total ?? 0, shown: page.shown, results };
}

/** The page's text with each `null` left for a value PostgreSQL could not write filled in, in order, by `typedValue`. */
function withOddValues(results: string, odd: Array<[string, unknown, unknown]>, valueType: number): string {
  const objects = JSON.parse(results) as Array<ValueObject | null>;
  let next = 0;
  const filled = objects.map((object) => {
    if (object) return object;
    const [date, num, text] = odd[next++];
    return { date, value: typedValue(valueType, num, text) };
  });
  return JSON.stringify(filled);
}

/**
 * Version 1's list of one attribute's values (the v1 document, "Units, dates and values": "version 1
 * lists every day of a range, with `null` for the days without data"): one entry per day, newest first, from
 * `dateMax` back to the attribute's first day of data, `null` on the days between without data.
 * The range starts at the first stored value because before it there is nothing to list (and no
 * start date a client could ask for); `count` is the number of days in the range, 0 when the
 * attribute has no data up to `dateMax`, is unknown, or is one `visibility` hides.
 *
 * One query: the attribute with its first stored date (the lowest key of the primary key's index)
 * and the stored values of the page's days only; the days without data are filled in here.
 */
export async function listDailyValues(db: Knex, input: ListValuesInput): Promise<{ count: number; results: ValueObject[] }> {
  const window = pageDays(input.dateMax, input.offset, input.limit);
  const attribute = db('attributes as a').where('a.user_id', input.userId).where('a.name', input.attribute);
  whereVisible(attribute, input.visibility);
  const row: { value_type: number; first: string | null; stored: Array<{ date: string; num: unknown; text: unknown }> } | undefined = await attribute
    .select(
      'a.value_type',
      db.raw('(select min(f.date) from attribute_values f where f.user_id = a.user_id and f.attribute_id = a.id) as first'),
      fragment(
        db,
        sql`coalesce((
           select json_agg(json_build_object('date', v.date, 'num', v.value_num, 'text', v.value_text))
           from attribute_values v
           where v.user_id = a.user_id and v.attribute_id = a.id and v.date between ${window?.oldest ?? input.dateMax}::date and ${window?.newest ?? input.dateMax}::date
         ), '[]'::json) as stored`,
      ),
    )
    .first();
  if (!row || row.first === null || row.first > input.dateMax) return { count: 0, results: [] };
  const count = daysBetween(row.first, input.dateMax) + 1;
  if (!window || window.newest < row.first) return { count, results: [] };
  const byDate = new Map<string, JsonValue>(row.stored.map((v) => [v.date, typedValue(row.value_type, v.num, v.text)]));
  const days = Math.min(daysBetween(row.first, window.newest), daysBetween(window.oldest, window.newest)) + 1;
  return { count, results: daysEndingAt(window.newest, days).map((date) => ({ date, value: byDate.get(date) ?? null })) };
}

/**
 * The newest and oldest day of a page of a newest-first list of days ending at `dateMax`, cut at
 * FIRST_DATE; undefined when the page starts before it (past the end of any range).
 */
function pageDays(dateMax: string, offset: number, limit: number): { newest: string; oldest: string } | undefined {
  const daysBefore = daysBetween(FIRST_DATE, dateMax);
  if (offset > daysBefore) return undefined;
  const newest = addDays(dateMax, -offset);
  return { newest, oldest: addDays(newest, -Math.min(limit - 1, daysBefore - offset)) };
}

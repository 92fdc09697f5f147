/**
 * Insights follow the data (docs/decisions.md, "Insights follow the data"): each insight records
 * its source days, `source_from` to `as_of`, where `as_of` is the person's local date it was
 * computed as of. Everything it says comes from the values of those days (the window the insight
 * run loads: 367 days before, INSIGHT_LOOKBACK_DAYS in src/analytics/insights), so a change to any
 * of them has it recomputed or withdrawn, and the lists hide it while such a change is pending.
 *
 * Earlier insights get the date back from their type and key (the key is the dedupe key's third
 * part): a today-type insight is about its own day, a record or a streak about the day before, a
 * week-type insight was first found in the week after its Monday, a month summary in the month
 * after. The rules are written out here: a migration must not change with the code.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    alter table insights add column as_of date, add column source_from date;
    update insights set as_of = case
        when type_name in ('today_above_weekday', 'today_below_weekday') then target_date
        when type_name in ('record_high', 'record_low', 'average_streak') then target_date + 1
        when type_name in ('week_high', 'tag_more_than_usual') then split_part(dedupe_key, ':', 3)::date + 7
        when type_name = 'month_summary' then ((split_part(dedupe_key, ':', 3) || '-01')::date + interval '1 month')::date
        else (created at time zone 'UTC')::date
      end;
    update insights set as_of = (created at time zone 'UTC')::date where as_of is null;
    update insights set source_from = as_of - 367;
    -- The defaults serve rows written without them (tests seeding an insight directly).
    alter table insights alter column as_of set default current_date, alter column as_of set not null,
      alter column source_from set default current_date - 367, alter column source_from set not null;
    create index insights_user_as_of_idx on insights (user_id, as_of);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    drop index if exists insights_user_as_of_idx;
    alter table insights drop column as_of, drop column source_from;
  `);
}

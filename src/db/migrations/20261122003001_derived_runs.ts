/**
 * Bookkeeping of the derived-data jobs.
 *
 * `derived_weeks`: one row per person per weekly set computed (averages and correlations dated by
 * the week's Monday), written in the same transaction as the set. It says which set is the latest
 * even when a week published no correlation at all, and records what the run did.
 *
 * `derive_state`: per person, the local date insights were last generated for, so the hourly sweep
 * runs the daily insights once per local day.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table derived_weeks (
      user_id bigint not null references users (id) on delete cascade,
      date date not null,
      attributes integer not null,
      tests integer not null,
      published integer not null,
      averages integer not null,
      duration_ms double precision not null,
      computed_at timestamptz not null default now(),
      primary key (user_id, date)
    );

    create table derive_state (
      user_id bigint primary key references users (id) on delete cascade,
      insights_on date,
      updated_at timestamptz not null default now()
    );

    -- Correlation lists read one person's newest week; insights filter by attribute for v1.
    create index insights_user_attribute_idx on insights (user_id, attribute_id);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    drop index if exists insights_user_attribute_idx;
    drop table if exists derive_state;
    drop table if exists derived_weeks;
  `);
}

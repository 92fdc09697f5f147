/**
 * Read your writes on a streaming replica (src/db/replicas.ts, docs/operating.md "Read replicas"):
 * each person's last-write mark, `person_writes.lsn`, set in the same transaction as every change
 * to the person's data that the replica-routed reads return. The primary answers a read's mark with
 * the read's first statement; the replica answers its own copy of the row with the data, and its
 * data is used only when that copy is as new (so the replica's snapshot holds the transaction that
 * wrote the mark, and every earlier write of the person).
 *
 * The mark is the WAL insert position when the statement ran: it grows from one writing
 * transaction of a person to the next (the row's lock orders them), which is all the comparison
 * needs. It is set by statement-level triggers (one upsert per writing statement, whatever the
 * number of rows), so no write path can forget it, including ones added later. A transition table
 * serves one event only: three triggers per table. `users` has row triggers on a new person and on
 * a changed time zone (it decides "today"); its other columns change with sign-ins and are not read
 * from a replica.
 */
import type { Knex } from 'knex';

/** The per-person tables that the replica-routed reads return rows of. */
const PERSON_TABLES = ['attributes', 'attribute_values', 'attribute_services', 'averages', 'correlations', 'insights', 'derived_weeks'];

const EVENTS = [
  { event: 'insert', transition: 'new' },
  { event: 'update', transition: 'new' },
  { event: 'delete', transition: 'old' },
];

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table person_writes (
      user_id bigint primary key,
      lsn pg_lsn not null
    ) with (fillfactor = 50);
    create function mark_person_writes() returns trigger language plpgsql as $$
    begin
      -- One row per person (the position is read once per row: it moves while the statement runs).
      insert into person_writes (user_id, lsn)
      select p.user_id, pg_current_wal_insert_lsn() from (select distinct user_id from changed) as p
      on conflict (user_id) do update set lsn = excluded.lsn;
      return null;
    end $$;
    create function mark_person_time_zone() returns trigger language plpgsql as $$
    begin
      insert into person_writes (user_id, lsn) values (new.id, pg_current_wal_insert_lsn())
      on conflict (user_id) do update set lsn = excluded.lsn;
      return null;
    end $$;
    create trigger users_person_writes after update of timezone on users
      for each row when (old.timezone is distinct from new.timezone) execute function mark_person_time_zone();
    create trigger users_person_created after insert on users for each row execute function mark_person_time_zone();
  `);
  for (const table of PERSON_TABLES) {
    for (const { event, transition } of EVENTS) {
      await knex.raw(
        `create trigger ${table}_${event}_person_writes after ${event} on ${table}
           referencing ${transition} table as changed for each statement execute function mark_person_writes()`,
      );
    }
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const table of PERSON_TABLES) {
    for (const { event } of EVENTS) await knex.raw(`drop trigger if exists ${table}_${event}_person_writes on ${table}`);
  }
  await knex.raw(`
    drop trigger if exists users_person_writes on users;
    drop trigger if exists users_person_created on users;
    drop function if exists mark_person_writes();
    drop function if exists mark_person_time_zone();
    drop table if exists person_writes;
  `);
}

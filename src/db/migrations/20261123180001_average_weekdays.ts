/**
 * Every weekday median of a weekly set is a number (openapi/v2/schemas/Average.yaml): a weekday without
 * data in the window holds the set's overall median (src/analytics/averages.ts). Sets stored
 * before that rule had null there; they get the overall median too, and the columns refuse null.
 */
import type { Knex } from 'knex';

const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`update averages set ${WEEKDAYS.map((day) => `${day} = coalesce(${day}, overall)`).join(', ')}
    where ${WEEKDAYS.map((day) => `${day} is null`).join(' or ')}`);
  await knex.raw(`alter table averages ${WEEKDAYS.map((day) => `alter column ${day} set not null`).join(', ')}`);
}

/** Allows null again; the medians filled in stay (which weekdays had no data is not recorded). */
export async function down(knex: Knex): Promise<void> {
  await knex.raw(`alter table averages ${WEEKDAYS.map((day) => `alter column ${day} drop not null`).join(', ')}`);
}

/**
 * Sessions remember the browser that started them (its User-Agent, at most 200 characters), so a
 * person can tell their sessions apart on the account page and end the ones they do not know.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`alter table sessions add column user_agent text not null default ''`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('alter table sessions drop column user_agent');
}

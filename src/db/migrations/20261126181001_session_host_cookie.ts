/**
 * Sessions remember whether their cookie was issued under the `__Host-` name (docs/security.md,
 * "Session cookies"). Over HTTPS the plain name `daybook_session` is still read during the
 * transition, so sessions from before the deploy survive it, but only for a session whose cookie
 * was never `__Host-` (every one from before this migration): a plain cookie planted by a sibling
 * subdomain or over plain HTTP cannot carry a session issued since.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`alter table sessions add column host_cookie boolean not null default false`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('alter table sessions drop column host_cookie');
}

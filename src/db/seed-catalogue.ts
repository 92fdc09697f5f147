/**
 * Seeding the catalogue: writes the groups, templates and built-in services (catalogue-groups.ts,
 * catalogue-templates.ts, catalogue-services.ts) to the database.
 */

import type { Knex } from 'knex';
import { GROUPS } from './catalogue-groups';
import { BUILTIN_SERVICES } from './catalogue-services';
import { TEMPLATES } from './catalogue-templates';

/**
 * Writes groups, templates and the built-in services, idempotently (INSERT ... ON CONFLICT DO
 * UPDATE), so every start can run it and a reviewed change to the catalogue reaches the database.
 * Templates dropped from catalogue-templates.ts are left in place: attributes may still refer to them.
 */
export async function seedCatalogue(knex: Knex): Promise<void> {
  await knex.transaction(async (trx) => {
    await trx('groups')
      .insert(GROUPS.map((g) => ({ name: g.name, label: g.label, priority: g.priority })))
      .onConflict('name')
      .merge(['label', 'priority']);
    await trx('templates')
      .insert(
        TEMPLATES.map((t) => ({
          name: t.name,
          label: t.label,
          group_name: t.group,
          value_type: t.valueType,
          priority: t.priority,
          unit: t.unit,
        })),
      )
      .onConflict('name')
      .merge(['label', 'group_name', 'value_type', 'priority', 'unit']);
    await trx('oauth_clients')
      .insert(
        BUILTIN_SERVICES.map((s) => ({
          client_id: s.name,
          name: s.label,
          description: s.description,
          secret_hash: null,
          // Not confidential and no redirect URIs: nobody can run an OAuth flow as a built-in.
          confidential: false,
          builtin: true,
        })),
      )
      .onConflict('client_id')
      .merge(['name', 'description', 'builtin']);
  });
}

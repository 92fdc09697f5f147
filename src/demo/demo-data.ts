/**
 * Demo data: the generator's public face and `loadDemoData`, which writes generated data for one
 * user. The generator itself is pure (demo-generator.ts, demo-models.ts).
 */
import type { Knex } from 'knex';
import { knexRaw, sql } from '../db/sql';
import { DEMO_SERVICE } from '../db/catalogue-services';
import { TEMPLATES_BY_NAME } from '../db/catalogue-templates';
import { isTextValueType } from '../db/catalogue-value-types';
import { generateDemoData, type DemoDataOptions } from './demo-generator';
import { insertAttributes, templateAttributeRow } from '../domain/tracking/writes/new-attributes';
import { rememberServices } from '../domain/tracking/writes/context';

export {
  DEFAULT_DEMO_TEMPLATES,
  PLANTED_RELATIONSHIPS,
  generateDemoData,
  selectDemoTemplates,
  type DemoDataOptions,
  type DemoSeries,
  type PlantedRelationship,
} from './demo-generator';

/** What `loadDemoData` wrote. */
export interface DemoLoadResult {
  /** Attributes the data went into (created now or already there). */
  attributes: number;
  /** Values written (inserted or overwritten). */
  values: number;
}

/** Rows per insert statement: big enough to be fast, small enough to stay well under Postgres' limits. */
const CHUNK_ROWS = 5000;

/**
 * Generates demo data and stores it for `userId`: creates the attributes (owned by the built-in
 * service daybook-demo, which also becomes able to handle them), upserts the values, and marks
 * the dates changed so derived-data jobs pick them up. Running it again overwrites the values;
 * an attribute the user already has keeps its owner. Needs `seedCatalogue` to have run.
 */
export async function loadDemoData(knex: Knex, userId: number, opts: DemoDataOptions): Promise<DemoLoadResult> {
  const series = generateDemoData(opts);
  return knex.transaction(async (trx) => {
    const service = await trx('oauth_clients').where({ client_id: DEMO_SERVICE.name }).first<{ id: number } | undefined>('id');
    if (!service) throw new Error(`built-in service ${DEMO_SERVICE.name} is missing: run seedCatalogue first`);

    if (series.length === 0) return { attributes: 0, values: 0 };
    // The same creation as the API's (createAttributes, domain/tracking/writes/create.ts): a template's row owned by the
    // demo service, which is then recorded as able to handle it. Existing attributes keep theirs.
    const owner = { userId, clientPk: service.id, now: new Date() };
    await insertAttributes(
      trx,
      series.map((s) => templateAttributeRow(owner, TEMPLATES_BY_NAME.get(s.template)!, false)),
    );
    const rows: Array<{ id: number; name: string }> = await trx('attributes')
      .where({ user_id: userId })
      .whereIn(
        'name',
        series.map((s) => s.template),
      )
      .select('id', 'name');
    const idByName = new Map(rows.map((r) => [r.name, r.id]));
    await rememberServices(
      trx,
      owner,
      rows.map((r) => r.id),
    );

    const values = series.flatMap((s) => {
      const text = isTextValueType(s.valueType);
      const attributeId = idByName.get(s.template)!;
      return s.values.map((v) => ({
        attribute_id: attributeId,
        date: v.date,
        value_num: text ? null : v.value,
        value_text: text ? String(v.value) : null,
      }));
    });
    // One JSON parameter per chunk instead of five bindings a row: faster, and far from the
    // 65535-parameter limit of a statement.
    for (let start = 0; start < values.length; start += CHUNK_ROWS) {
      await trx.raw(
        ...knexRaw(sql`insert into attribute_values (user_id, attribute_id, date, value_num, value_text)
         select ${userId}::bigint, r.attribute_id, r.date, r.value_num, r.value_text
         from jsonb_to_recordset(${JSON.stringify(values.slice(start, start + CHUNK_ROWS))}::jsonb) as r(attribute_id bigint, date date, value_num double precision, value_text text)
         on conflict (user_id, attribute_id, date)
         do update set value_num = excluded.value_num, value_text = excluded.value_text, updated_at = now()`),
      );
    }

    const dates = [...new Set(values.map((v) => v.date))];
    await trx.raw(
      ...knexRaw(sql`insert into value_changes (user_id, date)
       select ${userId}::bigint, d::date from jsonb_array_elements_text(${JSON.stringify(dates)}::jsonb) as d
       on conflict (user_id, date) do update set changed_at = now()`),
    );
    return { attributes: rows.length, values: values.length };
  });
}

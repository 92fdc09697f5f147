/**
 * New attributes' rows and the one set-based insert that stores them (docs/batch-writes.md): the
 * rows of a whole batch as one `unnest` of column arrays, inserted in name order (the statement's
 * `order by`: concurrent batches creating the same names never wait on each other in a cycle), one statement text whatever the
 * batch's length (a named prepared statement, planned once per connection), and a name the person
 * already has left alone (`on conflict do nothing`): it is absent from what the insert returns,
 * which is how create answers `already_exists` and acquire sees a template's attribute made meanwhile.
 */
import type { Knex } from 'knex';
import { empty, inTransaction, join, raw, sql, type Sql } from '../../../db/sql';
import { TEMPLATES_BY_NAME, type TemplateDef } from '../../../db/catalogue-templates';
import { ItemError } from './batch';
import { WRITABLE_COLUMNS, type WritableAttribute, type WriteContext } from './context';

/** A new attribute's row, as inserted: the columns the write rules read (no id yet), its person, owner and creation time. */
export type AttributeRow = Omit<WritableAttribute, 'id' | 'owner_client_pk'> & { user_id: number; owner_client_pk: number; created_at: Date };

/** The inserted columns and their PostgreSQL types, in the insert's order. */
const INSERTED = {
  user_id: 'bigint',
  name: 'text',
  label: 'text',
  template_name: 'text',
  group_name: 'text',
  value_type: 'smallint',
  priority: 'integer',
  manual: 'boolean',
  active: 'boolean',
  owner_client_pk: 'bigint',
  created_at: 'timestamptz',
} as const;
const INSERTED_COLUMNS = Object.keys(INSERTED) as Array<keyof typeof INSERTED>;
const COLUMN_LIST = raw(INSERTED_COLUMNS.join(', '));
const RETURNED = raw(WRITABLE_COLUMNS.join(', '));

/**
 * One column of the rows, as the statement binds it. The creation times go as ISO 8601 text
 * (`timestamptz` reads the same instant): an array of Dates is left to pg's own conversion, which
 * formats each Date apart and runs its two regular expressions over each (db/sql.ts, `arrayText`),
 * where a batch's rows share one time, made into text once (docs/request-path.md, "Issue 35,
 * fourth stop").
 */
function columnOf(rows: AttributeRow[], column: (typeof INSERTED_COLUMNS)[number]): unknown[] {
  if (column !== 'created_at') return rows.map((row) => row[column]);
  let time: Date | undefined;
  let text = '';
  return rows.map((row) => {
    if (row.created_at !== time) text = (time = row.created_at).toISOString();
    return text;
  });
}

/**
 * `insert into attributes … returning` the WritableAttribute columns of the rows it created.
 * `guarded`: a CTE named `guard` comes before this one (src/db/database.ts), and it inserts only
 * when the guard lets the request proceed.
 */
export function insertAttributesStatement(rows: AttributeRow[], guarded = false): Sql {
  // In the order given: the statement sorts them (a sort here as well cost about 25 µs a batch of the bench's names, and ordered nothing).
  const arrays = INSERTED_COLUMNS.map((column) => sql`${columnOf(rows, column)}::${raw(INSERTED[column])}[]`);
  return sql`insert into attributes (${COLUMN_LIST})
    select n.* from ${guarded ? sql`guard, ` : empty}unnest(${join(arrays)}) as n(${COLUMN_LIST})
     ${guarded ? sql`where guard.guard_proceed` : empty}
     order by n.name
    on conflict (user_id, name) do nothing
    returning ${RETURNED}`;
}

/**
 * Inserts attribute rows in one statement of the transaction. Returns the created rows by name; a
 * name that exists is left alone and absent from the answer.
 */
export async function insertAttributes(trx: Knex.Transaction, rows: AttributeRow[]): Promise<Map<string, WritableAttribute>> {
  if (rows.length === 0) return new Map();
  const created = await inTransaction<WritableAttribute>(trx, insertAttributesStatement(rows));
  return new Map(created.map((row) => [row.name, row]));
}

/** A template by name, or `not_found`. */
export function templateNamed(name: string): TemplateDef {
  const template = TEMPLATES_BY_NAME.get(name);
  if (!template) throw new ItemError('not_found', `There is no template named ${name}.`);
  return template;
}

/** The row a template's attribute starts as, owned by the calling service (the API's creation and the demo loader). */
export function templateAttributeRow(context: Pick<WriteContext, 'userId' | 'clientPk' | 'now'>, template: TemplateDef, manual: boolean): AttributeRow {
  return {
    user_id: context.userId,
    name: template.name,
    label: template.label,
    template_name: template.name,
    group_name: template.group,
    value_type: template.valueType,
    priority: template.priority,
    manual,
    active: true,
    owner_client_pk: context.clientPk,
    created_at: context.now,
  };
}

/**
 * A person's attributes and values for tests, written straight to the tables the service reads
 * (the write endpoints are built on the same tables). Defaults come from the catalogue.
 */
import type { TestApp } from './app';
import { TEMPLATES_BY_NAME } from '../../src/db/catalogue-templates';
import { storedValue } from '../../src/domain/tracking/values';

export interface AttributeSeed {
  name: string;
  /** Template name; defaults to `name` when the catalogue has it; null for a custom attribute. */
  template?: string | null;
  label?: string;
  group?: string;
  value_type?: number;
  priority?: number;
  manual?: boolean;
  active?: boolean;
  /** `oauth_clients.id` of the owner; null for nobody. */
  owner?: number | null;
}

export interface SeededAttribute {
  id: number;
  name: string;
  value_type: number;
}

/** Inserts one attribute for `userId`. */
export async function addAttribute(app: TestApp, userId: number, seed: AttributeSeed): Promise<SeededAttribute> {
  const templateName = seed.template === undefined ? (TEMPLATES_BY_NAME.has(seed.name) ? seed.name : null) : seed.template;
  const template = templateName ? TEMPLATES_BY_NAME.get(templateName) : undefined;
  const row = {
    user_id: userId,
    name: seed.name,
    label: seed.label ?? template?.label ?? seed.name,
    template_name: templateName,
    group_name: seed.group ?? template?.group ?? 'custom',
    value_type: seed.value_type ?? template?.valueType ?? 0,
    priority: seed.priority ?? template?.priority ?? 2,
    manual: seed.manual ?? false,
    active: seed.active ?? true,
    owner_client_pk: seed.owner ?? null,
  };
  const [inserted] = await app.db('attributes').insert(row).returning(['id', 'name', 'value_type']);
  return inserted as SeededAttribute;
}

/** Inserts several attributes in order. */
export async function addAttributes(app: TestApp, userId: number, seeds: AttributeSeed[]): Promise<SeededAttribute[]> {
  const out: SeededAttribute[] = [];
  for (const seed of seeds) out.push(await addAttribute(app, userId, seed));
  return out;
}

/** Stores values (date -> value) of one attribute, typed into the right column. */
export async function addValues(app: TestApp, userId: number, attribute: SeededAttribute, values: Record<string, number | string>): Promise<void> {
  const rows = Object.entries(values).map(([date, value]) => ({
    user_id: userId,
    attribute_id: attribute.id,
    date,
    ...storedValue(attribute.value_type, value),
  }));
  if (rows.length > 0) await app.db('attribute_values').insert(rows);
}

/** Records that a client has acquired the attribute before (so it can handle it). */
export async function addAvailableService(app: TestApp, userId: number, attribute: SeededAttribute, clientPk: number, acquiredAt = new Date()): Promise<void> {
  await app.db('attribute_services').insert({ user_id: userId, attribute_id: attribute.id, client_pk: clientPk, acquired_at: acquiredAt });
}

/** Counts the SQL statements run while `fn` runs whose text matches `pattern` (all of them by default). */
export async function countQueries<T>(app: TestApp, fn: () => Promise<T>, pattern = /.*/s): Promise<{ result: T; queries: number }> {
  let queries = 0;
  const listener = (q: { sql: string }) => {
    if (pattern.test(q.sql)) queries += 1;
  };
  app.db.on('query', listener);
  try {
    const result = await fn();
    return { result, queries };
  } finally {
    app.db.removeListener('query', listener);
  }
}

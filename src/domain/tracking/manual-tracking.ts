/**
 * Tracking by hand: a person enters values in Daybook's own pages. They write as Daybook's built-in
 * service (docs/decisions.md, "Values and writes": manual attributes tracked in the web pages are owned by `daybook`), through the
 * same write rules as any app: the service must own the attribute (tracking something by hand
 * acquires it, which is the person changing its owner in their own settings), values are checked
 * by value-rules.ts, every write records its value change for the derived data, and tags keep the
 * day's custom text.
 */
import type { Knex } from 'knex';
import { poolDatabase } from '../../db/database';
import { MANUAL_SERVICE } from '../../db/catalogue-services';
import { accessFor, WRITE_SCOPES } from '../apps-and-grants/scopes';
import { localDate } from '../time';
import type { BatchResult, FailedItem } from './writes/batch';
import type { WriteContext } from './writes/context';
import { acquireAttributes } from './writes/ownership';
import { createAttributes } from './writes/create';
import { updateValues } from './writes/values';

/** Daybook's built-in manual-tracking service may write every group (it writes only what the person types). */
const MANUAL_ACCESS = accessFor(WRITE_SCOPES);

/** `oauth_clients.id` of the built-in manual-tracking service (seeded with the catalogue). */
export async function manualServicePk(db: Knex): Promise<number> {
  const row: { id: number } | undefined = await db('oauth_clients').where({ client_id: MANUAL_SERVICE.name, builtin: true }).first('id');
  if (!row) throw new Error(`The built-in service ${MANUAL_SERVICE.name} is missing: the catalogue seed has not run.`);
  return row.id;
}

async function manualContext(db: Knex, person: { id: number; timezone: string }, now: Date): Promise<WriteContext> {
  return { userId: person.id, clientPk: await manualServicePk(db), access: MANUAL_ACCESS, now, today: localDate(now, person.timezone) };
}

/** The outcome of one change made by hand: the attribute's name, or the rule's sentence. */
export type ManualResult = { ok: true; name: string } | { ok: false; problem: string };

/** A failed item's sentence for a person: the batch's "Item 0:" prefix means nothing on a page. */
function problemOf(failed: FailedItem): string {
  return failed.error.replace(/^Item \d+:? /, '');
}

function single(result: BatchResult<string>): ManualResult {
  if (result.success.length === 1) return { ok: true, name: result.success[0] };
  return { ok: false, problem: problemOf(result.failed[0]) };
}

/** What the person asks to track by hand: a template, or an attribute of their own design. */
export type TrackRequest = { template: string } | { label: string; group: string; valueType: number };

/**
 * Starts tracking by hand: a template's attribute is created or taken over from the app that owns
 * it; a new attribute is created with a name made from its label. Either way it is manual, active
 * and owned by Daybook.
 */
export async function trackByHand(db: Knex, person: { id: number; timezone: string }, request: TrackRequest, now: Date): Promise<ManualResult> {
  const context = await manualContext(db, person, now);
  if ('template' in request) return single(await acquireAttributes(poolDatabase(db), context, [{ template: request.template, manual: true }]));
  const created = await createAttributes(poolDatabase(db), context, [
    { label: request.label, group: request.group, value_type: request.valueType, manual: true },
  ]);
  return single({ success: created.success.map((entry) => entry.attribute.name), failed: created.failed });
}

/** A day's value typed by the person (see web/values.ts for reading the form). */
export interface ValueByHand {
  name: string;
  date: string;
  value: number | string;
}

/**
 * Sets days' values of attributes Daybook owns: the whole form in one batch, one transaction,
 * through the same write rules as any app. Answers each value's outcome in the order given.
 */
export async function setValuesByHand(db: Knex, person: { id: number; timezone: string }, values: ValueByHand[], now: Date): Promise<ManualResult[]> {
  const context = await manualContext(db, person, now);
  const items = values.map((v) => ({ name: v.name, date: v.date, value: v.value }));
  const result = await updateValues(poolDatabase(db), context, items);
  // An update's success is the item sent; the failures come in the order sent, after their own kind.
  const failures = result.failed[Symbol.iterator]();
  return items.map((item) => (result.success.includes(item) ? { ok: true, name: item.name } : { ok: false, problem: problemOf(failures.next().value!) }));
}

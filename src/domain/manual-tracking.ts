/**
 * Tracking by hand: a person enters values in Daybook's own pages. They write as Daybook's built-in
 * service (DESIGN: manual attributes tracked in the web pages are owned by `daybook`), through the
 * same write rules as any app: the service must own the attribute (tracking something by hand
 * acquires it, which is the person changing its owner in their own settings), values are checked
 * by value-rules.ts, every write records its value change for the derived data, and tags keep the
 * day's custom text.
 */
import type { Knex } from 'knex';
import { MANUAL_SERVICE } from '../db/catalogue';
import { accessFor, WRITE_SCOPES } from './scopes';
import { localDate } from './time';
import { runBatch, type Item } from './writes/batch';
import type { WriteContext } from './writes/context';
import { acquireAttribute } from './writes/ownership';
import { createAttribute } from './writes/create';
import { updateValue } from './writes/values';

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

async function applyOne(db: Knex, item: Item, apply: (trx: Knex.Transaction, item: Item, index: number) => Promise<string>): Promise<ManualResult> {
  const { success, failed } = await runBatch(db, [item], apply);
  if (success.length === 1) return { ok: true, name: success[0] };
  return { ok: false, problem: failed[0].error.replace(/^Item 0:? /, '') };
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
  if ('template' in request) {
    return applyOne(db, { template: request.template, manual: true }, (trx, item, index) => acquireAttribute(trx, context, item, index));
  }
  return applyOne(db, { label: request.label, group: request.group, value_type: request.valueType, manual: true }, async (trx, item, index) =>
    (await createAttribute(trx, context, item, index)).attribute.name,
  );
}

/** Sets a day's value of an attribute Daybook owns (typed by the person; see web/values.ts for reading the form). */
export async function setValueByHand(
  db: Knex,
  person: { id: number; timezone: string },
  input: { name: string; date: string; value: number | string },
  now: Date,
): Promise<ManualResult> {
  const context = await manualContext(db, person, now);
  return applyOne(db, { name: input.name, date: input.date, value: input.value }, async (trx, item, index) => {
    await updateValue(trx, context, item, index);
    return input.name;
  });
}

/**
 * Acquire batches without a transaction of their own (docs/batch-writes.md, "The one-statement
 * path"), as value writes do (verified-write.ts). A service syncing a person re-acquires the
 * attributes it uses: nothing is created, and the batch's outcome depends only on the attributes
 * it names (their existence, group and manual flag, which the scopes are checked against). So they
 * are read without locks (or remembered from the person's last batch), the rules run in memory
 * (acquire-plan.ts), and ONE statement then locks the named attributes (update locks, in id
 * order), checks that they are exactly the ones the rules saw (the same rows, none more, none
 * fewer, each with the group and manual flag read), and only then hands them to the service and
 * records that it can handle them. If anything changed in between, it writes nothing and the batch
 * runs again on the locked path (ownership.ts), as does a batch that creates a template's attribute
 * (an insert that might meet a concurrent one cannot be undone by the same statement).
 */
import type { Database } from '../../../db/database';
import { empty, raw, sql, type Sql } from '../../../db/sql';
import { type BatchResult, type Checked, type Item, outcomesAfter } from './batch';
import { readAttributes, servicesRemembered, type WritableAttribute, type WriteContext } from './context';
import { type AcquirePlan, type AcquireTarget, nameOf, planAcquires, takenIds, takeOwnership } from './acquire-plan';
import { forgetAttributes, rememberAttributes, rememberedAttributes } from './verified-write';

/**
 * The statement. With `guard` (the request's first-statement guard: src/db/database.ts), it comes
 * first and the attributes are locked only when it lets the request proceed (the rate-limit row is
 * always the first lock such a statement takes, as in verified-write.ts); when the guard stops the
 * request, nothing is locked or written (`unchanged.ok` is false).
 */
function statement(
  guard: Sql | undefined,
  context: WriteContext,
  names: string[],
  read: WritableAttribute[],
  taken: Array<{ id: number; manual: boolean | undefined }>,
): Sql {
  const { userId } = context;
  return sql`with ${guard ? sql`${guard}, ` : empty}found as materialized (
    select a.id, a.name, a.group_name, a.manual
      from ${guard ? sql`guard, ` : empty}attributes a
     where ${guard ? sql`guard.guard_proceed and ` : empty}a.user_id = ${userId} and a.name = any(${names}::text[])
     order by a.id
       for update of a
  ),
  unchanged as materialized (
    select count(*) = ${read.length}::int and count(e.id) = ${read.length}::int as ok
      from found f
      left join unnest(${read.map((a) => a.id)}::bigint[], ${read.map((a) => a.group_name)}::text[], ${read.map((a) => a.manual)}::boolean[]) as e(id, group_name, manual)
        on f.id = e.id and f.group_name = e.group_name and f.manual = e.manual
  ),
  taken as (
    ${takeOwnership(context, taken, raw('unchanged'), raw('unchanged.ok'))}
  ),
  services as (
    ${servicesRemembered(context, sql`unchanged cross join unnest(${taken.map((t) => t.id)}::bigint[]) as t(id) where unchanged.ok`)}
  )
  select ${guard ? sql`guard.*, ` : empty}unchanged.ok from ${guard ? sql`guard, ` : empty}unchanged`;
}

/**
 * The taken attributes as they are after the batch: the service's, active, with the manual flag the
 * items left. Spelled field by field: a spread of each row cost V8's slow copy (docs/request-path.md,
 * "Issue 35, fourth stop").
 */
function afterwards(context: WriteContext, plan: AcquirePlan, attributes: ReadonlyMap<string, WritableAttribute>): WritableAttribute[] {
  const taken: WritableAttribute[] = [];
  for (const [name, { manual }] of plan.taken) {
    const a = attributes.get(name)!;
    taken.push({
      id: a.id,
      name: a.name,
      label: a.label,
      template_name: a.template_name,
      group_name: a.group_name,
      value_type: a.value_type,
      priority: a.priority,
      manual: manual ?? a.manual,
      active: true,
      owner_client_pk: context.clientPk,
    });
  }
  return taken;
}

/** Applies the plan in one statement if the attributes are as read; false when something changed and nothing was written. */
async function writeVerified(
  db: Database,
  context: WriteContext,
  names: string[],
  attributes: Map<string, WritableAttribute>,
  plan: AcquirePlan,
): Promise<boolean> {
  const taken = takenIds(plan, attributes);
  const [answer] = await db.write<{ ok: boolean }>((guard) => statement(guard, context, names, [...attributes.values()], taken));
  if (!answer?.ok) return false;
  rememberAttributes(context.userId, afterwards(context, plan, attributes));
  return true;
}

/**
 * The batch in one statement, after the attributes are remembered or read. Undefined when it needs
 * the locked path: a template's attribute to create, or an attribute that changed since it was read.
 */
export async function acquireInOneStatement(
  db: Database,
  context: WriteContext,
  items: Item[],
  checked: Checked<AcquireTarget>,
  targets: AcquireTarget[],
): Promise<BatchResult<string> | undefined> {
  const names = [...new Set(targets.map(nameOf))];
  const remembered = rememberedAttributes(context.userId, names);
  if (remembered) {
    // Only a batch every item of which passes on what is remembered is written from it: a failure
    // might come from a stale memory, so it is decided on a fresh read.
    const outcomes = outcomesAfter<string>(items, checked);
    const plan = planAcquires(context, remembered, outcomes, targets);
    const result = outcomes.result();
    if (plan.toCreate.size === 0 && result.success.length === targets.length) {
      if (await writeVerified(db, context, names, remembered, plan)) return result;
    }
    forgetAttributes(context.userId);
  }
  const attributes = await readAttributes(db, context.userId, names);
  rememberAttributes(context.userId, attributes.values());
  const outcomes = outcomesAfter<string>(items, checked);
  const plan = planAcquires(context, attributes, outcomes, targets);
  if (plan.toCreate.size > 0) return undefined;
  // Every item failed a rule: the batch changes nothing, as of the attributes just read.
  if (plan.taken.size === 0) return outcomes.result();
  return (await writeVerified(db, context, names, attributes, plan)) ? outcomes.result() : undefined;
}

/**
 * Handlers of the v2 `Writing` tag: update, increment, acquire, release, create. They shape the
 * batch answer; the rules are in src/domain/tracking/writes/. Request validation has already made sure the
 * body is an array of at most 35 objects and that the caller is an OAuth2 client.
 */
import { databaseOf, principalOf } from '../../http/request-state';
import type Koa from 'koa';
import type { Deps } from '../../deps';
import { type Access, accessFor } from '../../domain/apps-and-grants/scopes';
import { principalToday } from '../../domain/time';
import { attributeObjectsNamed, type AttributeObject } from '../../domain/tracking/attributes';
import type { Item } from '../../domain/tracking/writes/batch';
import type { WriteContext } from '../../domain/tracking/writes/context';
import { incrementValues, updateValues } from '../../domain/tracking/writes/values';
import { acquireAttributes, releaseAttributes } from '../../domain/tracking/writes/ownership';
import { createAttributes, type Created } from '../../domain/tracking/writes/create';
import { answerJson } from '../../http/json-body';
import { queryFlag } from '../../http/query';
import type { V2Operation } from '../../http/operation';

/**
 * What a principal's scopes may write, worked out once per scopes object: a remembered credential
 * hands every request the same principal and scopes (as visibility.ts's rules are remembered), and
 * expanding them into sets of groups was about 1 % of an acquire's own CPU (docs/request-path.md,
 * "Issue 35, fourth stop"). Scopes are never changed in place, and the write rules only read it.
 */
const accessByScopes = new WeakMap<ReadonlySet<string>, Access>();
function accessOf(scopes: Set<string>): Access {
  let access = accessByScopes.get(scopes);
  if (!access) accessByScopes.set(scopes, (access = accessFor(scopes)));
  return access;
}

/** Who writes, from the request's principal (writing is for OAuth2 clients: the document's security makes sure). */
async function writeContext(deps: Deps, ctx: Koa.Context): Promise<WriteContext> {
  const principal = principalOf(ctx);
  const now = deps.now();
  return {
    userId: principal.userId,
    clientPk: principal.clientPk!,
    access: accessOf(principal.scopes),
    now,
    today: await principalToday(databaseOf(ctx), principal, now),
  };
}

/**
 * 200 when every item succeeded, 202 when any failed (the v2 document, "Errors"); the body is the
 * operation's result type, answered as its JSON text (`answerJson`: Koa's object body looks its
 * type up and tests the object against four stream and body kinds, twice).
 */
function answer<B extends { failed: unknown[] }>(ctx: Koa.Context & { body: B }, result: NoInfer<B>): void {
  ctx.status = result.failed.length === 0 ? 200 : 202;
  answerJson(ctx, result);
}

/**
 * The full Attribute objects of the named attributes, in one query, after the batch was written:
 * a lookup by name (each was just written in this batch, so it exists), on the request's database
 * (in the request's transaction when it sent an idempotency key: http/idempotency.ts).
 */
async function attributeObjects(deps: Deps, ctx: Koa.Context, names: string[]): Promise<(name: string) => AttributeObject> {
  const objects = await attributeObjectsNamed(await databaseOf(ctx).knex(), principalOf(ctx).userId, names, deps.now());
  return (name) => {
    const object = objects.get(name);
    if (!object) throw new Error(`The attribute ${name} written in this batch was not found after it.`);
    return object;
  };
}

export function writingHandlers(deps: Deps) {
  /** The request's writer and items (validation made sure the body is an array of at most 35 objects). */
  async function batchOf(ctx: Koa.Context, items: Item[]): Promise<{ context: WriteContext; items: Item[] }> {
    return { context: await writeContext(deps, ctx), items };
  }
  /** The request's query builder: the pool, or the request's transaction when it sent an idempotency key (http/idempotency.ts). */
  const knexOf = (ctx: Koa.Context) => databaseOf(ctx).knex();

  return {
    async updateAttributeValues(c: V2Operation<'updateAttributeValues'>['context'], ctx: V2Operation<'updateAttributeValues'>['ctx']): Promise<void> {
      const { context, items } = await batchOf(ctx, c.request.requestBody);
      answer(ctx, await updateValues(databaseOf(ctx), context, items));
    },

    async incrementAttributeValues(c: V2Operation<'incrementAttributeValues'>['context'], ctx: V2Operation<'incrementAttributeValues'>['ctx']): Promise<void> {
      const { context, items } = await batchOf(ctx, c.request.requestBody);
      answer(ctx, await incrementValues(databaseOf(ctx), context, items));
    },

    async acquireAttributes(c: V2Operation<'acquireAttributes'>['context'], ctx: V2Operation<'acquireAttributes'>['ctx']): Promise<void> {
      const { context, items } = await batchOf(ctx, c.request.requestBody);
      const result = await acquireAttributes(databaseOf(ctx), context, items);
      if (queryFlag(c, 'success_objects')) {
        const objectOf = await attributeObjects(deps, ctx, result.success);
        answer(ctx, { success: result.success.map(objectOf), failed: result.failed });
      } else {
        answer(ctx, { success: result.success.map((name) => ({ name, active: true })), failed: result.failed });
      }
    },

    async releaseAttributes(c: V2Operation<'releaseAttributes'>['context'], ctx: V2Operation<'releaseAttributes'>['ctx']): Promise<void> {
      const { context, items } = await batchOf(ctx, c.request.requestBody);
      const result = await releaseAttributes(await knexOf(ctx), context, items);
      answer(ctx, { success: result.success.map((name) => ({ name })), failed: result.failed });
    },

    async createAttributes(c: V2Operation<'createAttributes'>['context'], ctx: V2Operation<'createAttributes'>['ctx']): Promise<void> {
      const { context, items } = await batchOf(ctx, c.request.requestBody);
      const result = await createAttributes(databaseOf(ctx), context, items);
      // Template items are always answered with the full attribute (the v2 document's `createAttributes`), others on request.
      const full = queryFlag(c, 'success_objects');
      const wantsObject = (entry: Created) => full || entry.fromTemplate;
      const objectOf = await attributeObjects(
        deps,
        ctx,
        result.success.filter(wantsObject).map((entry) => entry.attribute.name),
      );
      answer(ctx, {
        success: result.success.map((entry) => (wantsObject(entry) ? objectOf(entry.attribute.name) : entry.item)),
        failed: result.failed,
      });
    },
  };
}

/**
 * Handlers of the v1 `Attributes` tag: the caller's attributes with a value for every day of a range,
 * and one attribute's values for every day. Version 1 lists every day (null without data), so
 * one attribute's list differs from version 2's values, which lists stored days only.
 */
import type { operations } from '../../../generated/types/v1';
import { personKnex, type Deps } from '../../deps';
import { listAttributeRowsWithValues } from '../../domain/tracking/attributes';
import { listDailyValues } from '../../domain/tracking/values';
import { readOrWriteVisibility } from '../../domain/apps-and-grants/visibility';
import { principalToday } from '../../domain/time';
import { databaseOf } from '../../http/request-state';
import { envelope, paging } from '../../http/paging';
import { queryDate, queryInt, queryNames } from '../../http/query';
import { ownData, pathParam } from './subject';
import { v1Attribute } from './shapes';
import type { V1Operation } from '../../http/operation';
import { answerJson } from '../../http/json-body';

type Ok<Op extends keyof operations> = operations[Op] extends { responses: { 200: { content: { 'application/json': infer T } } } } ? T : never;

/** Days of values when `limit` is not sent: the last week. (The document caps it at 31.) */
export const DEFAULT_DAYS = 7;

export function attributesHandlers(deps: Deps) {
  return {
    /** A bare array: each visible attribute with `limit` days of values ending at date_max (today by default), null without data. */
    async listUserAttributes(c: V1Operation<'listUserAttributes'>['context'], ctx: V1Operation<'listUserAttributes'>['ctx']): Promise<void> {
      const principal = ownData(c, ctx);
      const { results } = await listAttributeRowsWithValues(databaseOf(ctx), {
        userId: principal.userId,
        visibility: readOrWriteVisibility(principal.scopes),
        filters: { groups: queryNames(c, 'groups'), names: queryNames(c, 'attributes') },
        dateMax: queryDate(c, 'date_max') ?? (await principalToday(databaseOf(ctx), principal, deps.now())),
        days: queryInt(c, 'limit', DEFAULT_DAYS),
      });
      const body: Ok<'listUserAttributes'> = results.map(v1Attribute);
      answerJson(ctx, body);
    },

    /**
     * One attribute's values, one per day from date_max back to its first day of data, newest
     * first, null on days without data (the v1 document, "Units, dates and values"), paged; unknown or hidden attributes have none.
     */
    async listUserAttributeValues(c: V1Operation<'listUserAttributeValues'>['context'], ctx: V1Operation<'listUserAttributeValues'>['ctx']): Promise<void> {
      const principal = ownData(c, ctx);
      const p = paging(c);
      const page = await listDailyValues(await personKnex(deps, principal.userId), {
        userId: principal.userId,
        attribute: pathParam(c, 'attribute'),
        visibility: readOrWriteVisibility(principal.scopes),
        dateMax: queryDate(c, 'date_max') ?? (await principalToday(databaseOf(ctx), principal, deps.now())),
        limit: p.limit,
        offset: p.offset,
      });
      const body: Ok<'listUserAttributeValues'> = envelope(ctx, p, page.count, page.results);
      answerJson(ctx, body);
    },
  };
}

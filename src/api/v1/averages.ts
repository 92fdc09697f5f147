/** Handlers of the v1 `Averages` tag, on the same domain function as version 2's averages. */
import type { operations } from '../../../generated/types/v1';
import { personKnex, type Deps } from '../../deps';
import { listAverages, type AverageObject } from '../../domain/derived/averages';
import { readVisibility } from '../../domain/apps-and-grants/visibility';
import { envelope, paging } from '../../http/paging';
import { queryDate } from '../../http/query';
import { ownData, pathParam } from './subject';
import type { V1Operation } from '../../http/operation';

type Ok<Op extends keyof operations> = operations[Op] extends { responses: { 200: { content: { 'application/json': infer T } } } } ? T : never;

/** Rows fetched per query when a bare array needs every result. */
const BATCH = 500;

export function averagesHandlers(deps: Deps) {
  return {
    /** A bare array: each visible attribute's own newest set (the v1 document's `listUserAverages`: the most recent weekly set for each attribute), every page gathered. */
    async listUserAverages(c: V1Operation<'listUserAverages'>['context'], ctx: V1Operation<'listUserAverages'>['ctx']): Promise<void> {
      const principal = ownData(c, ctx);
      const all: AverageObject[] = [];
      for (let offset = 0; ; offset += BATCH) {
        const { results } = await listAverages(await personKnex(deps, principal.userId), {
          userId: principal.userId,
          visibility: readVisibility(principal.scopes),
          filters: { sets: 'latest-per-attribute' },
          page: { limit: BATCH, offset },
        });
        all.push(...results);
        if (results.length < BATCH) break;
      }
      const body: Ok<'listUserAverages'> = all;
      ctx.body = body;
    },

    /** Every set (current and historical) of one attribute within date_min..date_max, newest first, paged. */
    async listUserAttributeAverages(
      c: V1Operation<'listUserAttributeAverages'>['context'],
      ctx: V1Operation<'listUserAttributeAverages'>['ctx'],
    ): Promise<void> {
      const principal = ownData(c, ctx);
      const p = paging(c);
      const { count, results } = await listAverages(await personKnex(deps, principal.userId), {
        userId: principal.userId,
        visibility: readVisibility(principal.scopes),
        filters: {
          names: [pathParam(c, 'attribute')],
          dateMin: queryDate(c, 'date_min'),
          dateMax: queryDate(c, 'date_max'),
          sets: 'all',
        },
        page: p,
      });
      const body: Ok<'listUserAttributeAverages'> = envelope(ctx, p, count, results);
      ctx.body = body;
    },
  };
}

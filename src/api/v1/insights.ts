/** Handlers of the v1 `Insights` tag, on the same domain function as version 2's insights. */
import type Koa from 'koa';
import type { operations } from '../../../generated/types/v1';
import { personKnex, type Deps } from '../../deps';
import { listInsightEntries } from '../../domain/derived/insights';
import { readVisibility } from '../../domain/apps-and-grants/visibility';
import { envelope, paging } from '../../http/paging';
import { queryDate } from '../../http/query';
import { ownData, pathParam } from './subject';
import { v1Insight } from './shapes';
import type { V1Operation } from '../../http/operation';

type InsightPage = operations['listUserInsights']['responses'][200]['content']['application/json'];

export function insightsHandlers(deps: Deps) {
  /** A page of the caller's insights (about one attribute when named), newest first, in the v1 shape. */
  async function answer(
    c: V1Operation<'listUserInsights'>['context'] | V1Operation<'listUserAttributeInsights'>['context'],
    ctx: Koa.Context,
    attribute?: string,
  ): Promise<void> {
    const principal = ownData(c, ctx);
    const p = paging(c);
    const { count, results } = await listInsightEntries(await personKnex(deps, principal.userId), {
      userId: principal.userId,
      visibility: readVisibility(principal.scopes),
      filters: { dateMin: queryDate(c, 'date_min'), dateMax: queryDate(c, 'date_max'), attribute },
      page: p,
    });
    const body: InsightPage = envelope(ctx, p, count, results.map(v1Insight));
    ctx.body = body;
  }

  return {
    async listUserInsights(c: V1Operation<'listUserInsights'>['context'], ctx: V1Operation<'listUserInsights'>['ctx']): Promise<void> {
      await answer(c, ctx);
    },

    async listUserAttributeInsights(
      c: V1Operation<'listUserAttributeInsights'>['context'],
      ctx: V1Operation<'listUserAttributeInsights'>['ctx'],
    ): Promise<void> {
      await answer(c, ctx, pathParam(c, 'attribute'));
    },
  };
}

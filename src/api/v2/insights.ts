/** Handlers of the v2 `Insights` tag. */
import { principalOf } from '../../http/request-state';
import type { operations } from '../../../generated/types/v2';
import { personKnex, type Deps } from '../../deps';
import { listInsights } from '../../domain/derived/insights';
import { readVisibility } from '../../domain/apps-and-grants/visibility';
import { envelope, paging } from '../../http/paging';
import { queryDate, queryString } from '../../http/query';
import type { V2Operation } from '../../http/operation';

type InsightList = operations['listInsights']['responses'][200]['content']['application/json'];

export function insightsHandlers(deps: Deps) {
  return {
    /** The person's insights about visible attributes, newest first. */
    async listInsights(c: V2Operation<'listInsights'>['context'], ctx: V2Operation<'listInsights'>['ctx']): Promise<void> {
      const principal = principalOf(ctx);
      const page = paging(c);
      const priority = queryString(c, 'priority');
      const { count, results } = await listInsights(await personKnex(deps, principal.userId), {
        userId: principal.userId,
        visibility: readVisibility(principal.scopes),
        filters: {
          dateMin: queryDate(c, 'date_min'),
          dateMax: queryDate(c, 'date_max'),
          priority: priority === undefined ? undefined : Number(priority),
        },
        page,
      });
      const body: InsightList = envelope(ctx, page, count, results);
      ctx.body = body;
    },
  };
}

/** Handlers of the v2 `Averages` tag. */
import { principalOf } from '../../http/request-state';
import type { operations } from '../../../generated/types/v2';
import { personKnex, type Deps } from '../../deps';
import { listAverages } from '../../domain/derived/averages';
import { readVisibility } from '../../domain/apps-and-grants/visibility';
import { envelope, paging } from '../../http/paging';
import { queryDate, queryFlag, queryNames } from '../../http/query';
import type { V2Operation } from '../../http/operation';

type AverageList = operations['listAverages']['responses'][200]['content']['application/json'];

export function averagesHandlers(deps: Deps) {
  return {
    /** The person's newest weekly set (one date), or with include_historical every set, within the date bounds. */
    async listAverages(c: V2Operation<'listAverages'>['context'], ctx: V2Operation<'listAverages'>['ctx']): Promise<void> {
      const principal = principalOf(ctx);
      const page = paging(c);
      const { count, results } = await listAverages(await personKnex(deps, principal.userId), {
        userId: principal.userId,
        visibility: readVisibility(principal.scopes),
        filters: {
          groups: queryNames(c, 'groups'),
          names: queryNames(c, 'attributes'),
          dateMin: queryDate(c, 'date_min'),
          dateMax: queryDate(c, 'date_max'),
          sets: queryFlag(c, 'include_historical') ? 'all' : 'latest-set',
        },
        page,
      });
      const body: AverageList = envelope(ctx, page, count, results);
      ctx.body = body;
    },
  };
}

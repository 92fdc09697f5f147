/** Handlers of the v2 `Correlations` tag. */
import { databaseOf, principalOf } from '../../http/request-state';
import type { operations } from '../../../generated/types/v2';
import type { Deps } from '../../deps';
import { findCorrelationCombo, listCorrelations } from '../../domain/derived/correlations';
import { readVisibility } from '../../domain/apps-and-grants/visibility';
import { notFound } from '../../http/errors';
import { envelope, paging } from '../../http/paging';
import { queryFlag, queryString } from '../../http/query';
import type { V2Operation } from '../../http/operation';
import { answerJson } from '../../http/json-body';

type CorrelationList = operations['listCorrelations']['responses'][200]['content']['application/json'];
type Correlation = operations['getCorrelationCombo']['responses'][200]['content']['application/json'];

export function correlationsHandlers(deps: Deps) {
  return {
    /** The latest week's correlations, strongest first. */
    async listCorrelations(c: V2Operation<'listCorrelations'>['context'], ctx: V2Operation<'listCorrelations'>['ctx']): Promise<void> {
      const principal = principalOf(ctx);
      const page = paging(c);
      const { count, results } = await listCorrelations(databaseOf(ctx), {
        userId: principal.userId,
        visibility: readVisibility(principal.scopes),
        filters: { strong: queryFlag(c, 'strong'), confident: queryFlag(c, 'confident'), attribute: queryString(c, 'attribute') },
        page,
      });
      const body: CorrelationList = envelope(ctx, page, count, results);
      answerJson(ctx, body);
    },

    /** One pair's correlation, whichever order the names come in; 404 with the error body when none. */
    async getCorrelationCombo(c: V2Operation<'getCorrelationCombo'>['context'], ctx: V2Operation<'getCorrelationCombo'>['ctx']): Promise<void> {
      const principal = principalOf(ctx);
      const attribute = queryString(c, 'attribute')!;
      const attribute2 = queryString(c, 'attribute2')!;
      const found = await findCorrelationCombo(deps.db, {
        userId: principal.userId,
        visibility: readVisibility(principal.scopes),
        attribute,
        attribute2,
      });
      if (!found) throw notFound(`No correlation has been found between ${attribute} and ${attribute2}.`);
      const body: Correlation = found;
      answerJson(ctx, body);
    },
  };
}

/** Every handler of the version 2 document, keyed by operationId (one file per tag). */
import type { Deps } from '../../deps';
import type { Handlers, V2Operations } from '../../http/operation';
import { accountHandlers } from './account';
import { simpleTokenHandlers } from '../auth/simple-token';
import { attributesHandlers } from './attributes';
import { writingHandlers } from './writing';
import { averagesHandlers } from './averages';
import { correlationsHandlers } from './correlations';
import { insightsHandlers } from './insights';
import { webhooksHandlers } from './webhooks';

/** A handler for every operation of the document: a missing one is a compile error. */
export function v2Handlers(deps: Deps): Handlers<V2Operations> {
  return {
    ...accountHandlers(deps),
    ...attributesHandlers(deps),
    ...writingHandlers(deps),
    ...simpleTokenHandlers(deps),
    ...averagesHandlers(deps),
    ...correlationsHandlers(deps),
    ...insightsHandlers(deps),
    ...webhooksHandlers(deps),
  };
}

/** Every handler of the version 1 document, keyed by operationId (one file per tag). */
import type { Deps } from '../../deps';
import type { HandlerMap } from '../../http/openapi';
import { simpleTokenHandlers } from '../auth/simple-token';
import { usersHandlers } from './users';
import { attributesHandlers } from './attributes';
import { averagesHandlers } from './averages';
import { insightsHandlers } from './insights';

export function v1Handlers(deps: Deps): HandlerMap {
  return {
    ...simpleTokenHandlers(deps),
    ...usersHandlers(deps),
    ...attributesHandlers(deps),
    ...insightsHandlers(deps),
    ...averagesHandlers(deps),
  };
}

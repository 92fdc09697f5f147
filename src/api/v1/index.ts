/** Every handler of the version 1 document, keyed by operationId (one file per tag). */
import type { Deps } from '../../deps';
import type { Handlers, V1Operations } from '../../http/operation';
import { simpleTokenHandlers } from '../auth/simple-token';
import { usersHandlers } from './users';
import { attributesHandlers } from './attributes';
import { averagesHandlers } from './averages';
import { insightsHandlers } from './insights';

/** A handler for every operation of the document: a missing one is a compile error. */
export function v1Handlers(deps: Deps): Handlers<V1Operations> {
  return {
    ...simpleTokenHandlers(deps),
    ...usersHandlers(deps),
    ...attributesHandlers(deps),
    ...insightsHandlers(deps),
    ...averagesHandlers(deps),
  };
}

/** Every handler of the version 2 document, keyed by operationId (one file per tag). */
import type { Deps } from '../../deps';
import type { HandlerMap } from '../../http/openapi';
import { accountHandlers } from './account';
import { attributesHandlers } from './attributes';

export function v2Handlers(deps: Deps): HandlerMap {
  return { ...accountHandlers(deps), ...attributesHandlers(deps) };
}

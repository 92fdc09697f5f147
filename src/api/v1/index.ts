/** Every handler of the version 1 document, keyed by operationId (one file per tag). */
import type { Deps } from '../../deps';
import type { HandlerMap } from '../../http/openapi';

export function v1Handlers(_deps: Deps): HandlerMap {
  return {};
}

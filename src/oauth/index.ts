/** Every handler of the OAuth2 document, keyed by operationId. */
import type { Deps } from '../deps';
import type { HandlerMap } from '../http/openapi';

export function oauthHandlers(_deps: Deps): HandlerMap {
  return {};
}

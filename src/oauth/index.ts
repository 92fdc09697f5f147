/**
 * Every handler of the OAuth2 document, keyed by operationId. The document answers its own
 * validation and security failures: parameters are checked by the endpoints themselves, so that
 * problems come back as OAuth errors (redirects, error pages, `{error, error_description}`).
 */
import type { Deps } from '../deps';
import type { HandlerMap, OperationHandler } from '../http/backends';
import { authorizeHandlers, consentWithoutSession } from './authorize';
import type { Interactions } from './interactions';
import { metadataHandlers } from './metadata';
import { revocationHandlers } from './revocation';
import type { Handlers, OAuthOperations } from '../http/operation';
import { PARAMETER_ENDPOINTS, tokenHandlers, tokenRequestParseErrors } from './token-endpoint';

export function oauthHandlers(deps: Deps, ui: Interactions): HandlerMap {
  const operations: Handlers<OAuthOperations> = {
    ...authorizeHandlers(deps, ui),
    ...tokenHandlers(deps),
    ...revocationHandlers(deps),
    ...metadataHandlers(),
  };
  /** A parameter the document's schema refused (a repeated one): the endpoint answers it as OAuth says. */
  const validationFail: OperationHandler = (c, ctx) => (operations[c.operation.operationId as keyof OAuthOperations] as OperationHandler)(c, ctx);
  return { ...operations, validationFail, unauthorizedHandler: consentWithoutSession(ui) };
}

export { PARAMETER_ENDPOINTS, tokenRequestParseErrors };

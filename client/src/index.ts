/**
 * Daybook's typed API client (@daybook/client): version 2 (`createDaybookClient`), its webhook
 * management (`createWebhooksClient`), the OAuth2 endpoints (`createOAuthClient`, with PKCE) and
 * version 1 (`createV1Client`), built with openapi-fetch on the types generated from the OpenAPI
 * documents. Every call answers an ApiResult (a value, never a thrown HTTP error) with the typed
 * body or error body, the status and the rate-limit headers; 429, 503 and network errors are
 * retried within a budget (retry.ts). `verifyWebhook` checks a received webhook's signature.
 */
export {
  createDaybookClient,
  type ApiError,
  type Credentials,
  type DaybookClient,
  type DaybookClientOptions,
  type ItemsOf,
  type QueryOf,
  type ResultOf,
  type Schemas,
  type TidyPaged,
  type V2Result,
} from './v2';
export { createWebhooksClient, type WebhooksClient, type WebhooksClientOptions } from './webhook-endpoints';
export {
  createOAuthClient,
  isOAuthError,
  type AuthorizationServerMetadata,
  type AuthorizeUrlInput,
  type OAuthClient,
  type OAuthClientOptions,
  type OAuthEndpointError,
  type OAuthError,
  type RevocationResult,
  type TokenResponse,
  type TokenResult,
} from './oauth';
export { codeChallengeOf, createPkce, createState, type Pkce } from './pkce';
export { createV1Client, SELF, type V1Client, type V1ClientOptions, type V1Error, type V1QueryOf, type V1Result } from './v1';
export { all, pages, queryOfNext, type ListCall, type PagedList } from './paging';
export { rateLimitOf, type ApiFailure, type ApiResult, type ApiSuccess, type RateLimit } from './result';
export { retryAfterMs, type RetryOptions } from './retry';
export type { Authorization, TransportOptions, WriteOptions } from './transport';
export { operationMethods, type ClientFactory, type OperationMethod } from './operations';
export { verifyWebhook, type VerifyOptions, type WebhookEvent, type WebhookVerification } from './webhooks';

/**
 * Daybook's typed API client: version 2 (`createDaybookClient`), the OAuth2 token endpoint
 * (`createOAuthClient`) and version 1 (`createV1Client`), built with openapi-fetch on the types
 * generated from the OpenAPI documents. Every call answers an ApiResult (a value, never a thrown
 * HTTP error) with the typed body or error body, the status and the rate-limit headers.
 * `verifyWebhook` checks a received webhook's signature.
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
export {
  createOAuthClient,
  isOAuthError,
  type OAuthClient,
  type OAuthClientOptions,
  type OAuthEndpointError,
  type OAuthError,
  type TokenResponse,
  type TokenResult,
} from './oauth';
export { createV1Client, SELF, type V1Client, type V1ClientOptions, type V1Error, type V1QueryOf, type V1Result } from './v1';
export { all, pages, queryOfNext, type ListCall, type PagedList } from './paging';
export { rateLimitOf, type ApiFailure, type ApiResult, type ApiSuccess, type RateLimit } from './result';
export type { Authorization } from './transport';
export { verifyWebhook, type VerifyOptions, type WebhookEvent, type WebhookVerification } from './webhooks';

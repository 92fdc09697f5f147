/**
 * Typed client of Daybook API version 2, built with openapi-fetch on the types openapi-typescript
 * generates from the v2 document (generated/types/v2.ts): one method per operation, each taking
 * the operation's own query or body type and answering an ApiResult of its own response types.
 *
 * With an OAuth2 access token and its refresh token (and the client credentials), a request the
 * service refuses with `invalid_token` (expired or revoked access token) refreshes the pair once
 * and is sent again; `onTokens` hears of every new pair so it can be stored. Every write carries an
 * `Idempotency-Key` (transport.ts), so a write that met a 429, a 503 or a network error is retried
 * safely (retry.ts).
 */
import createClient from 'openapi-fetch';
import type { components, operations, paths } from './generated/v2';
import { createOAuthClient, type OAuthClient, type TokenResponse, type TokenResult } from './oauth';
import { all, pages, type ListCall, type PagedList } from './paging';
import { toResult, type ApiResult, type ApiSuccess, type ApiFailure, type FetchOutcome } from './result';
import {
  credentialsMiddleware,
  FORM_HEADERS,
  formBody,
  idempotencyHeaders,
  transportFetch,
  trimBaseUrl,
  type Authorization,
  type TransportOptions,
  type WriteOptions,
} from './transport';

/** The API's error body: `{detail}`, plus `errors` for invalid requests. */
export type ApiError = components['schemas']['Error'];
export type Schemas = components['schemas'];

type OperationId = keyof operations;
type JsonOf<R> = R extends { content: { 'application/json': infer B } } ? B : never;
/** The query parameters of an operation. */
export type QueryOf<K extends OperationId> = NonNullable<operations[K]['parameters']['query']>;
/**
 * A paged list with `results` typed by its items: the generated type intersects the envelope's
 * `results: unknown[]` with the list's own, which array methods would see as `unknown`.
 */
export type TidyPaged<T> = T extends { count: number; results: infer R }
  ? Omit<T, 'results'> & { results: Array<R extends ReadonlyArray<unknown> ? R[number] : never> }
  : T;
/** The success response of an operation: its 200 (a batch's 200 and 202 share one body), else its 201 or 202. */
type SuccessResponse<R> = R extends { 200: infer A } ? A : R extends { 201: infer B } ? B : R extends { 202: infer C } ? C : never;
/** The JSON body an operation answers on success (undefined for a 204). */
export type ResultOf<K extends OperationId> = operations[K]['responses'] extends { 204: unknown }
  ? undefined
  : TidyPaged<JsonOf<SuccessResponse<operations[K]['responses']>>>;
/** The JSON array body of a batch write. */
export type ItemsOf<K extends 'updateAttributeValues' | 'incrementAttributeValues' | 'acquireAttributes' | 'releaseAttributes' | 'createAttributes'> =
  operations[K]['requestBody']['content']['application/json'];
export type V2Result<K extends OperationId> = ApiResult<ResultOf<K>, ApiError>;

export type Credentials =
  | { accessToken: string; refreshToken?: string }
  /** Read-only; never expires. */
  | { simpleToken: string };

export interface DaybookClientOptions extends TransportOptions {
  /** Omit only for `simpleToken()`, which needs none. */
  credentials?: Credentials;
  /** The OAuth2 client the tokens were issued to: needed to refresh them. */
  oauth?: { clientId: string; clientSecret?: string };
  /** Called with every new token pair (store it: the previous pair no longer works). */
  onTokens?: (tokens: TokenResponse) => void | Promise<void>;
}

/** Flags are sent as `true`/`false` (the document also accepts 1/0). */
type Flag = boolean;

export interface DaybookClient {
  templates(query?: QueryOf<'listAttributeTemplates'>): Promise<V2Result<'listAttributeTemplates'>>;
  attributes(query?: QueryOf<'listAttributes'>): Promise<V2Result<'listAttributes'>>;
  attributesWithValues(query?: QueryOf<'listAttributesWithValues'>): Promise<V2Result<'listAttributesWithValues'>>;
  values(query: QueryOf<'listAttributeValues'>): Promise<V2Result<'listAttributeValues'>>;
  owned(query?: QueryOf<'listOwnedAttributes'>): Promise<V2Result<'listOwnedAttributes'>>;
  update(items: ItemsOf<'updateAttributeValues'>, options?: WriteOptions): Promise<V2Result<'updateAttributeValues'>>;
  increment(items: ItemsOf<'incrementAttributeValues'>, options?: WriteOptions): Promise<V2Result<'incrementAttributeValues'>>;
  acquire(items: ItemsOf<'acquireAttributes'>, options?: WriteOptions & { successObjects?: Flag }): Promise<V2Result<'acquireAttributes'>>;
  release(items: ItemsOf<'releaseAttributes'>, options?: WriteOptions): Promise<V2Result<'releaseAttributes'>>;
  create(items: ItemsOf<'createAttributes'>, options?: WriteOptions & { successObjects?: Flag }): Promise<V2Result<'createAttributes'>>;
  correlations(query?: QueryOf<'listCorrelations'>): Promise<V2Result<'listCorrelations'>>;
  correlationCombo(query: QueryOf<'getCorrelationCombo'>): Promise<V2Result<'getCorrelationCombo'>>;
  averages(query?: QueryOf<'listAverages'>): Promise<V2Result<'listAverages'>>;
  insights(query?: QueryOf<'listInsights'>): Promise<V2Result<'listInsights'>>;
  profile(): Promise<V2Result<'getProfile'>>;
  /** The person's simple token from their username and password (no credentials needed). */
  simpleToken(credentials: Schemas['SimpleTokenCredentials']): Promise<V2Result<'createSimpleToken'>>;

  /** Each page of a list, following `next`: `for await (const page of client.pages(client.values, {attribute: 'steps'}))`. */
  pages<Q, T>(list: ListCall<Q, T, ApiError>, query: Q): AsyncGenerator<ApiResult<PagedList<T>, ApiError>, void, undefined>;
  /** Every result of a list over all its pages, or the first failure. */
  all<Q, T>(list: ListCall<Q, T, ApiError>, query: Q): Promise<ApiSuccess<T[]> | ApiFailure<ApiError>>;

  /** The OAuth2 tokens in use now (after any refresh). */
  tokens(): { accessToken: string; refreshToken?: string } | undefined;
  /** Refreshes the token pair now. */
  refreshTokens(): Promise<TokenResult>;
}

function fallbackError(status: number, text: string): ApiError {
  return { detail: text || `Daybook answered HTTP ${status} without an error body.` };
}

/** Creates a v2 client. */
export function createDaybookClient(options: DaybookClientOptions): DaybookClient {
  const baseUrl = trimBaseUrl(options.baseUrl);
  let credentials = options.credentials;
  const authorization = (): Authorization | undefined =>
    credentials === undefined ? undefined : 'simpleToken' in credentials ? { simpleToken: credentials.simpleToken } : { bearer: credentials.accessToken };

  const api = createClient<paths>({ baseUrl, fetch: transportFetch(options) });
  api.use(credentialsMiddleware(authorization));
  const oauth: OAuthClient | undefined = options.oauth
    ? createOAuthClient({ baseUrl, ...options.oauth, fetch: options.fetch, retry: options.retry })
    : undefined;

  async function refreshTokens(): Promise<TokenResult> {
    if (!oauth || !credentials || !('accessToken' in credentials) || !credentials.refreshToken) {
      throw new Error('Refreshing needs OAuth2 credentials with a refresh token and the `oauth` client options.');
    }
    const result = await oauth.refresh(credentials.refreshToken);
    if (result.ok) {
      credentials = { accessToken: result.data.access_token, refreshToken: result.data.refresh_token };
      await options.onTokens?.(result.data);
    }
    return result;
  }

  // Concurrent requests that meet an expired token share one refresh.
  let refreshing: Promise<boolean> | undefined;
  function refreshOnce(): Promise<boolean> {
    refreshing ??= refreshTokens()
      .then((result) => result.ok)
      .finally(() => {
        refreshing = undefined;
      });
    return refreshing;
  }

  const canRefresh = () => oauth !== undefined && credentials !== undefined && 'refreshToken' in credentials && Boolean(credentials.refreshToken);
  /** A Bearer token the service no longer accepts (RFC 6750 `invalid_token`). */
  const tokenRejected = (response: Response) => response.status === 401 && /invalid_token/.test(response.headers.get('WWW-Authenticate') ?? '');

  /**
   * Sends one call (again after a refresh if the token was refused). The answer is typed by the
   * operation's generated response types (openapi-fetch's own inference drops properties whose
   * type is `null`, such as a correlation's `description`).
   */
  async function run<K extends OperationId>(call: () => Promise<FetchOutcome<unknown, unknown>>): Promise<V2Result<K>> {
    // The credentials this call goes out with (read before it is sent: a refresh by another call
    // may end while this one is on its way).
    const used = authorization();
    let outcome = await call();
    if (tokenRejected(outcome.response) && canRefresh()) {
      // Another request may have refreshed already (the credentials changed since this call was
      // sent, or a refresh is under way); otherwise refresh now.
      const refreshed = JSON.stringify(used) !== JSON.stringify(authorization()) || (await refreshOnce());
      if (refreshed) outcome = await call();
    }
    return toResult(outcome as FetchOutcome<ResultOf<K>, ApiError>, fallbackError);
  }

  const client: DaybookClient = {
    templates: (query = {}) => run<'listAttributeTemplates'>(() => api.GET('/api/2/attributes/templates/', { params: { query } })),
    attributes: (query = {}) => run<'listAttributes'>(() => api.GET('/api/2/attributes/', { params: { query } })),
    attributesWithValues: (query = {}) => run<'listAttributesWithValues'>(() => api.GET('/api/2/attributes/with-values/', { params: { query } })),
    values: (query) => run<'listAttributeValues'>(() => api.GET('/api/2/attributes/values/', { params: { query } })),
    owned: (query = {}) => run<'listOwnedAttributes'>(() => api.GET('/api/2/attributes/owned/', { params: { query } })),
    // The key is made once per call, outside the closure: a resend after a refresh or a retry carries the same one.
    update: (items, write) => {
      const headers = idempotencyHeaders(write);
      return run<'updateAttributeValues'>(() => api.POST('/api/2/attributes/update/', { body: items, headers }));
    },
    increment: (items, write) => {
      const headers = idempotencyHeaders(write);
      return run<'incrementAttributeValues'>(() => api.POST('/api/2/attributes/increment/', { body: items, headers }));
    },
    acquire: (items, write = {}) => {
      const headers = idempotencyHeaders(write);
      const query = write.successObjects === undefined ? {} : { success_objects: String(write.successObjects) };
      return run<'acquireAttributes'>(() => api.POST('/api/2/attributes/acquire/', { body: items, headers, params: { query } }));
    },
    release: (items, write) => {
      const headers = idempotencyHeaders(write);
      return run<'releaseAttributes'>(() => api.POST('/api/2/attributes/release/', { body: items, headers }));
    },
    create: (items, write = {}) => {
      const headers = idempotencyHeaders(write);
      const query = write.successObjects === undefined ? {} : { success_objects: String(write.successObjects) };
      return run<'createAttributes'>(() => api.POST('/api/2/attributes/create/', { body: items, headers, params: { query } }));
    },
    correlations: (query = {}) => run<'listCorrelations'>(() => api.GET('/api/2/correlations/', { params: { query } })),
    correlationCombo: (query) => run<'getCorrelationCombo'>(() => api.GET('/api/2/correlations/combo/', { params: { query } })),
    averages: (query = {}) => run<'listAverages'>(() => api.GET('/api/2/averages/', { params: { query } })),
    insights: (query = {}) => run<'listInsights'>(() => api.GET('/api/2/insights/', { params: { query } })),
    profile: () => run<'getProfile'>(() => api.GET('/api/2/accounts/profile/')),
    simpleToken: (body) => run<'createSimpleToken'>(() => api.POST('/api/2/auth/simple-token/', { body, bodySerializer: formBody, headers: FORM_HEADERS })),
    pages: (list, query) => pages(list, query),
    all: (list, query) => all(list, query),
    tokens: () => (credentials && 'accessToken' in credentials ? { ...credentials } : undefined),
    refreshTokens,
  };
  return client;
}

/**
 * Typed client of Daybook API version 1 (the older, read-only interface), on the types generated
 * from the v1 document. Paths take a username or `$self` (the default), sent as written.
 */
import createClient from 'openapi-fetch';
import type { components, operations, paths } from './generated/v1';
import type { TidyPaged } from './v2';
import { toResult, type ApiResult, type FetchOutcome } from './result';
import {
  credentialsMiddleware,
  FORM_HEADERS,
  formBody,
  pathWithParams,
  transportFetch,
  trimBaseUrl,
  type Authorization,
  type TransportOptions,
} from './transport';

export type V1Error = components['schemas']['Error'];
type OperationId = keyof operations;
type JsonOf<R> = R extends { content: { 'application/json': infer B } } ? B : never;
export type V1QueryOf<K extends OperationId> = NonNullable<operations[K]['parameters']['query']>;
type V1Body<K extends OperationId> = TidyPaged<JsonOf<operations[K]['responses'][200]>>;
export type V1Result<K extends OperationId> = ApiResult<V1Body<K>, V1Error>;

export interface V1ClientOptions extends TransportOptions {
  /** A simple token (`Token`) or an OAuth2 access token with v1 `read` scope (`Bearer`); none for `simpleToken()`. */
  auth?: Authorization;
}

/** `$self`: the person the credentials belong to. */
export const SELF = '$self';

export interface V1Client {
  profile(username?: string): Promise<V1Result<'getUserProfile'>>;
  today(username?: string): Promise<V1Result<'getUserToday'>>;
  attributes(query?: V1QueryOf<'listUserAttributes'>, username?: string): Promise<V1Result<'listUserAttributes'>>;
  attributeValues(attribute: string, query?: V1QueryOf<'listUserAttributeValues'>, username?: string): Promise<V1Result<'listUserAttributeValues'>>;
  insights(query?: V1QueryOf<'listUserInsights'>, username?: string): Promise<V1Result<'listUserInsights'>>;
  attributeInsights(attribute: string, query?: V1QueryOf<'listUserAttributeInsights'>, username?: string): Promise<V1Result<'listUserAttributeInsights'>>;
  averages(username?: string): Promise<V1Result<'listUserAverages'>>;
  attributeAverages(attribute: string, query?: V1QueryOf<'listUserAttributeAverages'>, username?: string): Promise<V1Result<'listUserAttributeAverages'>>;
  /** The person's simple token from their username and password. */
  simpleToken(credentials: components['schemas']['SimpleTokenCredentials']): Promise<V1Result<'createSimpleToken'>>;
}

function fallbackError(status: number, text: string): V1Error {
  return { detail: text || `Daybook answered HTTP ${status} without an error body.` };
}

export function createV1Client(options: V1ClientOptions): V1Client {
  const api = createClient<paths>({ baseUrl: trimBaseUrl(options.baseUrl), fetch: transportFetch(options), pathSerializer: pathWithParams });
  api.use(credentialsMiddleware(() => options.auth));
  const run = async <K extends OperationId>(call: () => Promise<FetchOutcome<unknown, unknown>>): Promise<V1Result<K>> =>
    toResult((await call()) as FetchOutcome<V1Body<K>, V1Error>, fallbackError);

  return {
    profile: (username = SELF) => run<'getUserProfile'>(() => api.GET('/api/1/users/{username}/profile/', { params: { path: { username } } })),
    today: (username = SELF) => run<'getUserToday'>(() => api.GET('/api/1/users/{username}/today/', { params: { path: { username } } })),
    attributes: (query = {}, username = SELF) =>
      run<'listUserAttributes'>(() => api.GET('/api/1/users/{username}/attributes/', { params: { path: { username }, query } })),
    attributeValues: (attribute, query = {}, username = SELF) =>
      run<'listUserAttributeValues'>(() => api.GET('/api/1/users/{username}/attributes/{attribute}/', { params: { path: { username, attribute }, query } })),
    insights: (query = {}, username = SELF) =>
      run<'listUserInsights'>(() => api.GET('/api/1/users/{username}/insights/', { params: { path: { username }, query } })),
    attributeInsights: (attribute, query = {}, username = SELF) =>
      run<'listUserAttributeInsights'>(() =>
        api.GET('/api/1/users/{username}/insights/attribute/{attribute}/', { params: { path: { username, attribute }, query } }),
      ),
    averages: (username = SELF) => run<'listUserAverages'>(() => api.GET('/api/1/users/{username}/averages/', { params: { path: { username } } })),
    attributeAverages: (attribute, query = {}, username = SELF) =>
      run<'listUserAttributeAverages'>(() =>
        api.GET('/api/1/users/{username}/averages/attribute/{attribute}/', { params: { path: { username, attribute }, query } }),
      ),
    simpleToken: (body) => run<'createSimpleToken'>(() => api.POST('/api/1/auth/simple-token/', { body, bodySerializer: formBody, headers: FORM_HEADERS })),
  };
}

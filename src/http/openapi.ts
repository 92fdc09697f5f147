/**
 * One openapi-backend instance per document (v2, v1, oauth), built from the bundled documents in
 * generated/openapi/. It routes a request to the handler named by its operationId, after checking
 * the media type, parsing the body, running the document's security requirements and validating
 * the request against the document (ajv). Built in strict mode with trailing slashes significant.
 */
import fs from 'node:fs';
import path from 'node:path';
import type Koa from 'koa';
import addFormats from 'ajv-formats';
import {
  OpenAPIBackend,
  OpenAPIValidator,
  type AjvCustomizer,
  type Context as ApiContext,
  type Document,
  type Operation,
  type Request as ApiRequest,
} from 'openapi-backend';
import { BUNDLES_DIR } from '../paths';
import { badRequest, forbidden, HttpError, methodNotAllowed, type FieldProblem } from './errors';
import { credentialsMissing } from './auth';
import { appCredentialsNeeded } from './app-credentials';
import { parseBody } from './body';
import type { Principal } from '../domain/apps-and-grants/principal';

export type ApiName = 'v2' | 'v1' | 'oauth';

/**
 * A handler answers by setting ctx.status / ctx.body (and headers); it may throw HttpError. Handlers
 * are written against their operation's types (src/http/operation.ts); the backend calls each with
 * the operation it is registered for, so any of them is accepted here (a method type, compared
 * bivariantly).
 */
export type OperationHandler = { handle(c: ApiContext, ctx: Koa.Context): Promise<void> | void }['handle'];
export type HandlerMap = Record<string, OperationHandler>;

export function loadBundle(name: ApiName): Document {
  return JSON.parse(fs.readFileSync(path.join(BUNDLES_DIR, `${name}.json`), 'utf8')) as Document;
}

/**
 * openapi-backend checks a document against the OpenAPI 3.0 schema, which rejects 3.1 features
 * our documents use (type arrays for nullable fields). The documents are linted as 3.1 by Redocly
 * when they are built, so that check is skipped here; routing and ajv validation are unchanged.
 */
export class OpenApi31Backend extends OpenAPIBackend {
  override validateDefinition(): Document {
    return this.document;
  }
}

/** Turns ajv's errors into the `errors` list of the error body. */
function fieldProblems(c: ApiContext): FieldProblem[] {
  return (c.validation.errors ?? []).map((error) => {
    const pointer = error.instancePath.split('/').filter(Boolean);
    const where = pointer[0];
    if (where === 'query' || where === 'path' || where === 'header') {
      const name = (pointer[1] ?? (error.params as { missingProperty?: string }).missingProperty ?? '').toString();
      return { in: where, name, message: error.message ?? 'is invalid' };
    }
    if (error.keyword === 'required' && pointer.length <= 1 && !where) {
      const missing = (error.params as { missingProperty?: string }).missingProperty ?? '';
      return { in: 'query', name: missing, message: 'is required' };
    }
    // Body pointers start at ajv's `requestBody` wrapper; a missing property is named itself.
    const inBody = pointer[0] === 'requestBody' ? pointer.slice(1) : pointer;
    const missing = error.keyword === 'required' ? (error.params as { missingProperty?: string }).missingProperty : undefined;
    if (missing) return { in: 'body', name: '/' + [...inBody, missing].join('/'), message: 'is required' };
    return { in: 'body', name: '/' + inBody.join('/'), message: error.message ?? 'is invalid' };
  });
}

function validationFailed(c: ApiContext): never {
  const problems = fieldProblems(c);
  const first = problems[0];
  const summary = first
    ? `Invalid ${first.in === 'body' ? 'request body' : `${first.in} parameter`} ${first.in === 'body' ? first.name : first.name}: ${first.message}.`
    : 'The request is invalid.';
  throw badRequest(
    problems.length > 1 ? `${summary} (${problems.length - 1} more problem${problems.length > 2 ? 's' : ''} listed in errors.)` : summary,
    problems,
  );
}

/** Each security scheme of the documents is satisfied by one kind of principal (`authorized`). */
const SCHEME_KINDS: Record<string, Principal['kind']> = { OAuth2: 'oauth', SimpleToken: 'simple', Session: 'session' };

function unauthorizedHandler(c: ApiContext, ctx: Koa.Context): never {
  const principal = ctx.state.principal as Principal | undefined;
  const problem = ctx.state.authProblem as HttpError | undefined;
  if (problem) throw problem;
  const schemes = (c.operation.security ?? []).flatMap((requirement) => Object.keys(requirement));
  // Operations about the app itself take only its client credentials, never a person's token.
  if (schemes.length === 1 && schemes[0] === 'ClientCredentials') throw appCredentialsNeeded();
  if (!principal) throw credentialsMissing();
  // Valid credentials of a kind this operation does not take: only OAuth2 clients write.
  const accepts = (c.operation.security ?? []).flatMap((requirement) => Object.keys(requirement));
  if (accepts.length === 1 && accepts[0] === 'OAuth2') {
    throw forbidden('Writing is for OAuth2 clients only: use an OAuth2 access token (Authorization: Bearer).');
  }
  throw forbidden('These credentials cannot be used for this operation.');
}

export interface Backend {
  name: ApiName;
  api: OpenAPIBackend;
  /** operationId -> names of its query parameters (others are ignored, as clients expect). */
  queryNames: Map<string, Set<string>>;
  /** What answers each operation, and the document's answers to failed security and validation. */
  answers: Answers;
}

interface Answers {
  operations: HandlerMap;
  unauthorized: OperationHandler;
  invalid: OperationHandler;
}

/**
 * Builds and initialises the backend of one document with its handlers. Every operation must have
 * one (the handler maps are typed so; this also refuses to start without one, never a 501 later).
 */
export async function createBackend(name: ApiName, handlers: HandlerMap): Promise<Backend> {
  const customizeAjv: AjvCustomizer = (ajv) => {
    addFormats(ajv, { mode: 'full' });
    return ajv;
  };
  const api = new OpenApi31Backend({
    definition: loadBundle(name),
    apiRoot: '/',
    strict: true,
    // The validator is made below, after init, so that only request validators are compiled up front.
    validate: false,
    ignoreTrailingSlashes: false,
    coerceTypes: true,
    customizeAjv,
  });
  await api.init();
  // The document does not change after init: list its operations once. openapi-backend's router
  // rebuilds that list (with lodash, for every operation) on each match, several times a request.
  const operations = api.router.getOperations();
  api.router.getOperations = () => operations;
  // Requests are validated; responses are not in production, so their validators (which took
  // most of the start-up time and memory of the validator) are compiled only if something asks
  // for them, as the contract tests' response checks do.
  api.validator = new OpenAPIValidator({
    definition: api.definition,
    router: api.router,
    ajvOpts: api.ajvOpts,
    customizeAjv,
    coerceTypes: true,
    lazyCompileValidators: true,
  });
  api.validator.preCompileRequestValidators();
  api.validate = true;
  const unhandled = api
    .getOperations()
    .map((op) => op.operationId as string)
    .filter((id) => !(id in handlers));
  if (unhandled.length > 0) throw new Error(`The ${name} document has operations without a handler: ${unhandled.join(', ')}.`);
  // Strict mode makes registering an unknown operationId throw: a handler without an operation
  // is a start-up error. (Requests are answered by `serve`, from `answers`.)
  // A document may answer its own validation and security failures (the OAuth endpoints answer
  // RFC 6749 errors and error pages, never the API's error body); the others use the defaults.
  const answers: Answers = {
    operations: handlers,
    unauthorized: handlers.unauthorizedHandler ?? unauthorizedHandler,
    invalid: handlers.validationFail ?? validationFailed,
  };
  api.register({ ...handlers, validationFail: answers.invalid, unauthorizedHandler: answers.unauthorized });
  const queryNames = new Map<string, Set<string>>();
  for (const op of api.getOperations()) {
    const params = (op.parameters ?? []) as Array<{ in: string; name: string }>;
    queryNames.set(op.operationId as string, new Set(params.filter((p) => p.in === 'query').map((p) => p.name)));
  }
  return { name, api, queryNames, answers };
}

/** Which document serves a path. */
export function apiFor(pathname: string): ApiName | undefined {
  if (pathname.startsWith('/api/2/')) return 'v2';
  if (pathname.startsWith('/api/1/')) return 'v1';
  if (pathname.startsWith('/oauth2/')) return 'oauth';
  return undefined;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** The operation of the document for a method (lower case; HEAD is GET) and path, if any. */
function findOperation(backend: Backend, method: string, pathname: string): Operation | undefined {
  const lookup = method === 'head' ? 'get' : method;
  return backend.api.matchOperation({ method: lookup, path: pathname, headers: {}, query: {} }) ?? undefined;
}

/** Finds the operation for a request, or throws 405 (path known, method not) or 404. */
function matchOperation(backend: Backend, method: string, pathname: string): Operation {
  const operation = findOperation(backend, method, pathname);
  if (operation) return operation;
  const allowed = METHODS.filter((m) => backend.api.matchOperation({ method: m, path: pathname, headers: {}, query: {} }));
  if (allowed.length > 0) {
    const allow = allowed.map((m) => m.toUpperCase());
    if (allow.includes('GET')) allow.push('HEAD');
    throw methodNotAllowed(method.toUpperCase(), pathname, allow);
  }
  throw new HttpError(404, `There is no ${backend.name === 'oauth' ? 'OAuth2' : `API version ${backend.name.slice(1)}`} endpoint at ${pathname}.`);
}

/**
 * Path values that are not valid percent-encoding, and query and path values holding U+0000,
 * which PostgreSQL text cannot hold (no stored name can match one). Found by the fuzz suite: both
 * were answered 500 (a URIError in the router, an "invalid byte sequence" error from PostgreSQL).
 */
function parameterProblems(ctx: Koa.Context, operation: Operation, declared: Set<string>): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const message = 'must not contain the NUL character (U+0000)';
  const template = operation.path.split('/');
  ctx.path.split('/').forEach((segment, index) => {
    const param = /^\{(.+)\}$/.exec(template[index] ?? '');
    if (!param) return;
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      problems.push({ in: 'path', name: param[1], message: 'is not valid percent-encoded UTF-8' });
      return;
    }
    if (decoded.includes('\u0000')) problems.push({ in: 'path', name: param[1], message });
  });
  for (const [name, value] of Object.entries(ctx.query)) {
    if (declared.has(name) && [value ?? ''].flat().some((v) => v.includes('\u0000'))) problems.push({ in: 'query', name, message });
  }
  return problems;
}

/** The route label of a request that matched no API operation and no page. */
export const UNMATCHED_ROUTE = 'unmatched';

/**
 * The one place that records which route a request took, as `ctx.state.route`: the path template
 * of the matched API operation (`/api/1/users/{username}/profile/`), else the template of the
 * page or meta route @koa/router matched (`/docs/:name/`), else `unmatched`. Never the raw URL,
 * which carries user and attribute names (metrics label cardinality, and what a log may hold).
 * Mounted before the routers, the rate limit and authentication, so that an API request is matched
 * once (`dispatch` reuses `ctx.state.operation`) and a request refused early (401, 429) still has
 * its template.
 */
export function recordRoute(backends: Record<ApiName, Backend>): Koa.Middleware {
  return async (ctx, next) => {
    const name = apiFor(ctx.path);
    if (name) ctx.state.operation = findOperation(backends[name], ctx.method.toLowerCase(), ctx.path);
    try {
      await next();
    } finally {
      const page = (ctx as { _matchedRoute?: unknown })._matchedRoute; // set by @koa/router on a match
      ctx.state.route = (ctx.state.operation as Operation | undefined)?.path ?? (typeof page === 'string' ? page : UNMATCHED_ROUTE);
    }
  };
}

/** Koa middleware that hands /api/2/, /api/1/ and /oauth2/ requests to their backend. */
export function dispatch(backends: Record<ApiName, Backend>): Koa.Middleware {
  return async (ctx, next) => {
    const name = apiFor(ctx.path);
    if (!name) return next();
    const backend = backends[name];
    const method = ctx.method.toLowerCase();
    const operation = (ctx.state.operation as Operation | undefined) ?? matchOperation(backend, method, ctx.path);
    const requestBody = operation.requestBody as { content?: Record<string, unknown> } | undefined;
    // Parsed once: a request served again (its remembered credentials changed; http/rate-limit.ts) keeps it.
    if (requestBody?.content && !ctx.state.bodyParsed) {
      await parseBody(ctx, Object.keys(requestBody.content));
      ctx.state.bodyParsed = true;
    }
    const declared = backend.queryNames.get(operation.operationId as string) ?? new Set();
    if (name !== 'oauth') {
      const problems = parameterProblems(ctx, operation, declared);
      if (problems.length > 0) throw badRequest(`Invalid ${problems[0].in} parameter ${problems[0].name}: ${problems[0].message}.`, problems);
    }
    const query = Object.fromEntries(Object.entries(ctx.query).filter(([key]) => declared.has(key)));
    // openapi-backend takes a body that is not an object for JSON text and parses it once more; ours
    // is parsed already, so a body that is a JSON string spelling an array ("[…]") was validated as
    // that array and handed to the handler as a string (found by the fuzz suite: a 500). Written
    // back as JSON text, it parses to itself.
    const body = ctx.request.body as unknown;
    await serve(
      backend,
      operation,
      {
        method: method === 'head' ? 'get' : method,
        path: ctx.path,
        query: query as Record<string, string | string[]>,
        headers: ctx.headers as Record<string, string | string[]>,
        body: body !== null && body !== undefined && typeof body !== 'object' ? JSON.stringify(body) : body,
      },
      ctx,
    );
  };
}

/**
 * Whether one security scheme is satisfied: a person's credentials by their kind; an app's own
 * client credentials (the webhook operations) when http/auth.ts authenticated the app; the token
 * endpoint's HTTP Basic always (its grant handlers check client authentication themselves).
 */
function schemePasses(scheme: string, kind: Principal['kind'] | undefined, ctx: Koa.Context): boolean {
  if (scheme === 'ClientBasic') return true;
  if (scheme === 'ClientCredentials') return ctx.state.app !== undefined;
  return SCHEME_KINDS[scheme] !== undefined && SCHEME_KINDS[scheme] === kind;
}

/**
 * Whether a principal satisfies one of the operation's security requirements (each requirement is
 * a set of schemes that must all pass; an empty requirement `{}` makes credentials optional).
 */
function authorized(operation: Operation, ctx: Koa.Context): boolean {
  const requirements = operation.security ?? [];
  if (requirements.length === 0) return true;
  const kind = (ctx.state.principal as Principal | undefined)?.kind;
  return requirements.some((requirement) => Object.keys(requirement).every((scheme) => schemePasses(scheme, kind, ctx)));
}

/**
 * Answers a request for an operation already matched (by `recordRoute`, once per request): the
 * security requirements, then ajv's validation of the request, then the handler; the same order
 * and the same handlers as openapi-backend's `handleRequest`, which would parse the request four
 * times and match its operation once more (about a tenth of a cheap read's CPU in the bench's
 * profiles; docs/request-path.md). Each scheme is decided by `schemePasses`.
 */
async function serve(backend: Backend, operation: Operation, req: ApiRequest, ctx: Koa.Context): Promise<void> {
  const { api, answers } = backend;
  const c = { api, operation } as ApiContext;
  if (!authorized(operation, ctx)) {
    c.request = api.router.parseRequest(req, operation);
    c.security = { authorized: false };
    return answers.unauthorized(c, ctx);
  }
  c.security = { authorized: true };
  c.validation = api.validator.validateRequest(req, operation);
  if (c.validation.errors) {
    c.request = api.router.parseRequest(req, operation);
    return answers.invalid(c, ctx);
  }
  // ajv coerced the query and path values in place (coerceTypes): the handler sees those.
  c.request = api.router.parseRequest(c.validation.coerced, operation);
  return answers.operations[operation.operationId as string](c, ctx);
}

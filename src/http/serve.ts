/**
 * Serving an API request with its document's backend (http/backends.ts): the operation is matched
 * once, before authentication (`recordRoute`), then `dispatch` parses the body, checks the
 * parameters, and `serve` runs the operation's security requirements, ajv's validation of the
 * request and the handler, in openapi-backend's order (docs/request-path.md, "The lean path").
 */
import type Koa from 'koa';
import type { Context as ApiContext, Operation, Request as ApiRequest } from 'openapi-backend';
import { badRequest, HttpError, methodNotAllowed, type FieldProblem } from './errors';
import { parseBody } from './body';
import type { Backend } from './backends';
import { apiFor, type ApiName } from './documents';
import type { Principal } from '../domain/apps-and-grants/principal';

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/**
 * The operation of the document for a method (lower case; HEAD is GET) and path, if any. A path
 * that is one of the document's paths without parameters, exactly as written there, is the match
 * openapi-backend's router would find first (its normalisation leaves such a path as it is), so it
 * is looked up in a table made at start-up (`exactPaths`); any other path goes through the router.
 */
export function findOperation(backend: Backend, method: string, pathname: string): Operation | undefined {
  const lookup = method === 'head' ? 'get' : method;
  return backend.exactPaths.get(lookup)?.get(pathname) ?? backend.api.matchOperation({ method: lookup, path: pathname, headers: {}, query: {} }) ?? undefined;
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
 * `query`: the declared parameters of the request (`declaredQuery`).
 */
export function parameterProblems(ctx: Koa.Context, operation: Operation, query: Record<string, string | string[]>): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const message = 'must not contain the NUL character (U+0000)';
  const params = pathParamsOf(operation);
  if (params.size > 0) pathProblems(ctx.path, params, problems, message);
  for (const name of Object.keys(query)) {
    const value = query[name] ?? '';
    if (Array.isArray(value) ? value.some((v) => v.includes('\u0000')) : value.includes('\u0000')) problems.push({ in: 'query', name, message });
  }
  return problems;
}

/**
 * The query parameters the operation declares, as Koa's `ctx.query` has them (a name sent once is
 * its value, a name sent again the list of its values; names in the order they first came), others
 * left out, as clients expect. Read in one pass of URLSearchParams over the query string (the
 * decoding Koa's own parse uses), instead of Koa's parse (a `getAll` per name and a
 * `defineProperty` per name, into a cache keyed by the query string) followed by the entries,
 * filter and `fromEntries` of the declared ones: about 2 us a request for the values row's query
 * (docs/request-path.md, "Issue 35, fourth stop"). `declared` holds the documents' names only, so
 * an assignment cannot meet `__proto__`.
 */
export function declaredQuery(ctx: Koa.Context, declared: ReadonlySet<string>): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  const search = ctx.querystring;
  if (search === '') return query;
  for (const [name, value] of new URLSearchParams(search)) {
    if (!declared.has(name)) continue;
    const earlier = Object.hasOwn(query, name) ? query[name] : undefined;
    if (earlier === undefined) query[name] = value;
    else if (Array.isArray(earlier)) earlier.push(value);
    else query[name] = [earlier, value];
  }
  return query;
}

/** Each operation's path parameters by the index of their segment, found once (the path template never changes). */
const pathParamsByOperation = new WeakMap<Operation, Map<number, string>>();

function pathParamsOf(operation: Operation): Map<number, string> {
  let params = pathParamsByOperation.get(operation);
  if (!params) {
    params = new Map();
    operation.path.split('/').forEach((segment, index) => {
      const param = /^\{(.+)\}$/.exec(segment);
      if (param) params!.set(index, param[1]);
    });
    pathParamsByOperation.set(operation, params);
  }
  return params;
}

function pathProblems(path: string, params: Map<number, string>, problems: FieldProblem[], message: string): void {
  path.split('/').forEach((segment, index) => {
    const name = params.get(index);
    if (name === undefined) return;
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      problems.push({ in: 'path', name, message: 'is not valid percent-encoded UTF-8' });
      return;
    }
    if (decoded.includes('\u0000')) problems.push({ in: 'path', name, message });
  });
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
      ctx.state.route = ctx.state.operation?.path ?? (typeof page === 'string' ? page : UNMATCHED_ROUTE);
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
    const operation = ctx.state.operation ?? matchOperation(backend, method, ctx.path);
    const requestBody = operation.requestBody as { content?: Record<string, unknown> } | undefined;
    // Parsed once: a request served again (its remembered credentials changed; http/rate-limit.ts) keeps it.
    if (requestBody?.content && !ctx.state.bodyParsed) {
      await parseBody(ctx, Object.keys(requestBody.content));
      ctx.state.bodyParsed = true;
    }
    const query = declaredQuery(ctx, backend.queryNames.get(operation.operationId as string) ?? new Set());
    if (name !== 'oauth') {
      const problems = parameterProblems(ctx, operation, query);
      if (problems.length > 0) throw badRequest(`Invalid ${problems[0].in} parameter ${problems[0].name}: ${problems[0].message}.`, problems);
    }
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
        query,
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
/** Each security scheme of the documents is satisfied by one kind of principal. */
const SCHEME_KINDS: Record<string, Principal['kind']> = { OAuth2: 'oauth', SimpleToken: 'simple', Session: 'session' };

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
  const kind = ctx.state.principal?.kind;
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
  const operationId = operation.operationId as string;
  const read = backend.readers.get(operationId)?.(req);
  if (read) {
    c.validation = read.validation;
    c.request = read.request;
    return answers.operations[operationId](c, ctx);
  }
  c.validation = api.validator.validateRequest(req, operation);
  if (c.validation.errors) {
    c.request = api.router.parseRequest(req, operation);
    return answers.invalid(c, ctx);
  }
  // ajv coerced the query and path values in place (coerceTypes): the handler sees those.
  c.request = api.router.parseRequest(c.validation.coerced, operation);
  return answers.operations[operation.operationId as string](c, ctx);
}

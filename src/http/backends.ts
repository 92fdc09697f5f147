/**
 * One openapi-backend instance per document (v2, v1, oauth), built from the bundled documents in
 * generated/openapi/: its router, its compiled request validators (ajv) and the handler of every
 * operation. Built in strict mode with trailing slashes significant. Requests are answered by
 * http/serve.ts.
 */
import type Koa from 'koa';
import addFormats from 'ajv-formats';
import { fullFormats } from 'ajv-formats/dist/formats';
import { OpenAPIBackend, OpenAPIValidator, type AjvCustomizer, type Context as ApiContext, type Document, type Operation } from 'openapi-backend';
import { loadBundle, type ApiName } from './documents';
import { unauthorizedHandler, validationFailed } from './default-answers';
import { checkCredentialModes } from './credential-checks';
import { compileRequestReader, type RequestReader } from './request-reader';
import { isFullDate } from '../domain/time';

/**
 * A handler answers by setting ctx.status / ctx.body (and headers); it may throw HttpError. Handlers
 * are written against their operation's types (src/http/operation.ts); the backend calls each with
 * the operation it is registered for, so any of them is accepted here (a method type, compared
 * bivariantly).
 */
export type OperationHandler = { handle(c: ApiContext, ctx: Koa.Context): Promise<void> | void }['handle'];
export type HandlerMap = Record<string, OperationHandler>;

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

export interface Backend {
  name: ApiName;
  api: OpenAPIBackend;
  /** operationId -> names of its query parameters (others are ignored, as clients expect). */
  queryNames: Map<string, Set<string>>;
  /** What answers each operation, and the document's answers to failed security and validation. */
  answers: Answers;
  /** operationId -> its request reader, compiled at start-up (./request-reader.ts); absent: openapi-backend reads it. */
  readers: Map<string, RequestReader>;
  /** method (lower case) -> path without parameters -> its operation (http/serve.ts `findOperation`). */
  exactPaths: Map<string, Map<string, Operation>>;
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
    // The same rule as the full mode's `date`, without its regular expression's captures (domain/time.ts).
    ajv.addFormat('date', { validate: isFullDate, compare: (fullFormats.date as { compare: (a: string, b: string) => number | undefined }).compare });
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
    // Schemas are not checked against JSON Schema's meta-schema when compiled: that check compiled
    // the meta-schema again for every validator (openapi-backend makes an ajv instance per
    // operation), most of the start-up's compile time, for documents already linted as OpenAPI 3.1
    // by Redocly when they are built (npm run lint:api). The validators compiled are the same.
    ajvOpts: { validateSchema: false },
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
  checkCredentialModes(
    name,
    api.getOperations().map((op) => op.operationId as string),
  );
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
  const readers = new Map<string, RequestReader>();
  for (const op of api.getOperations()) {
    const reader = compileRequestReader(api, op);
    if (reader) readers.set(op.operationId as string, reader);
  }
  return { name, api, queryNames, answers, readers, exactPaths: exactPathsOf(api.getOperations()) };
}

/**
 * The operations whose path has no parameter, by method and path: the match openapi-backend's
 * router finds first for such a path (an exact match of the normalised path), found without its
 * `normalizeRequest`, which copies the request by a spread with overrides, V8's slow path
 * (docs/request-path.md, "Issue 35, fourth stop").
 */
function exactPathsOf(operations: readonly Operation[]): Map<string, Map<string, Operation>> {
  const byMethod = new Map<string, Map<string, Operation>>();
  for (const operation of operations) {
    if (operation.path.includes('{')) continue;
    let paths = byMethod.get(operation.method);
    if (!paths) byMethod.set(operation.method, (paths = new Map()));
    if (!paths.has(operation.path)) paths.set(operation.path, operation);
  }
  return byMethod;
}

export { apiFor, loadBundle, type ApiName } from './documents';

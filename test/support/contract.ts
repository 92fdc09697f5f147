/**
 * Validates every response a test receives against the OpenAPI document that describes it. A status
 * the operation does not document, a media type it does not declare, or a body that does not match
 * the schema fails the test. Responses outside the documents (unknown paths, wrong methods,
 * trailing-slash redirects) are checked against the rules docs/decisions.md gives them.
 */
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { OpenAPIValidator, type AjvCustomizer, type OpenAPIBackend, type Operation } from 'openapi-backend';
import { OpenApi31Backend, apiFor, loadBundle, type ApiName } from '../../src/http/backends';

const validators = new Map<ApiName, Promise<OpenAPIBackend>>();

/**
 * A document's router and response validators. Only responses are checked here, so only the
 * response validators of the operations a test file is answered by are compiled, on first use:
 * compiling every request and response validator of the three documents up front took most of a
 * small test file's time. Schemas are not checked against JSON Schema's meta-schema (ajv's
 * `validateSchema`, compiled once per ajv instance, and openapi-backend makes one per validator):
 * the documents are linted as OpenAPI 3.1 by Redocly when they are built (npm run lint:api).
 */
function validatorFor(name: ApiName): Promise<OpenAPIBackend> {
  let ready = validators.get(name);
  if (!ready) {
    const customizeAjv: AjvCustomizer = (ajv) => {
      addFormats(ajv, { mode: 'full' });
      return ajv;
    };
    const api = new OpenApi31Backend({ definition: loadBundle(name), ignoreTrailingSlashes: false, validate: false });
    ready = api.init().then(() => {
      api.validator = new OpenAPIValidator({
        definition: api.definition,
        router: api.router,
        ajvOpts: { validateSchema: false },
        customizeAjv,
        lazyCompileValidators: true,
      });
      return api;
    });
    validators.set(name, ready);
  }
  return ready;
}

const ajv = new Ajv({ strict: false, allErrors: true });
addFormats(ajv);
const errorBody = ajv.compile({
  type: 'object',
  required: ['detail'],
  properties: { detail: { type: 'string', minLength: 1 }, errors: { type: 'array' } },
});

export interface ObservedResponse {
  method: string;
  path: string;
  status: number;
  contentType: string;
  body: unknown;
  location: string | null;
}

function describe(r: ObservedResponse): string {
  return `${r.method.toUpperCase()} ${r.path} -> ${r.status}`;
}

function documentedResponse(operation: Operation, status: number): { content?: Record<string, { schema?: unknown }> } | undefined {
  const responses = (operation.responses ?? {}) as Record<string, { content?: Record<string, { schema?: unknown }> }>;
  return responses[String(status)] ?? responses[`${String(status)[0]}XX`] ?? responses.default;
}

/** Throws with a readable message when the response is not one the document describes. */
export async function assertDocumented(r: ObservedResponse): Promise<void> {
  const name = apiFor(r.path);
  const media = r.contentType.split(';')[0].trim();
  if (name) {
    const api = await validatorFor(name);
    const method = r.method.toLowerCase() === 'head' ? 'get' : r.method.toLowerCase();
    const operation = api.matchOperation({ method, path: r.path, headers: {}, query: {} });
    if (operation) {
      const documented = documentedResponse(operation, r.status);
      if (!documented) throw new Error(`${describe(r)}: status ${r.status} is not documented for ${operation.operationId}.`);
      if (r.status === 204 || r.method.toLowerCase() === 'head') return;
      const content = documented.content ?? {};
      if (Object.keys(content).length === 0) return;
      if (!(media in content)) {
        throw new Error(`${describe(r)}: media type "${media}" is not documented for ${operation.operationId} (${Object.keys(content).join(', ')}).`);
      }
      if (media === 'application/json') {
        const result = api.validateResponse(r.body, operation, r.status);
        if (result.errors && result.errors.length > 0) {
          throw new Error(
            `${describe(r)}: body does not match ${operation.operationId}'s schema: ${JSON.stringify(result.errors.slice(0, 5))}\nbody: ${JSON.stringify(r.body).slice(0, 1000)}`,
          );
        }
      }
      return;
    }
  }
  // Outside the documents.
  if ((r.status === 301 || r.status === 308) && r.path.startsWith('/api/') && !r.path.endsWith('/')) {
    if (!r.location || !new URL(r.location).pathname.endsWith(`${r.path}/`)) {
      throw new Error(`${describe(r)}: a trailing-slash redirect must point at ${r.path}/ (got ${r.location}).`);
    }
    return;
  }
  if (r.status >= 400) {
    if (media !== 'application/json' || !errorBody(r.body)) {
      throw new Error(`${describe(r)}: an error outside the documents must be the JSON error body; got ${media} ${JSON.stringify(r.body)}`);
    }
    return;
  }
  throw new Error(`${describe(r)}: no document describes this response.`);
}

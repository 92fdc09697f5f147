/**
 * Does a pact interaction agree with the OpenAPI documents? Each interaction is walked through the
 * bundled document of its path with openapi-backend (the library the service routes and validates
 * with): the operation must exist, the request must pass the document's request validation (query,
 * path, headers, body) with credentials the operation's security accepts and a declared media
 * type, and the response's status, media type, documented headers and body must be what the
 * document allows for that operation. The examples in the pact are checked (matchers in a pact
 * are always built around an example of the value).
 */
import addFormats from 'ajv-formats';
import type { Operation } from 'openapi-backend';
import { OpenApi31Backend, apiFor, loadBundle, type ApiName } from '../../src/http/backends';

export interface PactInteraction {
  description: string;
  request: { method: string; path: string; query?: Record<string, string[] | string>; headers?: Record<string, string | string[]>; body?: unknown };
  response: { status: number; headers?: Record<string, string | string[]>; body?: unknown };
}

const backends = new Map<ApiName, Promise<OpenApi31Backend>>();

function backendFor(name: ApiName): Promise<OpenApi31Backend> {
  let ready = backends.get(name);
  if (!ready) {
    const api = new OpenApi31Backend({
      definition: loadBundle(name),
      ignoreTrailingSlashes: false,
      quick: false,
      coerceTypes: true,
      // Every problem of a body, not only the first.
      ajvOpts: { allErrors: true },
      customizeAjv: (ajv) => {
        addFormats(ajv, { mode: 'full' });
        return ajv;
      },
    });
    ready = api.init().then(() => api);
    backends.set(name, ready);
  }
  return ready;
}

const single = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value.join(', ') : value);

function lowerCaseKeys(headers: Record<string, string | string[]> = {}): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), single(value) ?? '']));
}

/** The request body as the service would parse it: JSON as is, a form body as an object of strings. */
function parsedBody(body: unknown, mediaType: string): unknown {
  if (typeof body === 'string' && mediaType === 'application/x-www-form-urlencoded') return Object.fromEntries(new URLSearchParams(body));
  return body;
}

/** Which security scheme of the documents the request's credentials use ('' for none). */
function schemeOf(headers: Record<string, string>): string {
  const authorization = headers.authorization ?? '';
  if (authorization.startsWith('Bearer ')) return 'OAuth2';
  if (authorization.startsWith('Token ')) return 'SimpleToken';
  if (authorization.startsWith('Basic ')) return 'ClientBasic';
  if (headers.cookie) return 'Session';
  return '';
}

function securityProblem(document: { security?: Array<Record<string, unknown>> }, operation: Operation, scheme: string): string | undefined {
  const requirements = (operation.security ?? document.security ?? []) as Array<Record<string, unknown>>;
  if (requirements.length === 0) return undefined;
  const accepted = requirements.map((r) => Object.keys(r));
  if (accepted.some((names) => (scheme === '' ? names.length === 0 : names.includes(scheme)))) return undefined;
  return `the request authenticates with ${scheme || 'no credentials'}, but ${operation.operationId} accepts ${accepted.map((n) => n.join('+') || 'none').join(' or ')}`;
}

type DocumentedResponse = { headers?: Record<string, unknown>; content?: Record<string, unknown> };

function documentedResponse(operation: Operation, status: number): DocumentedResponse | undefined {
  const responses = (operation.responses ?? {}) as Record<string, DocumentedResponse>;
  return responses[String(status)] ?? responses[`${String(status)[0]}XX`] ?? responses.default;
}

/** Headers every response may carry whatever the document says (HTTP itself, not the API). */
const GENERAL_HEADERS = new Set(['content-type', 'content-length', 'date', 'connection']);

/** The ways the interaction departs from the documents; empty when it agrees. */
export async function disagreements(interaction: PactInteraction): Promise<string[]> {
  const { request, response } = interaction;
  const name = apiFor(request.path);
  if (!name) return [`${request.method} ${request.path} is under none of the documents (/api/2/, /api/1/, /oauth2/)`];
  const api = await backendFor(name);
  const method = request.method.toLowerCase();
  const operation = api.matchOperation({ method, path: request.path, headers: {}, query: {} });
  if (!operation) return [`the ${name} document has no operation ${request.method} ${request.path}`];
  const problems: string[] = [];
  const id = operation.operationId;

  // Request: media type, credentials, then the document's own validation.
  const headers = lowerCaseKeys(request.headers);
  const mediaType = (headers['content-type'] ?? '').split(';')[0].trim();
  const declared = Object.keys((operation.requestBody as { content?: Record<string, unknown> } | undefined)?.content ?? {});
  if (request.body !== undefined && !declared.includes(mediaType))
    problems.push(`request: ${id} does not take a ${mediaType || 'body without Content-Type'} body (it takes ${declared.join(', ') || 'no body'})`);
  const security = securityProblem(api.definition as { security?: Array<Record<string, unknown>> }, operation, schemeOf(headers));
  if (security) problems.push(`request: ${security}`);
  const query = Object.fromEntries(Object.entries(request.query ?? {}).map(([key, value]) => [key, single(value) ?? '']));
  const validation = api.validateRequest({ method, path: request.path, query, headers, body: parsedBody(request.body, mediaType) }, operation);
  for (const error of validation.errors ?? []) problems.push(`request: ${error.instancePath || '(root)'} ${error.message}`);

  // Response: a documented status, its media type, documented headers, a body its schema allows.
  const documented = documentedResponse(operation, response.status);
  if (!documented) return [...problems, `response: status ${response.status} is not documented for ${id}`];
  const responseHeaders = lowerCaseKeys(response.headers);
  const responseType = (responseHeaders['content-type'] ?? '').split(';')[0].trim();
  const content = documented.content ?? {};
  if (response.body !== undefined && !(responseType in content))
    problems.push(
      `response: ${id} answers ${response.status} with ${Object.keys(content).join(', ') || 'no body'}, not ${responseType || 'a body without Content-Type'}`,
    );
  const documentedHeaders = new Set(Object.keys(documented.headers ?? {}).map((h) => h.toLowerCase()));
  for (const header of Object.keys(responseHeaders)) {
    if (!GENERAL_HEADERS.has(header) && !documentedHeaders.has(header))
      problems.push(`response: header ${header} is not documented for ${id} ${response.status}`);
  }
  if (response.body !== undefined && responseType === 'application/json') {
    const result = api.validateResponse(response.body, operation, response.status);
    for (const error of result.errors ?? [])
      problems.push(
        `response: body${error.instancePath.replace(/\//g, '.') || ''} ${error.message}${error.params && 'additionalProperty' in error.params ? ` (${String(error.params.additionalProperty)})` : ''}`,
      );
  }
  return problems;
}

/**
 * Reading and validating an API request with what was compiled for its operation at start-up
 * (docs/request-path.md, "The lean path"). openapi-backend's `validateRequest` and `parseRequest`
 * do the same work for any operation on every request: they rebuild the path template's regular
 * expression, deep-copy the query (with lodash, twice), re-encode it with URLSearchParams, look each
 * query parameter up in the operation's list and parse cookies, and `serve` needs both (about a
 * twentieth of a with-values request's own CPU in the bench's profiles). Here each operation's
 * path pattern, array parameters and validators are looked up once; a request then only copies
 * what it sent and runs the same compiled ajv validators on the same object.
 *
 * The answer is the same as openapi-backend's by construction (the same parameter object is
 * validated, the same request shape handed to the handler). What this does not cover is left to
 * openapi-backend: an operation with query parameters of another style or JSON content (none of
 * ours), a request with cookies or a body that is not an object, and any request that fails
 * validation (its answer lists openapi-backend's own errors, so it is read again there).
 */
import type { OpenAPIBackend, Operation, ParsedRequest, Request as ApiRequest, ValidationResult } from 'openapi-backend';

/** A request read and validated: what `serve` hands the handler (`c.request`, `c.validation`). */
export interface ReadRequest {
  request: ParsedRequest;
  validation: ValidationResult;
}

/** Reads one request of its operation, or undefined when openapi-backend must read it (see the header). */
export type RequestReader = (req: ApiRequest) => ReadRequest | undefined;

interface Parameter {
  in: string;
  name: string;
  schema?: { type?: unknown };
  content?: unknown;
  style?: unknown;
  explode?: unknown;
}

type Values = Record<string, unknown>;

/** A template's `{name}` parameters become `([^/]*)`, as openapi-backend's path parser (bath) makes them. */
function pathPattern(template: string): { pattern: RegExp; names: string[] } | undefined {
  const names: string[] = [];
  const literal = template.split(/\{([A-Za-z0-9_-]+)\}/);
  let source = '^';
  literal.forEach((part, index) => {
    if (index % 2 === 1) {
      names.push(part);
      source += '([^\\/]*)';
    } else {
      source += part; // unescaped, as bath does: our templates hold letters, digits, '-', '_' and '/'
    }
  });
  if (/[{}]/.test(source) || new Set(names).size !== names.length) return undefined;
  return { pattern: new RegExp(source + '$'), names };
}

/** The operation's path parameters in `path` (strings, percent-decoded), or undefined if they cannot be read. */
function pathValues(pattern: RegExp, names: string[], path: string): Values | undefined {
  const params: Values = {};
  if (names.length === 0) return params;
  const match = pattern.exec(path);
  if (!match) return params;
  try {
    names.forEach((name, index) => {
      params[name] = decodeURIComponent(match[index + 1]);
    });
  } catch {
    return undefined;
  }
  return params;
}

/**
 * A copy of the headers with lower-case names (Node's are already), as openapi-backend gives them:
 * for an operation with header parameters, whose values ajv may coerce in place.
 */
function headersOf(headers: ApiRequest['headers']): Values {
  const copy: Values = {};
  for (const name of Object.keys(headers)) copy[name.toLowerCase()] = headers[name];
  return copy;
}

/** The query as sent, each list copied (ajv coerces the copy in place), a lone value of an array parameter made a list. */
function queryOf(query: ApiRequest['query'], arrays: ReadonlySet<string>): Values {
  const copy: Values = {};
  if (typeof query !== 'object' || query === null) return copy;
  for (const name of Object.keys(query)) {
    const value = query[name];
    copy[name] = Array.isArray(value) ? [...value] : typeof value === 'string' && arrays.has(name) ? [value] : value;
  }
  return copy;
}

function mediaTypeOf(headers: ApiRequest['headers']): string {
  const raw = headers['content-type'];
  if (raw === undefined) return '';
  return String((Array.isArray(raw) ? raw[0] : raw) || '')
    .split(';')[0]
    .trim()
    .toLowerCase();
}

/** Compiles the reader of one operation, or undefined when its parameters need openapi-backend's own parser. */
export function compileRequestReader(api: OpenAPIBackend, operation: Operation): RequestReader | undefined {
  const parameters = (operation.parameters ?? []) as Parameter[];
  if (parameters.some((p) => '$ref' in p || p.content !== undefined || p.style !== undefined || p.explode !== undefined)) return undefined;
  const template = pathPattern(operation.path);
  if (!template) return undefined;
  const arrays = new Set(parameters.filter((p) => p.in === 'query' && p.schema?.type === 'array').map((p) => p.name));
  const validators = api.validator.getRequestValidatorsForOperation(operation.operationId as string) ?? [];
  // Without header parameters ajv only reads the headers (its schema for them has no properties),
  // so it is handed Node's own object (names already lower case), as the handler is; with them
  // it gets a copy to coerce, and the handler keeps the headers as sent.
  const copiesHeaders = parameters.some((p) => p.in === 'header');
  return (req) => {
    const body = req.body as unknown;
    if (req.headers.cookie !== undefined || (body !== undefined && body !== null && typeof body !== 'object')) return undefined;
    const path = req.path.trim();
    if (!path.startsWith('/') || path.includes('?')) return undefined;
    const checked = pathValues(template.pattern, template.names, api.router.normalizePath(path));
    if (!checked) return undefined;
    const params = { ...checked }; // the handler's keep the strings; ajv coerces `checked`
    const headers = req.headers;
    const query = queryOf(req.query, arrays);
    const validated: Values = { path: checked, query, header: copiesHeaders ? headersOf(headers) : headers, cookie: {} };
    if (typeof body === 'object' || mediaTypeOf(headers) === 'application/json') validated.requestBody = body;
    for (const validate of validators) {
      validate(validated);
      if (validate.errors) return undefined; // answered from openapi-backend's own reading (see the header)
    }
    // Both objects written out field by field, in the order the spreads they replace gave: a
    // spread of the request with some of its fields overridden (`{ ...req, query }`) took V8's
    // slow path, the reader's largest cost (docs/request-path.md, "Issue 35, fourth stop"). `req`
    // is what `dispatch` hands `serve`: these five fields.
    const coerced: ApiRequest = {
      method: req.method,
      path: req.path,
      query: query as ApiRequest['query'],
      headers,
      body,
      params: checked as ApiRequest['params'],
    };
    const request: ParsedRequest = {
      method: req.method.trim().toLowerCase(),
      path,
      query: query as ParsedRequest['query'],
      headers,
      body,
      params: params as ParsedRequest['params'],
      cookies: {},
      requestBody: body,
    };
    return { validation: { valid: true, errors: null, coerced } as ValidationResult, request };
  };
}

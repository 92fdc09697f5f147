/**
 * The former code of the request floor's steps that issue 35's fourth stop replaced, kept only for
 * the CPU micro-benchmarks of floor-micro.ts (old against new, same process). Not used by the
 * service.
 */
import type { OpenAPIBackend, Operation, ParsedRequest, Request as ApiRequest, ValidationResult } from 'openapi-backend';
import type { ReadRequest } from '../../src/http/request-reader';

type Values = Record<string, unknown>;

/** The former headers copy (twice a request). */
function headersOf(headers: ApiRequest['headers']): Values {
  const copy: Values = {};
  for (const name of Object.keys(headers)) copy[name.toLowerCase()] = headers[name];
  return copy;
}

function queryOf(query: ApiRequest['query'], arrays: ReadonlySet<string>): Values {
  const copy: Values = {};
  if (typeof query !== 'object' || query === null) return copy;
  for (const name of Object.keys(query)) {
    const value = query[name];
    copy[name] = Array.isArray(value) ? [...value] : typeof value === 'string' && arrays.has(name) ? [value] : value;
  }
  return copy;
}

function mediaTypeOf(headers: Values): string {
  const raw = headers['content-type'];
  return String((Array.isArray(raw) ? raw[0] : raw) || '')
    .split(';')[0]
    .trim()
    .toLowerCase();
}

/**
 * The former reader of an operation without path parameters (the bench's rows): two copies of the
 * headers and two spreads of the request with overridden fields.
 */
export function formerRequestReader(api: OpenAPIBackend, operation: Operation): (req: ApiRequest) => ReadRequest | undefined {
  const parameters = (operation.parameters ?? []) as Array<{ in: string; name: string; schema?: { type?: unknown } }>;
  const arrays = new Set(parameters.filter((p) => p.in === 'query' && p.schema?.type === 'array').map((p) => p.name));
  const validators = api.validator.getRequestValidatorsForOperation(operation.operationId as string) ?? [];
  return (req) => {
    const body = req.body as unknown;
    if (req.headers.cookie !== undefined || (body !== undefined && body !== null && typeof body !== 'object')) return undefined;
    const path = req.path.trim();
    const checked: Values = {};
    api.router.normalizePath(path);
    const params = { ...checked };
    const header = headersOf(req.headers);
    const validated: Values = { path: checked, query: queryOf(req.query, arrays), header, cookie: {} };
    if (typeof body === 'object' || mediaTypeOf(header) === 'application/json') validated.requestBody = body;
    for (const validate of validators) {
      validate(validated);
      if (validate.errors) return undefined;
    }
    const coerced = { ...req, query: validated.query, params: validated.path } as ApiRequest;
    return {
      validation: { valid: true, errors: null, coerced } as ValidationResult,
      request: {
        ...req,
        method: req.method.trim().toLowerCase(),
        path,
        params,
        headers: headersOf(req.headers),
        query: validated.query,
        cookies: {},
        requestBody: body,
      } as ParsedRequest,
    };
  };
}

/** Koa's own parse of a query string (koa/lib/search-params.js), as `ctx.query` did it for `dispatch`. */
function koaQuery(search: string): Record<string, string | string[]> {
  const params = new URLSearchParams(search);
  const query: Record<string, string | string[]> = {};
  for (const key of params.keys()) {
    const values = params.getAll(key);
    Object.defineProperty(query, key, { value: values.length <= 1 ? values[0] : values, writable: true, enumerable: true, configurable: true });
  }
  return query;
}

/** The former declared query and its NUL check: Koa's parse, entries, filter and fromEntries, `[value].flat()` per value. */
export function formerDeclaredQuery(search: string, declared: ReadonlySet<string>): [string[], Record<string, unknown>] {
  const all = koaQuery(search);
  const problems: string[] = [];
  for (const [name, value] of Object.entries(all)) {
    if (declared.has(name) && [value ?? ''].flat().some((v) => v.includes('\u0000'))) problems.push(name);
  }
  return [problems, Object.fromEntries(Object.entries(all).filter(([key]) => declared.has(key)))];
}

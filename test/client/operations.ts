/**
 * The operations of the three bundled OpenAPI documents (generated/openapi/{v2,v1,oauth}.json),
 * each with the context the docs build gives client/code-samples.mjs (values from the document's
 * examples), for the client's coverage and code-sample tests.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { sample } from 'openapi-sampler';

export const ROOT = path.resolve(__dirname, '..', '..');
export type Api = 'v2' | 'v1' | 'oauth';
export const APIS: Api[] = ['v2', 'v1', 'oauth'];

export interface SampleContext {
  api: Api;
  operationId: string;
  method: string;
  path: string;
  pathParams: Record<string, string>;
  query: Record<string, string>;
  body: unknown;
  contentType: 'application/json' | 'application/x-www-form-urlencoded' | undefined;
  auth: 'bearer' | 'token' | 'basic' | 'none';
}

type Doc = any;

function resolve(document: Doc, node: any): any {
  let current = node;
  while (current?.$ref)
    current = current.$ref
      .split('/')
      .slice(1)
      .reduce((o: any, key: string) => o?.[key], document);
  return current;
}

function exampleOf(document: Doc, parameter: any): unknown {
  const schema = resolve(document, parameter.schema) ?? {};
  return parameter.example ?? (parameter.examples ? Object.values<any>(parameter.examples)[0]?.value : undefined) ?? schema.example ?? schema.default;
}

function authOf(security: Array<Record<string, unknown>>): SampleContext['auth'] {
  const schemes = security.flatMap((s) => Object.keys(s));
  if (schemes.includes('SimpleToken')) return 'token';
  if (schemes.includes('OAuth2')) return 'bearer';
  if (schemes.includes('ClientCredentials') || schemes.includes('ClientBasic')) return 'basic';
  return 'none';
}

/** The bundled document of one API. */
export function documentOf(api: Api): Doc {
  return JSON.parse(readFileSync(path.join(ROOT, 'generated', 'openapi', `${api}.json`), 'utf8'));
}

/** Every operation of the three documents (and the pending ones they lack), with its example context. */
export function operationContexts(): SampleContext[] {
  const contexts: SampleContext[] = [];
  for (const api of APIS) {
    const document = documentOf(api);
    for (const [route, item] of Object.entries<any>(document.paths)) {
      for (const [method, operation] of Object.entries<any>(item)) {
        if (!operation?.operationId) continue;
        const parameters = [...(item.parameters ?? []), ...(operation.parameters ?? [])].map((p: any) => resolve(document, p));
        const valuesIn = (where: string) =>
          Object.fromEntries(
            parameters
              .filter((p: any) => p.in === where)
              .map((p: any) => [p.name, exampleOf(document, p)])
              .filter(([, value]) => value !== undefined)
              .map(([name, value]) => [name, String(value)]),
          );
        const content = operation.requestBody ? resolve(document, operation.requestBody).content : undefined;
        const contentType = content ? (Object.keys(content)[0] as SampleContext['contentType']) : undefined;
        const media = contentType ? content[contentType] : undefined;
        const body = media
          ? (media.example ??
            (media.examples ? resolve(document, Object.values<any>(media.examples)[0])?.value : undefined) ??
            sample(media.schema, {}, document))
          : undefined;
        contexts.push({
          api,
          operationId: operation.operationId,
          method: method.toUpperCase(),
          path: route,
          pathParams: valuesIn('path'),
          query: valuesIn('query'),
          body,
          contentType,
          auth: authOf(operation.security ?? document.security ?? []),
        });
      }
    }
  }
  return contexts;
}

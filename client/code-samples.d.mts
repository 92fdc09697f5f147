/** Types of code-samples.mjs (the docs build's "TypeScript client" sample of one operation). */
export interface SampleContext {
  api: 'v2' | 'v1' | 'oauth';
  operationId: string;
  method: string;
  path: string;
  pathParams: Record<string, string>;
  query: Record<string, string>;
  body: unknown;
  contentType: 'application/json' | 'application/x-www-form-urlencoded' | undefined;
  auth: 'bearer' | 'token' | 'basic' | 'none';
  /** The service root the sample names (default: the documents' example server). */
  baseUrl?: string;
  /** The bundled document the operation is in (default: generated/openapi/<api>.json as committed). */
  document?: unknown;
}

/** The sample's TypeScript source, or undefined for an operation the client has no method for. */
export function typedClientSample(context: SampleContext): string | undefined;

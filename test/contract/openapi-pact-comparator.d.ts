/**
 * The part of `@pactflow/openapi-pact-comparator`'s API the contract check uses. The package ships
 * declarations, but they import through its `#…` subpath imports, which this project's
 * `moduleResolution: node10` cannot follow (docs/decisions.md, "Contracts as the ecosystem runs them").
 */
declare module '@pactflow/openapi-pact-comparator' {
  export interface Result {
    code: string;
    message: string;
    type: 'error' | 'warning' | 'info';
    mockDetails?: { interactionDescription?: string | null; interactionState?: string | null; location: string; value: unknown };
    specDetails?: { location: string; pathMethod?: string | null; pathName?: string | null; value: unknown };
    causes?: Result[];
  }

  export class Comparator {
    /** At least one of an OpenAPI document (for HTTP interactions) and an AsyncAPI 3 document (for messages). */
    constructor(options: { oas?: object; asyncapi?: object });
    compare(pact: object): AsyncGenerator<Result>;
  }
}

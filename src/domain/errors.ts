/**
 * The domain's one error: a rule refused the input (`invalid`) or the thing asked for is not there
 * (`not_found`). The domain knows nothing of HTTP; the edge maps the code to a status once
 * (`asHttpError` in src/http/errors.ts), and the pages show the detail in their forms.
 */
export type DomainErrorCode = 'invalid' | 'not_found';

export class DomainError extends Error {
  constructor(
    readonly code: DomainErrorCode,
    readonly detail: string,
  ) {
    super(detail);
    this.name = 'DomainError';
  }
}

/** The input breaks a rule; the detail says which, in a sentence a person can act on. */
export const invalidInput = (detail: string) => new DomainError('invalid', detail);
/** What the input names does not exist (for this person). */
export const notFoundError = (detail: string) => new DomainError('not_found', detail);

/** True when `error` is the domain refusing the input (shown in the form, not as an error page). */
export const isInvalidInput = (error: unknown): error is DomainError => error instanceof DomainError && error.code === 'invalid';

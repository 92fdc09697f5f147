/**
 * The one error class of the HTTP layer. Anything thrown with a status is answered with
 * `{"detail": …}` (plus `errors` for validation problems) by the error mapper; anything else is a 500.
 */
import { DomainError, type DomainErrorCode } from '../domain/errors';

export interface FieldProblem {
  in: 'query' | 'path' | 'header' | 'body';
  name: string;
  message: string;
}

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly options: { headers?: Record<string, string>; errors?: FieldProblem[] } = {},
  ) {
    super(detail);
    this.name = 'HttpError';
  }

  /** The JSON body the client receives. */
  body(): { detail: string; errors?: FieldProblem[] } {
    return this.options.errors ? { detail: this.detail, errors: this.options.errors } : { detail: this.detail };
  }
}

export const badRequest = (detail: string, errors?: FieldProblem[]) => new HttpError(400, detail, { errors });
export const unauthorized = (detail: string, challenge: string) => new HttpError(401, detail, { headers: { 'WWW-Authenticate': challenge } });
export const forbidden = (detail: string) => new HttpError(403, detail);
export const notFound = (detail = 'Not found.') => new HttpError(404, detail);
export const invalidPage = () => new HttpError(404, 'Invalid page.');
export const methodNotAllowed = (method: string, path: string, allow: string[]) =>
  new HttpError(405, `Method ${method} is not allowed on ${path}.`, { headers: { Allow: allow.join(', ') } });
export const payloadTooLarge = () => new HttpError(413, 'The request body is larger than 1 MiB.');
export const unsupportedMediaType = (type: string, accepted: string[]) =>
  new HttpError(415, `Unsupported media type ${type || '(none)'}: send ${accepted.join(' or ')}.`);
export const tooManyRequests = (detail: string, retryAfterSeconds: number) =>
  new HttpError(429, detail, { headers: { 'Retry-After': String(retryAfterSeconds) } });
export const serviceUnavailable = () =>
  new HttpError(503, 'The service is temporarily unavailable: the database cannot be reached. Try again shortly.', {
    headers: { 'Retry-After': '5' },
  });

/** The one place a domain error's code becomes an HTTP status. */
const DOMAIN_STATUS: Record<DomainErrorCode, number> = { invalid: 400, not_found: 404 };

/** The HTTP error a thrown value is answered with: HttpErrors as they are, domain errors by their code; undefined for anything else (a 500). */
export function asHttpError(error: unknown): HttpError | undefined {
  if (error instanceof HttpError) return error;
  if (error instanceof DomainError) return new HttpError(DOMAIN_STATUS[error.code], error.detail);
  return undefined;
}

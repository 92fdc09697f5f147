/**
 * The answers of the API documents to a request that failed its operation's security requirements
 * (401 or 403, naming what is needed) or the validation of its parameters and body against the
 * document (400, listing each problem). The OAuth document answers its own (RFC 6749 errors).
 */
import type Koa from 'koa';
import type { Context as ApiContext } from 'openapi-backend';
import { badRequest, forbidden, type FieldProblem } from './errors';
import { credentialsMissing } from './auth';
import { appCredentialsNeeded } from './app-credentials';

/** Turns ajv's errors into the `errors` list of the error body. */
function fieldProblems(c: ApiContext): FieldProblem[] {
  return (c.validation.errors ?? []).map((error) => {
    const pointer = error.instancePath.split('/').filter(Boolean);
    const where = pointer[0];
    if (where === 'query' || where === 'path' || where === 'header') {
      const name = (pointer[1] ?? (error.params as { missingProperty?: string }).missingProperty ?? '').toString();
      return { in: where, name, message: error.message ?? 'is invalid' };
    }
    if (error.keyword === 'required' && pointer.length <= 1 && !where) {
      const missing = (error.params as { missingProperty?: string }).missingProperty ?? '';
      // ajv names a required body that was not sent after its wrapper, `requestBody`.
      if (missing === 'requestBody') return { in: 'body', name: '', message: 'is required' };
      return { in: 'query', name: missing, message: 'is required' };
    }
    // Body pointers start at ajv's `requestBody` wrapper; a missing property is named itself.
    const inBody = pointer[0] === 'requestBody' ? pointer.slice(1) : pointer;
    const missing = error.keyword === 'required' ? (error.params as { missingProperty?: string }).missingProperty : undefined;
    if (missing) return { in: 'body', name: '/' + [...inBody, missing].join('/'), message: 'is required' };
    return { in: 'body', name: '/' + inBody.join('/'), message: error.message ?? 'is invalid' };
  });
}

/** The sentence for a request sent without the body its operation requires, naming what to send. */
function bodyMissing(c: ApiContext): string {
  const types = Object.keys((c.operation.requestBody as { content?: Record<string, unknown> } | undefined)?.content ?? {});
  if (types.length === 1 && types[0] === 'application/json') {
    return 'The request needs a JSON body (Content-Type: application/json), as this operation describes in the API documents.';
  }
  return `The request needs a body: send ${types.join(' or ')}, as this operation describes in the API documents.`;
}

function summaryOf(c: ApiContext, first: FieldProblem | undefined): string {
  if (!first) return 'The request is invalid.';
  if (first.in === 'body' && first.name === '') return bodyMissing(c);
  return `Invalid ${first.in === 'body' ? 'request body' : `${first.in} parameter`} ${first.name}: ${first.message}.`;
}

export function validationFailed(c: ApiContext): never {
  const problems = fieldProblems(c);
  const summary = summaryOf(c, problems[0]);
  throw badRequest(
    problems.length > 1 ? `${summary} (${problems.length - 1} more problem${problems.length > 2 ? 's' : ''} listed in errors.)` : summary,
    problems,
  );
}

export function unauthorizedHandler(c: ApiContext, ctx: Koa.Context): never {
  const { principal, authProblem: problem } = ctx.state;
  if (problem) throw problem;
  const schemes = (c.operation.security ?? []).flatMap((requirement) => Object.keys(requirement));
  // Operations about the app itself take only its client credentials, never a person's token.
  if (schemes.length === 1 && schemes[0] === 'ClientCredentials') throw appCredentialsNeeded();
  if (!principal) throw credentialsMissing();
  // Valid credentials of a kind this operation does not take: only OAuth2 clients write.
  const accepts = (c.operation.security ?? []).flatMap((requirement) => Object.keys(requirement));
  if (accepts.length === 1 && accepts[0] === 'OAuth2') {
    throw forbidden('Writing is for OAuth2 clients only: use an OAuth2 access token (Authorization: Bearer).');
  }
  throw forbidden('These credentials cannot be used for this operation.');
}

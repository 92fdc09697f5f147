/**
 * Reading OAuth parameters from a query or a body. OAuth parameters are single-valued (RFC 6749
 * section 3.1: "Request and response parameters MUST NOT be included more than once"), so a
 * repeated or non-string value is reported rather than silently picking one.
 */
import type Koa from 'koa';
import { invalidRequest } from './oauth-error';

export type RawParams = Record<string, unknown>;

/** The parsed body of a token or revocation request: a form or a JSON object, else invalid_request. */
export function readBody(ctx: Koa.Context): RawParams {
  const body = ctx.request.body as unknown;
  if (!body || typeof body !== 'object' || Array.isArray(body)) {
    throw invalidRequest('Send the parameters as a form (application/x-www-form-urlencoded) or a JSON object.');
  }
  return body as RawParams;
}

export interface ReadParams {
  /** Single string values by name (absent when not sent or not a single string). */
  values: Record<string, string | undefined>;
  /** Names sent more than once or with a value that is not a string. */
  malformed: string[];
}

/** Reads `names` from `raw` (a parsed query or body). */
export function readParams(raw: RawParams | undefined, names: readonly string[]): ReadParams {
  const values: Record<string, string | undefined> = {};
  const malformed: string[] = [];
  for (const name of names) {
    const value = raw?.[name];
    if (value === undefined || value === null) continue;
    if (typeof value === 'string') values[name] = value;
    else malformed.push(name);
  }
  return { values, malformed };
}

/** "a, b and c" for messages. */
export function listWords(words: readonly string[]): string {
  if (words.length <= 1) return words.join('');
  return `${words.slice(0, -1).join(', ')} and ${words[words.length - 1]}`;
}

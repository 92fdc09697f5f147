/**
 * Reading query parameters that request validation has already checked against the document:
 * here they are only converted (validation guarantees the format).
 */
import type { Context as ApiContext } from 'openapi-backend';
import { FIRST_DATE, LAST_DATE, isSupportedDate } from '../domain/time';
import { badRequest } from './errors';

type Query = Record<string, string | string[] | undefined>;

/** A context with query parameters: an operation's (src/http/operation.ts) or an untyped one. */
type QueryContext = Pick<ApiContext<unknown, unknown, object>, 'request'>;
/** The query parameter names the operation declares (any name for an untyped context): a parameter renamed in the document no longer compiles. */
export type QueryName<C extends QueryContext> = string extends keyof C['request']['query'] ? string : keyof C['request']['query'] & string;

function single(c: QueryContext, name: string): string | undefined {
  const value = (c.request.query as Query)[name];
  return Array.isArray(value) ? value[0] : value;
}

export function queryString<C extends QueryContext>(c: C, name: QueryName<C>): string | undefined {
  const value = single(c, name);
  return value === '' ? undefined : value;
}

export function queryInt<C extends QueryContext>(c: C, name: QueryName<C>, fallback: number): number {
  const value = single(c, name);
  return value === undefined || value === '' ? fallback : Number(value);
}

/**
 * The one reading of a boolean flag, for the API's query strings and the pages' queries and forms
 * (docs/decisions.md, "Boolean flags"): `true` or `1` (any case) is true, `false` or `0` false,
 * anything else (absent, empty, another word) undefined.
 */
export function flagOf(value: unknown): boolean | undefined {
  if (typeof value !== 'string') return undefined;
  if (/^(true|1)$/i.test(value)) return true;
  if (/^(false|0)$/i.test(value)) return false;
  return undefined;
}

/** Boolean flags: true/True/TRUE/1 and false/False/FALSE/0 (the Flag schema). */
export function queryFlag<C extends QueryContext>(c: C, name: QueryName<C>, fallback = false): boolean {
  const value = single(c, name);
  if (value === undefined || value === '') return fallback;
  return flagOf(value) === true;
}

/** A comma-separated list; empty items dropped. */
export function queryList<C extends QueryContext>(c: C, name: QueryName<C>): string[] | undefined {
  const value = single(c, name);
  if (value === undefined) return undefined;
  return value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item.length > 0);
}

/** A comma-separated list of names; sent empty (`groups=`) it is the same as not sent. */
export function queryNames<C extends QueryContext>(c: C, name: QueryName<C>): string[] | undefined {
  const list = queryList(c, name);
  return list && list.length > 0 ? list : undefined;
}

/**
 * A date parameter (`format: date` already checked by the document), or undefined when absent.
 * Year 0000 passes that check but is no date Postgres knows: 400 like any invalid parameter.
 */
export function queryDate<C extends QueryContext>(c: C, name: QueryName<C>): string | undefined {
  const value = queryString(c, name);
  if (value === undefined) return undefined;
  if (!isSupportedDate(value)) {
    const message = `must be a date from ${FIRST_DATE} to ${LAST_DATE}`;
    throw badRequest(`Invalid query parameter ${name}: ${message}.`, [{ in: 'query', name, message }]);
  }
  return value;
}

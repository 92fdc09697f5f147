/**
 * Reading query parameters that request validation has already checked against the document:
 * here they are only converted (validation guarantees the format).
 */
import type { Context as ApiContext } from 'openapi-backend';
import { FIRST_DATE, LAST_DATE, isSupportedDate } from '../domain/time';
import { badRequest } from './errors';

type Query = Record<string, string | string[] | undefined>;

function single(c: ApiContext, name: string): string | undefined {
  const value = (c.request.query as Query)[name];
  return Array.isArray(value) ? value[0] : value;
}

export function queryString(c: ApiContext, name: string): string | undefined {
  const value = single(c, name);
  return value === '' ? undefined : value;
}

export function queryInt(c: ApiContext, name: string, fallback: number): number {
  const value = single(c, name);
  return value === undefined || value === '' ? fallback : Number(value);
}

/** Boolean flags: true/True/TRUE/1 and false/False/FALSE/0 (the Flag schema). */
export function queryFlag(c: ApiContext, name: string, fallback = false): boolean {
  const value = single(c, name);
  if (value === undefined || value === '') return fallback;
  return /^(true|1)$/i.test(value);
}

/** A comma-separated list; empty items dropped. */
export function queryList(c: ApiContext, name: string): string[] | undefined {
  const value = single(c, name);
  if (value === undefined) return undefined;
  return value.split(',').map((item) => item.trim()).filter((item) => item.length > 0);
}

/**
 * A date parameter (`format: date` already checked by the document), or undefined when absent.
 * Year 0000 passes that check but is no date Postgres knows: 400 like any invalid parameter.
 */
export function queryDate(c: ApiContext, name: string): string | undefined {
  const value = queryString(c, name);
  if (value === undefined) return undefined;
  if (!isSupportedDate(value)) {
    const message = `must be a date from ${FIRST_DATE} to ${LAST_DATE}`;
    throw badRequest(`Invalid query parameter ${name}: ${message}.`, [{ in: 'query', name, message }]);
  }
  return value;
}

/** Reading the pages' forms: urlencoded bodies (what a browser sends without JavaScript). */
import type Koa from 'koa';
import { parseBody } from '../http/body';
import { HttpError } from '../http/errors';
import { flagOf } from '../http/query';

export type Form = Record<string, unknown>;

export async function readForm(ctx: Koa.Context): Promise<Form> {
  await parseBody(ctx, ['application/x-www-form-urlencoded']);
  const body = ctx.request.body as unknown;
  const form = body && typeof body === 'object' && !Array.isArray(body) ? (body as Form) : {};
  // PostgreSQL text cannot hold U+0000: refused here rather than failing (500) where it is stored.
  if (
    Object.values(form)
      .flat()
      .some((value) => typeof value === 'string' && value.includes('\u0000'))
  ) {
    throw new HttpError(400, 'The form contains a NUL character (U+0000), which cannot be stored. Remove it and try again.');
  }
  return form;
}

/** A single text field ('' when absent; the first value when a browser sent several). */
export function field(form: Form, name: string): string {
  const value = form[name];
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && typeof value[0] === 'string') return value[0];
  return '';
}

/** A field that may repeat (checkbox groups). */
export function fields(form: Form, name: string): string[] {
  const value = form[name];
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string');
  return [];
}

/** A checkbox: true when sent with any value but a false flag ("0"/"false", src/http/query.ts flagOf). */
export function checked(form: Form, name: string): boolean {
  const value = field(form, name);
  return value !== '' && flagOf(value) !== false;
}

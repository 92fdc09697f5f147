/** Reading the pages' forms: urlencoded bodies (what a browser sends without JavaScript). */
import type Koa from 'koa';
import { parseBody } from '../http/body';

export type Form = Record<string, unknown>;

export async function readForm(ctx: Koa.Context): Promise<Form> {
  await parseBody(ctx, ['application/x-www-form-urlencoded']);
  const body = ctx.request.body as unknown;
  return body && typeof body === 'object' && !Array.isArray(body) ? (body as Form) : {};
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

/** A checkbox: true when sent with any value but "0"/"false". */
export function checked(form: Form, name: string): boolean {
  const value = field(form, name);
  return value !== '' && value !== '0' && value !== 'false';
}

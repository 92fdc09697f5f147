/**
 * Notices a page shows after a redirect ("Saved Mood."): the address carries only a notice code
 * (and, where the sentence names one of the person's attributes, its name), and the page picks a
 * fixed sentence for the code. No text from the address is ever shown, so a link cannot make a
 * trusted page say what its author wants (`?saved=<any text>` did).
 */
import type Koa from 'koa';

/** The notice code of this request's address when it is one of `codes`, else undefined. */
export function noticeCode<Code extends string>(query: Koa.Context['query'], codes: readonly Code[]): Code | undefined {
  const code = query.notice;
  return typeof code === 'string' && (codes as readonly string[]).includes(code) ? (code as Code) : undefined;
}

/** `?attribute=`, the attribute a notice is about (looked up among the person's own; never shown as sent). */
export function noticeAttribute(query: Koa.Context['query']): string | undefined {
  const name = query.attribute;
  return typeof name === 'string' && name.length <= 200 ? name : undefined;
}

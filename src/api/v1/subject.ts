/**
 * The one way a version 1 handler learns whose data `:username` names (docs/decisions.md,
 * "Visibility"), on the domain rule in domain/apps-and-grants/v1-subject.ts: `$self` or the caller's own user name is the
 * caller; another name is another user, shown as a public profile (profile, today) or refused.
 */
import { principalOf } from '../../http/request-state';
import type Koa from 'koa';
import type { Context as ApiContext } from 'openapi-backend';
import type { Deps } from '../../deps';
import type { Principal } from '../../domain/apps-and-grants/principal';
import { namesSelf, resolveV1Subject, type V1Subject } from '../../domain/apps-and-grants/v1-subject';
import { forbidden, notFound } from '../../http/errors';

/** A path parameter as sent, percent-decoded (`%24self` is `$self`). */
export function pathParam<C extends Pick<ApiContext<unknown, object>, 'request'>>(c: C, name: keyof C['request']['params'] & string): string {
  const raw = String((c.request.params as Record<string, string>)[name] ?? '');
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/**
 * The caller, when the path names them; otherwise 403, whether or not such a user exists (attributes,
 * values, insights and averages are shown to their owner only, and the answer must not tell who has
 * an account).
 */
export function ownData(c: Pick<ApiContext<unknown, { username: string }>, 'request'>, ctx: Koa.Context): Principal {
  const principal = principalOf(ctx);
  if (!namesSelf(principal, pathParam(c, 'username'))) {
    throw forbidden('You can only read your own data: use $self or your own user name.');
  }
  return principal;
}

/** The user the path names as far as the caller may see them: the caller, or another public user; else 404. */
export async function shownUser(
  deps: Deps,
  c: Pick<ApiContext<unknown, { username: string }>, 'request'>,
  ctx: Koa.Context,
): Promise<Exclude<V1Subject, { kind: 'hidden' }>> {
  const subject = await resolveV1Subject(deps.db, principalOf(ctx), pathParam(c, 'username'));
  if (subject.kind === 'hidden') throw notFound('User not found.');
  return subject;
}

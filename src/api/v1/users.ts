/** Handlers of the v1 `Users` tag: a user's profile and today's values. */
import { databaseOf, principalOf } from '../../http/request-state';
import type { Deps } from '../../deps';
import { listAttributeRowsWithValues } from '../../domain/tracking/attributes';
import { readOrWriteVisibility } from '../../domain/apps-and-grants/visibility';
import { localDate } from '../../domain/time';
import { shownUser } from './subject';
import { todayGroups, userObject, type V1User } from './shapes';
import type { V1Operation } from '../../http/operation';
import { answerJson } from '../../http/json-body';

export function usersHandlers(deps: Deps) {
  return {
    /** The caller's profile, or another user's public one (404 for a private or unknown user); attributes always empty. */
    async getUserProfile(c: V1Operation<'getUserProfile'>['context'], ctx: V1Operation<'getUserProfile'>['ctx']): Promise<void> {
      const { user } = await shownUser(deps, c, ctx);
      const body: V1User = userObject(user, deps.now());
      answerJson(ctx, body);
    },

    /**
     * The caller with every visible active attribute, low-priority ones included (the v1 document's
     * `getUserToday`), and its value on their local today, null when
     * none, grouped by group in group priority order. Inactive attributes stay out: no service
     * provides them any more and the documents hide them unless asked for, which today cannot do.
     * Another public user is a stub with no attributes (values are never revealed).
     */
    async getUserToday(c: V1Operation<'getUserToday'>['context'], ctx: V1Operation<'getUserToday'>['ctx']): Promise<void> {
      const subject = await shownUser(deps, c, ctx);
      const now = deps.now();
      if (subject.kind === 'other') {
        answerJson(ctx, userObject(subject.user, now) satisfies V1User);
        return;
      }
      const principal = principalOf(ctx);
      const { results } = await listAttributeRowsWithValues(databaseOf(ctx), {
        userId: subject.user.id,
        visibility: readOrWriteVisibility(principal.scopes),
        filters: { includeLowPriority: true },
        dateMax: localDate(now, subject.user.timezone),
        days: 1,
      });
      const body: V1User = userObject(subject.user, now, todayGroups(results));
      answerJson(ctx, body);
    },
  };
}

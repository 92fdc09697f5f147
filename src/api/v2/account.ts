/** Handlers of the v2 `Account` tag. */
import { databaseOf, principalOf } from '../../http/request-state';
import type { operations } from '../../../generated/types/v2';
import type { Deps } from '../../deps';
import { findUserById } from '../../domain/identity/users';
import { localDateTime } from '../../domain/time';
import { notFound } from '../../http/errors';
import type { V2Operation } from '../../http/operation';
import { answerJson } from '../../http/json-body';

type Profile = operations['getProfile']['responses'][200]['content']['application/json'];

export function accountHandlers(deps: Deps) {
  return {
    /** The caller's profile; needs no particular scope, so it doubles as a token test. */
    async getProfile(_c: V2Operation<'getProfile'>['context'], ctx: V2Operation<'getProfile'>['ctx']): Promise<void> {
      const principal = principalOf(ctx);
      // Read with the credentials in the same statement, when they were looked up with it; else on
      // the request's handle (after its credentials' check, when it carries one).
      const user = principal.profile ?? (await findUserById(await databaseOf(ctx).knex(), principal.userId));
      if (!user) throw notFound('This account no longer exists.');
      const body: Profile = {
        username: user.username,
        first_name: user.first_name,
        last_name: user.last_name,
        avatar: user.avatar,
        timezone: user.timezone,
        local_time: localDateTime(deps.now(), user.timezone),
        imperial_distance: user.imperial_distance,
        imperial_weight: user.imperial_weight,
        imperial_energy: user.imperial_energy,
        imperial_liquid: user.imperial_liquid,
        imperial_temperature: user.imperial_temperature,
        trial: user.trial,
        delinquent: user.delinquent,
      };
      answerJson(ctx, body);
    },
  };
}

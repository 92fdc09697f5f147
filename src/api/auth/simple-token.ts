/**
 * POST /api/1/auth/simple-token/ and its alias /api/2/auth/simple-token/ (docs/decisions.md, "Credentials and scopes"): user name and
 * password for the person's simple token, the same token each time until they reset it. Throttled
 * like the login form; bad credentials are 400 with the error body.
 */
import type { Deps } from '../../deps';
import { attemptSignIn } from '../../domain/identity/login-throttle';
import { simpleTokenOf } from '../../domain/identity/users';
import { clientAddress } from '../../http/client-address';
import { badRequest, tooManyRequests } from '../../http/errors';
import { trustedDeviceOf } from '../../web/device';
import type { V2Operation } from '../../http/operation';

export function simpleTokenHandlers(deps: Deps) {
  return {
    async createSimpleToken(_c: V2Operation<'createSimpleToken'>['context'], ctx: V2Operation<'createSimpleToken'>['ctx']): Promise<void> {
      // The answer is a credential: never cached, by HTTP/1.1 caches (no-store) or HTTP/1.0 ones (Pragma).
      ctx.set('Cache-Control', 'no-store');
      ctx.set('Pragma', 'no-cache');
      const { username, password } = ctx.request.body as { username: string; password: string };
      const result = await attemptSignIn(deps.db, {
        username,
        password,
        address: clientAddress(ctx),
        trustedDevice: trustedDeviceOf(ctx, deps, username),
        now: deps.now(),
      });
      if ('throttled' in result) {
        throw tooManyRequests(`Too many failed sign-in attempts. Try again in ${result.throttled} seconds.`, result.throttled);
      }
      if ('wrongCredentials' in result) throw badRequest('Unable to log in with the provided credentials.');
      ctx.body = { token: await simpleTokenOf(deps.db, result.user, deps.secretKey) };
    },
  };
}

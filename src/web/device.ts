/**
 * The device cookie of a browser (src/domain/identity/device-cookie.ts): set on every successful log-in or
 * sign-up, read on the next sign-in to the same account so that the account-wide throttle lets
 * this browser through.
 */
import type Koa from 'koa';
import type { Deps } from '../deps';
import { DEVICE_COOKIE, DEVICE_COOKIE_LIFETIME_SECONDS, issueDeviceToken, trustedDeviceKey } from '../domain/identity/device-cookie';
import { setCookie } from './cookies';

/** The trusted-device key of this request for signing in to `username`, when its device cookie is one. */
export function trustedDeviceOf(ctx: Koa.Context, deps: Deps, username: string): string | undefined {
  return trustedDeviceKey(deps.secretKey, username, ctx.cookies.get(DEVICE_COOKIE));
}

/** Marks this browser as one that signed in to `username` (replacing a cookie for another account). */
export function rememberDevice(ctx: Koa.Context, deps: Deps, username: string): void {
  setCookie(ctx, DEVICE_COOKIE, issueDeviceToken(deps.secretKey, username), { maxAgeSeconds: DEVICE_COOKIE_LIFETIME_SECONDS });
}

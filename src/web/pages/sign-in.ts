/** Sign up, log in, log out. */
import type Router from '@koa/router';
import type Koa from 'koa';
import type { Deps } from '../../deps';
import { attemptSignIn } from '../../domain/identity/login-throttle';
import { admitSignUp, signedUpFrom } from '../../domain/identity/sign-up-throttle';
import { createUser } from '../../domain/identity/users';
import { clientAddress } from '../../http/client-address';
import { HttpError } from '../../http/errors';
import { isInvalidInput } from '../../domain/errors';
import { anonymousCsrfSecret, anonymousCsrfValid, csrfToken, csrfTokenValid } from '../csrf';
import { field, readForm } from '../forms';
import { html, type Html } from '../html';
import { sendPage } from '../layout';
import { page } from '../page';
import { rememberDevice, trustedDeviceOf } from '../device';
import { currentSession, endCurrentSession, safeNext, startSession } from '../session';
import { timezoneOptions } from './timezones';

const WRONG_CREDENTIALS = 'The user name or password is incorrect.';
const EXPIRED_FORM = 'This form has expired. Please try again.';

function errorBox(message: string | undefined): Html {
  return message ? html`<p class="error" role="alert">${message}</p>` : html``;
}

function loginForm(ctx: Koa.Context, deps: Deps, values: { username?: string; next?: string; error?: string; status?: number }): void {
  const csrf = csrfToken(anonymousCsrfSecret(ctx), deps.now());
  const signupHref = values.next ? `/signup?next=${encodeURIComponent(values.next)}` : '/signup';
  sendPage(ctx, {
    title: 'Log in',
    status: values.status,
    body: html`<div class="card narrow">
<h1>Log in to Daybook</h1>
${errorBox(values.error)}
<form method="post" action="/login">
<input type="hidden" name="csrf_token" value="${csrf}">
${values.next ? html`<input type="hidden" name="next" value="${values.next}">` : ''}
<label for="username">User name</label>
<input type="text" id="username" name="username" value="${values.username ?? ''}" autocomplete="username" autocapitalize="none" required>
<label for="password">Password</label>
<input type="password" id="password" name="password" autocomplete="current-password" required>
<div class="actions"><button type="submit">Log in</button></div>
</form>
<p class="muted">New to Daybook? <a href="${signupHref}">Create an account</a>.</p>
</div>`,
  });
}

function signupForm(ctx: Koa.Context, deps: Deps, values: { username?: string; timezone?: string; next?: string; error?: string; status?: number }): void {
  const csrf = csrfToken(anonymousCsrfSecret(ctx), deps.now());
  sendPage(ctx, {
    title: 'Sign up',
    status: values.status,
    body: html`<div class="card narrow">
<h1>Create your Daybook account</h1>
${errorBox(values.error)}
<form method="post" action="/signup">
<input type="hidden" name="csrf_token" value="${csrf}">
${values.next ? html`<input type="hidden" name="next" value="${values.next}">` : ''}
<label for="username">User name</label>
<input type="text" id="username" name="username" value="${values.username ?? ''}" autocomplete="username" autocapitalize="none" required maxlength="150">
<p class="muted">Letters, digits and @ . + - _ only.</p>
<label for="password">Password</label>
<input type="password" id="password" name="password" autocomplete="new-password" required minlength="8">
<label for="password2">Password again</label>
<input type="password" id="password2" name="password2" autocomplete="new-password" required minlength="8">
<label for="timezone">Your timezone</label>
<select id="timezone" name="timezone">${timezoneOptions(values.timezone ?? 'UTC')}</select>
<div class="actions"><button type="submit">Sign up</button></div>
</form>
<p class="muted">Already have an account? <a href="/login${values.next ? `?next=${encodeURIComponent(values.next)}` : ''}">Log in</a>.</p>
</div>`,
  });
}

/** The wait of a throttled form, as the 429 page says it (and Retry-After, in seconds). */
function throttledMessage(ctx: Koa.Context, what: string, seconds: number): string {
  ctx.set('Retry-After', String(seconds));
  const minutes = Math.ceil(seconds / 60);
  return `${what} Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`;
}

function afterLogin(ctx: Koa.Context, next: string | undefined): void {
  ctx.status = 303;
  ctx.redirect(next ?? '/data');
}

export function accountPages(router: Router, deps: Deps): void {
  router.get(
    '/login',
    page(deps, async (ctx) => {
      const next = safeNext(ctx.query.next);
      if (await currentSession(ctx, deps)) return afterLogin(ctx, next);
      loginForm(ctx, deps, { next });
    }),
  );

  router.post(
    '/login',
    page(deps, async (ctx) => {
      const form = await readForm(ctx);
      const next = safeNext(field(form, 'next'));
      const username = field(form, 'username');
      if (!anonymousCsrfValid(ctx, field(form, 'csrf_token'), deps.now())) {
        return loginForm(ctx, deps, { username, next, error: EXPIRED_FORM, status: 403 });
      }
      const result = await attemptSignIn(deps.db, {
        username,
        password: field(form, 'password'),
        address: clientAddress(ctx),
        trustedDevice: trustedDeviceOf(ctx, deps, username),
        now: deps.now(),
      });
      if ('throttled' in result) {
        return loginForm(ctx, deps, { username, next, status: 429, error: throttledMessage(ctx, 'Too many failed attempts.', result.throttled) });
      }
      if ('wrongCredentials' in result) return loginForm(ctx, deps, { username, next, error: WRONG_CREDENTIALS, status: 400 });
      await startSession(ctx, deps, result.user.id);
      rememberDevice(ctx, deps, result.user.username);
      afterLogin(ctx, next);
    }),
  );

  router.get(
    '/signup',
    page(deps, async (ctx) => {
      const next = safeNext(ctx.query.next);
      if (await currentSession(ctx, deps)) return afterLogin(ctx, next);
      signupForm(ctx, deps, { next });
    }),
  );

  router.post(
    '/signup',
    page(deps, async (ctx) => {
      const form = await readForm(ctx);
      const next = safeNext(field(form, 'next'));
      const values = { username: field(form, 'username'), timezone: field(form, 'timezone') || 'UTC', next };
      if (!anonymousCsrfValid(ctx, field(form, 'csrf_token'), deps.now())) return signupForm(ctx, deps, { ...values, error: EXPIRED_FORM, status: 403 });
      const wait = await admitSignUp(deps.db, { address: clientAddress(ctx), perHour: deps.config.signUpsPerHour, now: deps.now() });
      if (wait > 0) return signupForm(ctx, deps, { ...values, status: 429, error: throttledMessage(ctx, 'Too many sign-ups from your address.', wait) });
      const password = field(form, 'password');
      if (password !== field(form, 'password2')) return signupForm(ctx, deps, { ...values, error: 'The two passwords differ.', status: 400 });
      try {
        const { user } = await createUser(deps.db, { username: values.username, password, timezone: values.timezone }, deps.secretKey);
        await startSession(ctx, deps, user.id);
        rememberDevice(ctx, deps, user.username);
        await signedUpFrom(deps.db, { username: user.username, address: clientAddress(ctx), now: deps.now() });
      } catch (error) {
        if (isInvalidInput(error)) return signupForm(ctx, deps, { ...values, error: error.detail, status: 400 });
        throw error;
      }
      afterLogin(ctx, next);
    }),
  );

  router.post(
    '/logout',
    page(deps, async (ctx) => {
      const form = await readForm(ctx);
      const session = await currentSession(ctx, deps);
      if (session && !csrfTokenValid(session.csrfSecret, field(form, 'csrf_token'), deps.now())) {
        throw new HttpError(403, 'This form has expired or did not come from Daybook. Go back, reload the page and try again.');
      }
      await endCurrentSession(ctx, deps);
      ctx.status = 303;
      ctx.redirect('/login');
    }),
  );
}

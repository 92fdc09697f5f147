/**
 * What every page handler shares: errors shown as pages (never the API's JSON body), the
 * logged-in requirement, and the anti-forgery check of posted forms.
 */
import type Koa from 'koa';
import type { Deps } from '../deps';
import type { Session } from '../domain/identity/sessions';
import { asHttpError, HttpError } from '../http/errors';
import { isDatabaseUnavailable } from '../http/request-context';
import { csrfTokenValid } from './csrf';
import { field, readForm, type Form } from './forms';
import { html, type Html } from './html';
import { sendPage } from './layout';
import { currentSession, navFor, redirectToLogin } from './session';

export type PageHandler = (ctx: Koa.Context) => Promise<void>;

/** A short page with a heading and a message (errors, confirmations). */
export async function messagePage(
  ctx: Koa.Context,
  deps: Deps,
  options: { title: string; message: Html | string; status?: number; error?: boolean },
): Promise<void> {
  const session = await currentSession(ctx, deps).catch(() => undefined);
  sendPage(ctx, {
    title: options.title,
    status: options.status,
    nav: session ? navFor(session, deps.now()) : undefined,
    body: html`<div class="card narrow"><h1>${options.title}</h1><p class="${options.error ? 'error' : 'notice'}">${options.message}</p><p><a href="/">Back to Daybook</a></p></div>`,
  });
}

/**
 * Refuses an address whose path segments or query values hold the NUL character (U+0000): no
 * name, id or date can contain it, and PostgreSQL text cannot hold it. (Found by
 * test/robustness/pages-fuzz.test.ts: /settings/apps/%00 was a 500.) Forms are checked by readForm.
 */
function assertNoNul(ctx: Koa.Context): void {
  const values = [...Object.values((ctx.params ?? {}) as Record<string, unknown>), ...Object.values(ctx.query).flat()];
  if (values.some((value) => typeof value === 'string' && value.includes('\u0000'))) {
    throw new HttpError(400, 'The address contains a NUL character (U+0000), which no page takes.');
  }
}

/** Wraps a page handler: an HttpError becomes an error page with its status; anything else a 500 page (logged). */
export function page(deps: Deps, handler: PageHandler): Koa.Middleware {
  return async (ctx) => {
    try {
      assertNoNul(ctx);
      await handler(ctx);
    } catch (thrown) {
      const error = asHttpError(thrown) ?? thrown;
      if (error instanceof HttpError) {
        for (const [name, value] of Object.entries(error.options.headers ?? {})) ctx.set(name, value);
        await messagePage(ctx, deps, {
          title: error.status === 404 ? 'Not found' : 'Something is not right',
          message: error.detail,
          status: error.status,
          error: true,
        });
        return;
      }
      if (isDatabaseUnavailable(error)) {
        ctx.set('Retry-After', '5');
        sendPage(ctx, {
          title: 'Temporarily unavailable',
          status: 503,
          body: html`<div class="card narrow"><h1>Temporarily unavailable</h1><p>Daybook cannot reach its database right now. Try again in a moment.</p></div>`,
        });
        return;
      }
      deps.logger.error({ requestId: ctx.state.requestId, path: ctx.path, err: error }, 'page failed');
      sendPage(ctx, {
        title: 'Something went wrong',
        status: 500,
        body: html`<div class="card narrow"><h1>Something went wrong</h1><p>It has been logged. Quote request id <code>${String(ctx.state.requestId ?? '')}</code> if you report it.</p></div>`,
      });
    }
  };
}

/** The session of a page that needs a logged-in person; otherwise answers 303 to the login page and returns undefined. */
export async function requireSession(ctx: Koa.Context, deps: Deps): Promise<Session | undefined> {
  const session = await currentSession(ctx, deps);
  if (!session) {
    redirectToLogin(ctx, ctx.method === 'GET' ? ctx.originalUrl : '/');
    return undefined;
  }
  return session;
}

/** Refuses a posted form whose anti-forgery token is not this session's (403). */
export function assertCsrf(session: Session, form: Form, now: Date): void {
  if (!csrfTokenValid(session.csrfSecret, field(form, 'csrf_token'), now)) {
    throw new HttpError(403, 'This form has expired or did not come from Daybook. Go back, reload the page and try again.');
  }
}

/**
 * A page that takes a posted form from a logged-in person: the one preamble of every such page
 * (the session, else 303 to the login page; the form; its anti-forgery token, else 403), then the
 * handler with both. Errors are shown as pages, as `page` does.
 */
export function formPage(deps: Deps, handler: (ctx: Koa.Context, session: Session, form: Form) => Promise<void>): Koa.Middleware {
  return page(deps, async (ctx) => {
    const session = await requireSession(ctx, deps);
    if (!session) return;
    const form = await readForm(ctx);
    assertCsrf(session, form, deps.now());
    await handler(ctx, session, form);
  });
}

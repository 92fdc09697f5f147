/**
 * Your account: where you are logged in (end any session, or all but this one), change your
 * password (the old one required and throttled like the login form; every other session ends and
 * the simple token is replaced, and with the box ticked every connected app is disconnected, so
 * whoever learnt the old one is out: domain/identity/password-change.ts), download a copy
 * of everything (values as CSV, everything as JSON; both streamed, domain/identity/account.ts), and delete
 * the account for good. Deleting asks for the password (throttled
 * like the login form) and the user name typed out, so neither a stolen open session nor a slip
 * of the hand can do it.
 */
import { Readable } from 'node:stream';
import type Router from '@koa/router';
import type Koa from 'koa';
import type { Deps } from '../../deps';
import { accountJson, deleteAccount, valuesCsv } from '../../domain/identity/account';
import { attemptSignIn } from '../../domain/identity/login-throttle';
import { clientAddress } from '../../http/client-address';
import { endOtherSessions, endSessionOf, listSessions, type Session, type SessionSummary } from '../../domain/identity/sessions';
import { localDate } from '../../domain/time';
import { validatePassword } from '../../domain/identity/users';
import { changePassword, type PasswordChange } from '../../domain/identity/password-change';
import { isInvalidInput } from '../../domain/errors';
import { field } from '../forms';
import { html, type Html } from '../html';
import { sendPage } from '../layout';
import { formPage, messagePage, page, requireSession } from '../page';
import { endCurrentSession, navFor } from '../session';
import { browserName, timeAgo } from '../browser-name';
import { errorSummary } from '../error-summary';

function when(at: Date): string {
  return at.toISOString().slice(0, 16).replace('T', ' ') + ' UTC';
}

/**
 * The person's sessions, this one marked, each named as a person would ("Chrome on Android, last
 * used 5 minutes ago"; web/browser-name.ts) with a button that ends it.
 */
function sessionsCard(sessions: SessionSummary[], current: Session, csrf: string, now: Date): Html {
  return html`<div class="card"><h2>Where you are logged in</h2>
<ul class="sessions">${sessions.map((s) => {
    const here = s.idHash === current.idHash;
    return html`<li class="session"><p><strong>${browserName(s.userAgent)}</strong>${here ? ' (this browser)' : ''}, last used <time datetime="${s.lastSeenAt.toISOString()}">${timeAgo(s.lastSeenAt, now)}</time><br><span class="muted">Logged in ${when(s.createdAt)}</span></p>
${here ? '' : html`<form method="post" action="/settings/account/sessions/end"><input type="hidden" name="csrf_token" value="${csrf}"><input type="hidden" name="session" value="${s.idHash}"><button type="submit" class="secondary">Log out</button></form>`}</li>`;
  })}</ul>
${sessions.length > 1 ? html`<form method="post" action="/settings/account/sessions/end-others" class="actions"><input type="hidden" name="csrf_token" value="${csrf}"><button type="submit" class="secondary">Log out everywhere else</button></form>` : ''}
</div>`;
}

/** The form to change one's password; `problem` says why the last attempt was refused. */
function passwordCard(csrf: string, problem?: string): Html {
  return html`<form method="post" action="/settings/account/password" class="card">
<input type="hidden" name="csrf_token" value="${csrf}">
<h2>Change your password</h2>
${problem ? html`<p class="error">${problem}</p>` : ''}
<p>Every other browser logged in to your account is logged out; this one stays logged in. Your simple token is replaced by a new one.</p>
<label for="current_password">Your current password</label>
<input type="password" id="current_password" name="current_password" autocomplete="current-password" required>
<label for="new_password">New password (8 characters or more)</label>
<input type="password" id="new_password" name="new_password" autocomplete="new-password" minlength="8" required>
<label for="repeat_password">New password again</label>
<input type="password" id="repeat_password" name="repeat_password" autocomplete="new-password" minlength="8" required>
<label class="check"><input type="checkbox" name="disconnect_apps" value="1" checked> Also disconnect every app I have connected (they must be authorised again)</label>
<div class="actions"><button type="submit">Change password</button></div>
</form>`;
}

/** Which form a refusal belongs to, so its message shows beside that form. */
interface Problem {
  form: 'password' | 'delete';
  text: string;
}

/** The refusal at the top of the page, linking to the first field of its form (web/error-summary.ts). */
function summaryOf(problem: Problem): Html {
  return problem.form === 'password'
    ? errorSummary('Your password was not changed', problem.text, 'current_password')
    : errorSummary('Your account was not deleted', problem.text, 'password');
}

async function accountPage(ctx: Koa.Context, deps: Deps, session: Session, problemOf?: Problem, status = 200, notice?: Html | string): Promise<void> {
  const problem = problemOf?.form === 'delete' ? problemOf.text : undefined;
  const nav = navFor(session, deps.now());
  const sessions = await listSessions(deps.db, session.userId, deps.now(), deps.config.sessionIdleMinutes * 60_000);
  sendPage(ctx, {
    title: 'Your account',
    status,
    nav,
    body: html`<h1>Your account</h1>
${problemOf ? summaryOf(problemOf) : ''}
${notice ? html`<p class="notice" role="status">${notice}</p>` : ''}
${sessionsCard(sessions, session, nav.csrf, deps.now())}
${passwordCard(nav.csrf, problemOf?.form === 'password' ? problemOf.text : undefined)}
<div class="card"><h2>Download your data</h2>
<p>Everything Daybook holds about you, whenever you like. No password, token or secret is included.</p>
<ul>
<li><a href="/settings/account/export/values.csv" download>Your values (CSV)</a>: one row per attribute per day, for spreadsheets.</li>
<li><a href="/settings/account/export/data.json" download>Everything (JSON)</a>: your profile, attributes with their values, averages, correlations and insights of every week, your apps and the apps you connected.</li>
</ul>
<p>Bringing data in: <a href="/settings/import">import your history</a> from an Apple Health export, a CSV, or a Daybook export.</p></div>
<form method="post" action="/settings/account/delete" class="card">
<input type="hidden" name="csrf_token" value="${nav.csrf}">
<h2>Delete your account</h2>
${problem ? html`<p class="error">${problem}</p>` : ''}
<p>This deletes your account and everything in it at once, and cannot be undone: your values, attributes, derived data, sessions and the authorisations you gave. Apps you created are deleted too: the people who connected them lose access through them. Download your data first if you want to keep it.</p>
<label for="password">Your password</label>
<input type="password" id="password" name="password" autocomplete="current-password" required>
<label for="confirm">Type your user name, <strong>${session.username}</strong>, to confirm</label>
<input type="text" id="confirm" name="confirm" autocomplete="off" autocapitalize="none" required>
<div class="actions"><button type="submit" class="danger">Delete my account</button></div>
</form>`,
  });
}

/** Sends `chunks` as a download named `filename`. */
function download(ctx: Koa.Context, filename: string, contentType: string, chunks: AsyncIterable<string>): void {
  ctx.set('Content-Disposition', `attachment; filename="${filename}"`);
  ctx.set('Cache-Control', 'no-store');
  ctx.type = contentType;
  ctx.body = Readable.from(chunks);
}

function tooManyWrong(seconds: number): string {
  return `Too many wrong passwords. Try again in ${Math.ceil(seconds / 60)} minutes.`;
}

/**
 * The person's current password, checked like a sign-in so that an open session cannot be used to
 * guess it; the session proves this browser signed in to the account, so it is the trusted device.
 * Answers undefined when it is right, else the refusal to show (a 429 sets Retry-After).
 */
async function refuseCurrentPassword(
  ctx: Koa.Context,
  deps: Deps,
  session: Session,
  password: string,
  wrong: string,
): Promise<{ text: string; status: number } | undefined> {
  const result = await attemptSignIn(deps.db, {
    username: session.username,
    password,
    address: clientAddress(ctx),
    trustedDevice: `session:${session.idHash}`,
    now: deps.now(),
  });
  if ('throttled' in result) {
    ctx.set('Retry-After', String(result.throttled));
    return { text: tooManyWrong(result.throttled), status: 429 };
  }
  if ('wrongCredentials' in result) return { text: wrong, status: 400 };
  return undefined;
}

function loggedOut(ended: number): string {
  return ended > 0 ? `Logged out ${ended} other session${ended === 1 ? '' : 's'}.` : '';
}

/** The notice after a redirect: sessions logged out. */
function noticeOf(query: Koa.Context['query']): string | undefined {
  const ended = Number(query.ended);
  return (Number.isInteger(ended) && loggedOut(ended)) || undefined;
}

/** What a password change ended, said on the page that answers it. */
function passwordChangedNotice(change: PasswordChange): Html {
  const apps = change.appsDisconnected;
  return html`Your password has been changed. ${loggedOut(change.sessionsEnded) || 'No other session was logged in.'}
Your simple token has been replaced: the old one no longer works; get the new one on the <a href="/settings/simple-token">Simple token</a> page.
${apps.length > 0 ? `Disconnected ${apps.length} app${apps.length === 1 ? '' : 's'}: ${apps.join(', ')}.` : 'No app was disconnected.'}`;
}

export function yourAccountPages(router: Router, deps: Deps): void {
  router.get(
    '/settings/account',
    page(deps, async (ctx) => {
      const session = await requireSession(ctx, deps);
      if (!session) return;
      await accountPage(ctx, deps, session, undefined, 200, noticeOf(ctx.query));
    }),
  );

  router.post(
    '/settings/account/password',
    formPage(deps, async (ctx, session, form) => {
      const refuse = (text: string, status: number) => accountPage(ctx, deps, session, { form: 'password', text }, status);
      const newPassword = field(form, 'new_password');
      if (newPassword !== field(form, 'repeat_password')) return refuse('The two new passwords differ.', 400);
      try {
        validatePassword(newPassword);
      } catch (error) {
        if (isInvalidInput(error)) return refuse(error.detail, 400);
        throw error;
      }
      const refused = await refuseCurrentPassword(ctx, deps, session, field(form, 'current_password'), 'Your current password is incorrect.');
      if (refused) return refuse(refused.text, refused.status);
      const change = await changePassword(deps.db, {
        userId: session.userId,
        password: newPassword,
        keepSessionHash: session.idHash,
        disconnectApps: field(form, 'disconnect_apps') !== '',
        secretKey: deps.secretKey,
        now: deps.now(),
      });
      // Answered here rather than redirected: the names of the apps ended are for this answer only.
      await accountPage(ctx, deps, session, undefined, 200, passwordChangedNotice(change));
    }),
  );

  router.post(
    '/settings/account/sessions/end',
    formPage(deps, async (ctx, session, form) => {
      const ended = await endSessionOf(deps.db, session.userId, field(form, 'session'));
      ctx.status = 303;
      ctx.redirect(ended ? '/settings/account?ended=1' : '/settings/account');
    }),
  );

  router.post(
    '/settings/account/sessions/end-others',
    formPage(deps, async (ctx, session) => {
      const ended = await endOtherSessions(deps.db, session.userId, session.idHash);
      ctx.status = 303;
      ctx.redirect(`/settings/account?ended=${ended}`);
    }),
  );

  router.get(
    '/settings/account/export/values.csv',
    page(deps, async (ctx) => {
      const session = await requireSession(ctx, deps);
      if (!session) return;
      download(ctx, `daybook-${session.username}-${localDate(deps.now(), 'UTC')}-values.csv`, 'text/csv; charset=utf-8', valuesCsv(deps.db, session.userId));
    }),
  );

  router.get(
    '/settings/account/export/data.json',
    page(deps, async (ctx) => {
      const session = await requireSession(ctx, deps);
      if (!session) return;
      download(
        ctx,
        `daybook-${session.username}-${localDate(deps.now(), 'UTC')}.json`,
        'application/json; charset=utf-8',
        accountJson(deps.db, session.userId, deps.now()),
      );
    }),
  );

  router.post(
    '/settings/account/delete',
    formPage(deps, async (ctx, session, form) => {
      if (field(form, 'confirm').trim() !== session.username) {
        return accountPage(ctx, deps, session, { form: 'delete', text: `Type your user name, ${session.username}, exactly, to confirm.` }, 400);
      }
      const refused = await refuseCurrentPassword(ctx, deps, session, field(form, 'password'), 'The password is incorrect.');
      if (refused) return accountPage(ctx, deps, session, { form: 'delete', text: refused.text }, refused.status);
      await deleteAccount(deps.db, session.userId);
      await endCurrentSession(ctx, deps);
      ctx.state.webSession = undefined;
      await messagePage(ctx, deps, { title: 'Account deleted', message: `The account ${session.username} and everything in it have been deleted.` });
    }),
  );
}

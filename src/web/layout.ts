/**
 * The frame of every page: markup, the small stylesheet (inline, allowed by its hash in the CSP),
 * the navigation for a logged-in person, and the headers every page carries: a strict CSP with
 * frame-ancestors 'none', no caching (pages hold anti-forgery tokens and sometimes secrets), and
 * `Referrer-Policy: same-origin`: our own pages see the referrer, and browsers post our forms with
 * our real `Origin` (under `no-referrer` they send `Origin: null`, ./same-origin.ts), while no other
 * site ever gets a Referer from a page (the consent page's URL carries the app's state and PKCE
 * challenge). Every other answer keeps helmet's `no-referrer` (app.ts), the consent form's
 * redirect to the app included, so the request that carries the code to the app has no Referer.
 */
import crypto from 'node:crypto';
import type Koa from 'koa';
import { html, trustedHtml, type Html } from './html';
import { CSS } from './styles';

const STYLE_HASH = crypto.createHash('sha256').update(CSS, 'utf8').digest('base64');

/** The CSP of a page; `formTargets` are origins a form here may end up at (the consent page's redirect). */
export function contentSecurityPolicy(formTargets: readonly string[] = []): string {
  return [
    "default-src 'self'",
    "script-src 'none'",
    `style-src 'sha256-${STYLE_HASH}'`,
    "img-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    ['form-action', "'self'", ...formTargets].join(' '),
    "frame-ancestors 'none'",
  ].join('; ');
}

export interface NavInfo {
  username: string;
  csrf: string;
}

export interface PageOptions {
  title: string;
  body: Html;
  status?: number;
  /** The logged-in person (shows the navigation and the log-out button). */
  nav?: NavInfo;
  formTargets?: readonly string[];
}

/** Every page a logged-in person reaches from the navigation (docs/pages.md, "Navigation"). */
const PAGES: ReadonlyArray<readonly [string, string]> = [
  ['/data', 'Your data'],
  ['/data/patterns', 'Patterns'],
  ['/data/track', 'Track'],
  ['/settings/apps', 'Apps'],
  ['/settings/connected-apps', 'Connected apps'],
  ['/settings/attributes', 'Attributes'],
  ['/settings/simple-token', 'Simple token'],
  ['/settings/profile', 'Profile'],
  ['/settings/account', 'Account'],
  ['/docs/', 'API docs'],
];

/**
 * The navigation: on a wide screen a row of links; on a narrow one (CSS) the same links in a
 * menu that opens without script (<details>).
 */
function navigation(nav: NavInfo | undefined): Html {
  if (!nav) {
    return html`<nav aria-label="Account"><a href="/login">Log in</a><a href="/signup">Sign up</a></nav>`;
  }
  const links = (label: string, cls: string) => html`<nav aria-label="${label}" class="${cls}">
${PAGES.map(([href, text]) => html`<a href="${href}">${text}</a>`)}
<form method="post" action="/logout" class="inline"><input type="hidden" name="csrf_token" value="${nav.csrf}"><button type="submit" class="link" title="Logged in as ${nav.username}">Log out ${nav.username}</button></form>
</nav>`;
  return html`${links('Main', 'wide')}<details class="menu"><summary>Menu</summary>${links('Menu', 'narrow-menu')}</details>`;
}

export function renderPage(options: PageOptions): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${options.title} · Daybook</title>
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<style>${trustedHtml(CSS)}</style>
</head>
<body>
<header><div class="bar"><a class="brand" href="/">Daybook</a>${navigation(options.nav)}</div></header>
<main>
${options.body}
</main>
</body>
</html>
`.value;
}

/** Sets the page headers and body. */
export function sendPage(ctx: Koa.Context, options: PageOptions): void {
  ctx.status = options.status ?? 200;
  ctx.type = 'text/html; charset=utf-8';
  ctx.set('Content-Security-Policy', contentSecurityPolicy(options.formTargets));
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Referrer-Policy', 'same-origin');
  ctx.body = renderPage(options);
}

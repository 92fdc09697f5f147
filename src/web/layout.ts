/**
 * The frame of every page: markup, the small stylesheet (inline, allowed by its hash in the CSP),
 * the navigation for a logged-in person, and the headers every page carries: a strict CSP with
 * frame-ancestors 'none', no caching (pages hold anti-forgery tokens and sometimes secrets), no
 * referrer (authorisation URLs carry state and challenges).
 */
import crypto from 'node:crypto';
import type Koa from 'koa';
import { html, trustedHtml, type Html } from './html';

const CSS = `
:root{color-scheme:light;--ink:#1d2430;--muted:#5b6474;--line:#dde2ea;--accent:#2f6f5e;--accent-ink:#fff;--bad:#a12a2a;--bg:#f6f7f9}
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--ink);background:var(--bg)}
header{background:#fff;border-bottom:1px solid var(--line)}
header .bar{max-width:860px;margin:0 auto;padding:.6rem 1rem;display:flex;gap:1rem;align-items:center;flex-wrap:wrap}
header .brand{font-weight:700;color:var(--accent);text-decoration:none;margin-right:auto}
header nav{display:flex;gap:.9rem;flex-wrap:wrap;align-items:center}
header nav a{color:var(--ink);text-decoration:none}
header nav a:hover{text-decoration:underline}
header form{margin:0}
main{max-width:860px;margin:1.5rem auto;padding:0 1rem}
h1{font-size:1.6rem;margin:.2rem 0 1rem}
h2{font-size:1.2rem;margin:1.5rem 0 .5rem}
.card{background:#fff;border:1px solid var(--line);border-radius:10px;padding:1.2rem 1.4rem;margin:0 0 1rem}
.narrow{max-width:440px;margin-left:auto;margin-right:auto}
label{display:block;font-weight:600;margin:.8rem 0 .25rem}
label.check{font-weight:400;display:flex;gap:.5rem;align-items:center;margin:.3rem 0}
td label.check{margin:0}
input[type=text],input[type=password],input[type=url],input[type=date],select,textarea{width:100%;padding:.5rem .6rem;border:1px solid #b9c1cd;border-radius:6px;font:inherit;background:#fff}
textarea{min-height:5rem}
button,.button{display:inline-block;padding:.5rem 1rem;border-radius:6px;border:1px solid var(--accent);background:var(--accent);color:var(--accent-ink);font:inherit;cursor:pointer;text-decoration:none}
button.secondary{background:#fff;color:var(--ink);border-color:#b9c1cd}
button.danger{background:var(--bad);border-color:var(--bad)}
button.link{background:none;border:none;color:var(--ink);padding:0}
.actions{display:flex;gap:.6rem;flex-wrap:wrap;margin-top:1rem}
.muted{color:var(--muted)}
.notice{background:#eaf5f1;border:1px solid #b6dccd;border-radius:8px;padding:.7rem 1rem;margin:0 0 1rem}
.error{background:#fbeeee;border:1px solid #e6bcbc;color:var(--bad);border-radius:8px;padding:.7rem 1rem;margin:0 0 1rem}
.secret{font-family:ui-monospace,Menlo,Consolas,monospace;background:#f1f3f6;border:1px dashed #b9c1cd;border-radius:6px;padding:.4rem .6rem;word-break:break-all;display:block}
code{font-family:ui-monospace,Menlo,Consolas,monospace;background:#f1f3f6;border-radius:4px;padding:0 .25rem;word-break:break-all}
table{width:100%;border-collapse:collapse}
th,td{text-align:left;padding:.45rem .5rem;border-bottom:1px solid var(--line);vertical-align:top}
th{font-size:.85rem;color:var(--muted);font-weight:600}
ul.scopes{padding-left:1.2rem}
ul.scopes li{margin:.2rem 0}
.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(250px,1fr));gap:0 1rem}
.inline{display:inline}
.scroll{overflow-x:auto}
table.week td,table.week th{white-space:nowrap}
table.week .day{background:#eef6f2;font-weight:600}
tr.enter td{border-bottom:1px solid var(--line);padding-top:0}
form.entry{display:flex;gap:.5rem;align-items:center;max-width:420px}
form.entry textarea{min-height:2.6rem}
form.daypicker{display:flex;gap:.8rem;align-items:center;flex-wrap:wrap}
form.daypicker input[type=date]{width:auto}
.inline-label{display:inline;margin:0 0 0 auto;font-weight:400}
`;

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

function navigation(nav: NavInfo | undefined): Html {
  if (!nav) {
    return html`<nav><a href="/login">Log in</a><a href="/signup">Sign up</a></nav>`;
  }
  return html`<nav>
<a href="/data">Your data</a>
<a href="/settings/profile">Profile</a>
<a href="/settings/apps">Your apps</a>
<a href="/settings/connected-apps">Connected apps</a>
<a href="/settings/attributes">Attributes</a>
<a href="/settings/simple-token">Simple token</a>
<form method="post" action="/logout" class="inline"><input type="hidden" name="csrf_token" value="${nav.csrf}"><button type="submit" class="link" title="Logged in as ${nav.username}">Log out ${nav.username}</button></form>
</nav>`;
}

export function renderPage(options: PageOptions): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${options.title} · Daybook</title>
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
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.body = renderPage(options);
}

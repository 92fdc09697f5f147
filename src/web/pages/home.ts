/**
 * The front door: `/` shows a visitor what Daybook is, with log in and sign up (a logged-in person
 * goes straight to Your data), and the favicon every page names.
 */
import type Router from '@koa/router';
import type Koa from 'koa';
import type { Deps } from '../../deps';
import { html } from '../html';
import { sendPage } from '../layout';
import { page } from '../page';
import { currentSession } from '../session';

/** A rounded square with a tick of days: drawn here, served as an image (the CSP allows images from 'self'). */
const FAVICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#2f6f5e"/><rect x="6" y="18" width="4" height="8" rx="1" fill="#fff"/><rect x="12" y="12" width="4" height="14" rx="1" fill="#fff"/><rect x="18" y="15" width="4" height="11" rx="1" fill="#fff"/><rect x="24" y="7" width="4" height="19" rx="1" fill="#fff"/></svg>`;

function landing(ctx: Koa.Context): void {
  sendPage(ctx, {
    title: 'Your days, in numbers and pictures',
    body: html`<section class="card hero"><h1>Daybook</h1>
<p>One place for your days: sleep, steps, mood, what you did. The apps you already use write into it; you can enter anything by hand in one short form a day.</p>
<p>Daybook draws each thing you track over weeks and months, shows a month at a glance, and finds what goes together (does a long walk come with better sleep?). Your apps can read all of it through an open API, only with your permission.</p>
<div class="actions"><a class="button" href="/signup">Sign up</a> <a href="/login">Log in</a> <a href="/docs/">API documentation</a></div></section>`,
  });
}

export function homePages(router: Router, deps: Deps): void {
  router.get(
    '/',
    page(deps, async (ctx) => {
      if (await currentSession(ctx, deps)) {
        ctx.status = 303;
        ctx.redirect('/data');
        return;
      }
      landing(ctx);
    }),
  );

  router.get('/favicon.svg', (ctx) => {
    ctx.type = 'image/svg+xml';
    ctx.set('Cache-Control', 'public, max-age=86400');
    ctx.body = FAVICON;
  });
  router.get('/favicon.ico', (ctx) => {
    ctx.status = 301;
    ctx.redirect('/favicon.svg');
  });
}

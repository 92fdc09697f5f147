/**
 * A second line behind the anti-forgery tokens, as the big web frameworks draw it: a form post
 * (any state-changing request outside the API) that the browser says comes from another site is
 * refused before its token is even looked at. The browser's word is `Sec-Fetch-Site` (anything but
 * `same-origin` or `none`, a person's own navigation, is refused: a sibling subdomain is another
 * origin too) or, from browsers that do not send it, `Origin` (refused unless it is this service's
 * own origin). `Origin: null` says nothing either way: browsers send it from sandboxed frames and
 * cross-site redirects, but also from our own pages under a `no-referrer` policy and from privacy
 * settings, so it goes on to the token check like a request that sends neither header (scripts,
 * Safari before 16.4, Firefox before 90). The token alone decides those: a cross-site page can
 * neither read nor forge it (./csrf.ts). Pages send `Referrer-Policy: same-origin` (./layout.ts),
 * so browsers post our forms with our real Origin (docs/security.md, "Pages, exports and headers").
 *
 * The API is not covered: its writes need an OAuth2 token in a header, which no cross-site form
 * can send. The token and revocation endpoints are for apps, and answer in their own form.
 */
import type Koa from 'koa';
import type { Deps } from '../deps';
import { OAUTH_APP_PATHS } from '../http/documents';
import { publicBaseUrl } from '../http/urls';
import { messagePage } from './page';

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

function isFormEndpoint(path: string): boolean {
  return !path.startsWith('/api/') && !OAUTH_APP_PATHS.has(path);
}

function originOf(value: string): string | undefined {
  try {
    return new URL(value).origin;
  } catch {
    return undefined;
  }
}

/** Whether the browser says this request was sent by a page of another origin. */
export function sentFromAnotherSite(ctx: Koa.Context): boolean {
  const fetchSite = ctx.get('Sec-Fetch-Site').trim().toLowerCase();
  if (fetchSite !== '') return fetchSite !== 'same-origin' && fetchSite !== 'none';
  const origin = ctx.get('Origin').trim();
  if (origin === '' || origin === 'null') return false;
  return originOf(origin) !== originOf(publicBaseUrl(ctx));
}

export function refuseCrossSiteForms(deps: Deps): Koa.Middleware {
  return async (ctx, next) => {
    if (STATE_CHANGING.has(ctx.method) && isFormEndpoint(ctx.path) && sentFromAnotherSite(ctx)) {
      return messagePage(ctx, deps, {
        title: 'Form refused',
        message: 'This form was sent from another site, so Daybook did not act on it. To make this change, open Daybook and use its own page.',
        status: 403,
        error: true,
      });
    }
    await next();
  };
}

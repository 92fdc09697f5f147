/**
 * The pages for people, server-rendered and usable without JavaScript: sign up, log in, your data
 * (tracking by hand, patterns), profile, app management, connected apps, attribute settings,
 * simple token, your account (download, delete), importing one's history. (The consent page belongs to the OAuth
 * document: src/oauth/authorize.ts.)
 */
import Router from '@koa/router';
import type { Deps } from '../deps';
import { accountPages } from './pages/sign-in';
import { attributePageRoutes } from './pages/attribute';
import { homePages } from './pages/home';
import { importPages } from './pages/import';
import { insightPages } from './pages/insights';
import { appPages } from './pages/apps';
import { appWebhookPages } from './pages/app-webhooks';
import { attributePages } from './pages/attributes';
import { connectedAppPages } from './pages/connected-apps';
import { dataPages } from './pages/data';
import { patternPages } from './pages/patterns';
import { profilePages } from './pages/profile';
import { simpleTokenPages } from './pages/simple-token';
import { trackPages } from './pages/track';
import { yourAccountPages } from './pages/your-account';

export function webRoutes(deps: Deps): Router {
  const router = new Router();
  homePages(router, deps);
  accountPages(router, deps);
  dataPages(router, deps);
  trackPages(router, deps);
  patternPages(router, deps);
  profilePages(router, deps);
  appPages(router, deps);
  appWebhookPages(router, deps);
  connectedAppPages(router, deps);
  attributePages(router, deps);
  simpleTokenPages(router, deps);
  yourAccountPages(router, deps);
  importPages(router, deps);
  insightPages(router, deps);
  // Last: /data/<attribute> must not take the data pages' own addresses (web/links.ts).
  attributePageRoutes(router, deps);
  return router;
}

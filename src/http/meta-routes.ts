/**
 * Routes outside the API documents: health checks for load balancers, the bundled OpenAPI
 * documents and their Redoc pages.
 */
import fs from 'node:fs';
import path from 'node:path';
import Router from '@koa/router';
import type { Knex } from 'knex';
import { DOCS_DIR } from '../paths';
import { loadBundle, type ApiName } from './backends';
import { HttpError, serviceUnavailable } from './errors';
import { docsBeingBuilt } from './docs-build';
import { ownAddress, RecentTexts, withOwnAddress } from './own-address';

/** Seconds after which a page still being built is worth asking for again. */
const DOCS_RETRY_SECONDS = 5;

const DOCS: Record<ApiName, string> = { v2: 'API version 2', v1: 'API version 1', oauth: 'OAuth2' };

/**
 * How many rewritten texts are kept (own-address.ts): every document and page for a few origins.
 * With PUBLIC_URL there is one origin; in development, one per loopback port a browser uses.
 */
const KEPT_DOCUMENTS = 12;
const KEPT_PAGES = 6;

/** Redoc renders with inline scripts, styles and a blob worker; nothing else is allowed. */
const DOCS_CSP =
  "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
  "font-src 'self' data:; worker-src 'self' blob:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

async function databaseAnswers(db: Knex, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  try {
    return await Promise.race([
      db.raw('SELECT 1').then(
        () => true,
        () => false,
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

export function metaRoutes(db: Knex): Router {
  const router = new Router();
  const bundles = Object.fromEntries((Object.keys(DOCS) as ApiName[]).map((name) => [name, JSON.stringify(loadBundle(name))]));
  const documents = new RecentTexts(KEPT_DOCUMENTS);
  const pages = new RecentTexts(KEPT_PAGES);

  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.get('/readyz', async (ctx) => {
    if (!(await databaseAnswers(db, 2000))) throw serviceUnavailable();
    ctx.body = { status: 'ready' };
  });
  router.get('/openapi/:name.json', (ctx) => {
    const bundle = bundles[ctx.params.name];
    if (!bundle) throw new HttpError(404, `No document named ${ctx.params.name}: try v2, v1 or oauth.`);
    const address = ownAddress(ctx);
    ctx.type = 'application/json';
    ctx.body = documents.get(`${address} ${ctx.params.name}`, () => withOwnAddress(bundle, address));
  });
  router.get('/docs/', (ctx) => {
    ctx.type = 'text/html';
    ctx.set('Content-Security-Policy', DOCS_CSP);
    const items = (Object.keys(DOCS) as ApiName[])
      .map((name) => `<li><a href="/docs/${name}/">${DOCS[name]}</a> (<a href="/openapi/${name}.json">OpenAPI document</a>)</li>`)
      .join('');
    ctx.body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Daybook API documentation</title></head><body><h1>Daybook API documentation</h1><ul>${items}</ul></body></html>`;
  });
  router.get('/docs/:name/', (ctx) => {
    const name = ctx.params.name as ApiName;
    if (!(name in DOCS)) throw new HttpError(404, `No documentation named ${name}: try v2, v1 or oauth.`);
    if (docsBeingBuilt()) {
      // A start without built pages builds them after it listens (docs-build.ts): say so, and come back.
      ctx.status = 503;
      ctx.set('Retry-After', String(DOCS_RETRY_SECONDS));
      ctx.type = 'text/html';
      ctx.set('Content-Security-Policy', DOCS_CSP);
      ctx.body =
        `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="${DOCS_RETRY_SECONDS}">` +
        `<title>Documentation is being built</title></head><body><h1>The documentation is being built</h1>` +
        `<p>The service started without this page built (a first start, or new API documents) and is building it now. This page reloads by itself in ${DOCS_RETRY_SECONDS} seconds.</p></body></html>`;
      return;
    }
    const file = path.join(DOCS_DIR, `${name}.html`);
    const built = fs.statSync(file, { throwIfNoEntry: false });
    if (!built) throw new HttpError(404, 'The documentation pages are not built: run npm run docs.');
    const address = ownAddress(ctx);
    ctx.type = 'text/html';
    ctx.set('Content-Security-Policy', DOCS_CSP);
    // Keyed by the page's time too: a page rebuilt while the service runs is read again.
    ctx.body = pages.get(`${address} ${name} ${built.mtimeMs}`, () => withOwnAddress(fs.readFileSync(file, 'utf8'), address));
  });
  router.get('/docs', (ctx) => ctx.redirect('/docs/'));
  return router;
}

/**
 * Builds the Koa app: the middleware chain and what is mounted where. A request flows one way:
 * metrics (when METRICS_TOKEN is set) -> request id + client address + log + error mapping ->
 * security headers -> no-store on API answers -> host check (without PUBLIC_URL) -> CORS (preflights answered here) -> v1
 * deprecation fields -> trailing-slash redirect -> cross-site form refusal -> route template ->
 * health, docs and /metrics -> pages for people ->
 * authentication -> rate limit -> the openapi-backend of its document -> handler.
 */
import Koa from 'koa';
import type { Deps } from './deps';
import { requestContext } from './http/request-context';
import { trailingSlashRedirect } from './http/trailing-slash';
import { v1Deprecation } from './http/deprecation';
import { cors } from './http/cors';
import { metaRoutes } from './http/meta-routes';
import { authenticate } from './http/auth';
import { createRateLimiter, rateLimit, WINDOW_SECONDS } from './http/rate-limit';
import { createMetrics } from './http/metrics';
import { chainsByDocument } from './http/chain';
import { apiFor, createBackend, type ApiName, type Backend, type HandlerMap } from './http/backends';
import { countedByQuota } from './http/documents';
import { noStoreForApiAnswers } from './http/cache-control';
import { dispatch, recordRoute } from './http/serve';
import { withIdempotencyKeys } from './http/idempotency';
import { HttpError } from './http/errors';
import { checkHost, UNKNOWN_HOST } from './http/host-check';
import { invalidRequest, sendTokenError } from './oauth/oauth-error';
import { oauthInteractions, sendAuthorizationErrorPage } from './web/pages/consent';
import { v2Handlers } from './api/v2';
import { v1Handlers } from './api/v1';
import { oauthHandlers, PARAMETER_ENDPOINTS, tokenRequestParseErrors } from './oauth';
import { webRoutes } from './web';
import { refuseCrossSiteForms } from './web/same-origin';
import { compressAnswers } from './http/compression';
import { securityHeaders } from './http/security-headers';

/** Handler sets per document. */
function handlersFor(deps: Deps): Record<ApiName, HandlerMap> {
  return { v2: withIdempotencyKeys(deps.db, deps.now, v2Handlers(deps)), v1: v1Handlers(deps), oauth: oauthHandlers(deps, oauthInteractions(deps)) };
}

/** A request for a host the service does not answer to: 400 in the form the path's document gives its errors. */
function refuseUnknownHost(ctx: Koa.Context): void {
  if (ctx.path === '/oauth2/access_token' || ctx.path === '/oauth2/revoke') return sendTokenError(ctx, invalidRequest(UNKNOWN_HOST));
  if (ctx.path === '/oauth2/authorize') return sendAuthorizationErrorPage(ctx, UNKNOWN_HOST);
  throw new HttpError(400, UNKNOWN_HOST);
}

export interface BuiltApp {
  app: Koa;
  backends: Record<ApiName, Backend>;
}

export async function createApp(deps: Deps): Promise<BuiltApp> {
  const handlers = handlersFor(deps);
  const backends = {} as Record<ApiName, Backend>;
  for (const name of ['v2', 'v1', 'oauth'] as ApiName[]) {
    backends[name] = await createBackend(name, handlers[name]);
  }
  const hops = deps.config.trustProxyHops;
  // maxIpsCount keeps Koa's own ctx.ip in line with clientAddress (never read for a decision).
  const app = new Koa({ proxy: hops > 0, maxIpsCount: hops });
  const meta = metaRoutes(deps.db);
  const metrics = deps.config.metricsToken
    ? createMetrics({ token: deps.config.metricsToken, db: deps.db, logger: deps.logger, queueSizes: deps.jobs?.queueSizes })
    : undefined;

  const limit = deps.config.rateLimitPerHour;
  // Counted by the API quota: API paths but the person's authorisation page (http/documents.ts) and the
  // token and revocation endpoints, which count per client, grant and failing address themselves
  // (src/oauth/request-budgets.ts), never in one per-address bucket.
  const underApiQuota = (ctx: Koa.Context) => countedByQuota(ctx.path) && !PARAMETER_ENDPOINTS.has(ctx.path);
  // The rate limit serves the rest of the chain itself: a request whose first statement finds its
  // remembered credentials changed is served again once they are read in full (http/rate-limit.ts).
  const parseErrors = tokenRequestParseErrors();
  const serve = dispatch(backends);
  const serveApi = (ctx: Koa.Context) => parseErrors(ctx, () => serve(ctx, async () => undefined));
  const limitRequests = rateLimit(createRateLimiter(deps.db, limit), limit, serveApi);

  const publicUrl: Koa.Middleware = (ctx, next) => {
    ctx.state.publicUrl = deps.config.publicUrl;
    return next();
  };
  const first = [
    // Outside the error mapper, so that it counts the status the client gets.
    ...(metrics ? [metrics.observe] : []),
    requestContext(deps.logger, hops),
    compressAnswers({ minBytes: deps.config.compressMinBytes }),
    await securityHeaders(),
    noStoreForApiAnswers(),
    publicUrl,
    checkHost({ publicUrl: deps.config.publicUrl, allowedHosts: deps.config.allowedHosts, refuse: refuseUnknownHost }),
    cors(),
  ];
  const deprecation = v1Deprecation();
  const trailingSlash = trailingSlashRedirect();
  const crossSiteForms = refuseCrossSiteForms(deps);
  const route = recordRoute(backends);
  const authenticated = authenticate(
    deps.db,
    deps.now,
    deps.config.sessionIdleMinutes * 60_000,
    {
      counts: underApiQuota,
      windowMs: WINDOW_SECONDS * 1000,
      limit,
    },
    deps.replicas,
  );
  const answer: Koa.Middleware = (ctx, next) => (apiFor(ctx.path) ? (underApiQuota(ctx) ? limitRequests(ctx) : serveApi(ctx)) : next());
  // Each document's chain leaves out the layers that never act on its paths: the page, docs and
  // metrics routers (none lives under an API prefix), the cross-site form refusal (API paths but the
  // authorisation page are not forms), the deprecation fields (version 1 only) and the trailing-slash
  // redirect (paths under /api/ only). Every other path walks every layer, in the same order.
  app.use(
    chainsByDocument(
      {
        v2: [...first, trailingSlash, route, authenticated, answer],
        v1: [...first, deprecation, trailingSlash, route, authenticated, answer],
        oauth: [...first, crossSiteForms, route, authenticated, answer],
      },
      [
        ...first,
        deprecation,
        trailingSlash,
        crossSiteForms,
        route,
        meta.routes() as unknown as Koa.Middleware, // @koa/router adds params and router to the context itself
        ...(metrics ? [metrics.router.routes() as unknown as Koa.Middleware] : []), // before authentication: its token is not a user's
        webRoutes(deps).routes() as unknown as Koa.Middleware,
        authenticated,
        answer,
      ],
    ),
  );
  return { app, backends };
}

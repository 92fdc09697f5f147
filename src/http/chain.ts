/**
 * The middleware chain composed once per document (docs/request-path.md, "The lean path"): an API
 * request walks only the layers that can act on its paths, chosen at start-up, instead of every
 * layer of the app asking each request whether it is one of its own (the page, docs and metrics
 * routers, the cross-site form refusal, the version 1 deprecation fields). Which chain serves a
 * request is decided once, from its path (`apiFor`).
 */
import type Koa from 'koa';
import { apiFor, type ApiName } from './documents';

/** Runs `layers` in order, each one's `next` the rest of them, then `next` (as koa-compose does). */
export function chain(layers: readonly Koa.Middleware[]): Koa.Middleware {
  return (ctx, next) => {
    const step = (index: number): Promise<unknown> => {
      if (index === layers.length) return next();
      let called = false;
      try {
        return Promise.resolve(
          layers[index](ctx, () => {
            if (called) return Promise.reject(new Error('next() called more than once'));
            called = true;
            return step(index + 1);
          }),
        );
      } catch (error) {
        return Promise.reject(error); // a layer that throws before returning its promise
      }
    };
    return step(0) as Promise<void>;
  };
}

/** The chain of each document's paths, and the full chain for every other path (pages, docs, health, metrics). */
export function chainsByDocument(chains: Record<ApiName, readonly Koa.Middleware[]>, others: readonly Koa.Middleware[]): Koa.Middleware {
  const byDocument = { v2: chain(chains.v2), v1: chain(chains.v1), oauth: chain(chains.oauth) };
  const rest = chain(others);
  return (ctx, next) => {
    const name = apiFor(ctx.path);
    return (name ? byDocument[name] : rest)(ctx, next);
  };
}

/**
 * The security headers every answer starts with (docs/security.md, "Pages, exports and headers"):
 * helmet's, with a content security policy that allows nothing (`default-src 'none'`,
 * `frame-ancestors 'none'`). Pages and the documentation replace the ones they need later in the
 * chain (web/layout.ts, http/meta-routes.ts).
 *
 * With these options helmet's headers are the same for every request: its middleware only calls
 * `setHeader`/`removeHeader` with fixed values. So helmet itself runs once, at start-up, against a
 * response that records what it does, and each request replays the record: one `setHeader` per
 * header, instead of helmet's chain of a dozen middleware and koa-helmet's promise per request
 * (docs/request-path.md, "Issue 35, third stop"). Any other use of the response by helmet (a header
 * that would depend on the request) fails the start, rather than being replayed wrongly.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type Koa from 'koa';
import helmet from 'koa-helmet';

/** One step of helmet's on a response: set a header to a value, or remove it. */
type HeaderStep = readonly [name: string, value: string | undefined];

/** The steps helmet takes on every response, with the service's options. */
async function recordHelmet(): Promise<HeaderStep[]> {
  const steps: HeaderStep[] = [];
  const recorder = {
    setHeader(name: string, value: unknown) {
      if (typeof value !== 'string') throw new Error(`helmet set ${name} to a value that is not a string`);
      steps.push([name, value]);
    },
    removeHeader(name: string) {
      steps.push([name, undefined]);
    },
  };
  const req = new Proxy({}, { get: (_, key) => fail(`request.${String(key)}`) }) as IncomingMessage;
  const res = new Proxy(recorder, {
    get: (target, key) => (key in target ? target[key as keyof typeof target] : fail(`response.${String(key)}`)),
  }) as unknown as ServerResponse;
  const middleware = helmet({ contentSecurityPolicy: { directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } } });
  await middleware({ req, res } as Koa.Context, async () => undefined);
  return steps;
}

function fail(what: string): never {
  throw new Error(`helmet read ${what}: its headers would depend on the request, so they cannot be set once for all`);
}

/** Sets helmet's headers, worked out once (above), on every answer before the rest of the chain runs. */
export async function securityHeaders(): Promise<Koa.Middleware> {
  const steps = await recordHelmet();
  return (ctx, next) => {
    const res = ctx.res;
    for (const [name, value] of steps) {
      if (value === undefined) res.removeHeader(name);
      else res.setHeader(name, value);
    }
    return next();
  };
}

/**
 * The security headers of every answer (docs/security.md, "Pages, exports and headers"): helmet's,
 * with our Content-Security-Policy. helmet decides them from its options alone (no directive of
 * ours is a function of the request), so they are worked out once, at start-up, by running
 * koa-helmet's middleware against a response that records what it is told; each request then only
 * sets the recorded fields. koa-helmet itself wraps helmet's twelve middleware in a promise per
 * request (about 1.5 % of a with-values request's own CPU in the bench's profiles).
 */
import type Koa from 'koa';
import helmet from 'koa-helmet';

/** One header helmet sets (a value) or removes (undefined: X-Powered-By). */
type Recorded = [name: string, value: string | undefined];

/** The headers helmet gives an answer with these options, in the order it sets them. */
async function recordHelmet(options: Parameters<typeof helmet>[0]): Promise<Recorded[]> {
  const recorded: Recorded[] = [];
  const res = {
    setHeader: (name: string, value: string) => recorded.push([name, String(value)]),
    removeHeader: (name: string) => recorded.push([name, undefined]),
  };
  const req = { method: 'GET', url: '/', headers: {} };
  await helmet(options)({ req, res } as unknown as Koa.Context, async () => undefined);
  return recorded;
}

export async function securityHeaders(options: Parameters<typeof helmet>[0]): Promise<Koa.Middleware> {
  const recorded = await recordHelmet(options);
  return (ctx, next) => {
    const res = ctx.res;
    for (const [name, value] of recorded) {
      if (value === undefined) res.removeHeader(name);
      else res.setHeader(name, value);
    }
    return next();
  };
}

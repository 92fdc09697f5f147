/**
 * Absolute URLs (paging links, trailing-slash redirects) never come from an unchecked Host header
 * (docs/decisions.md, "People and deployment"): a client that sends `Host: evil.example` must not make the service hand out
 * `http://evil.example/…` links (cache poisoning; a client following `next` would send its token
 * there). With PUBLIC_URL set, only PUBLIC_URL is used and the Host header does not matter. Without
 * it (development), a request whose host is not a loopback address, `localhost` or a name listed in
 * ALLOWED_HOSTS is refused with 400 before anything else looks at it.
 */
import type Koa from 'koa';

/** The host name of a Host value, lower case, without its port (an IPv6 literal keeps its brackets). */
export function hostNameOf(host: string): string {
  const lower = host.trim().toLowerCase();
  if (lower.startsWith('[')) return lower.slice(0, lower.indexOf(']') + 1);
  return lower.replace(/:\d*$/, '');
}

/** 127.0.0.0/8, ::1 and localhost: names that can only reach the machine itself. */
export function isLoopbackHost(name: string): boolean {
  return name === 'localhost' || name === '[::1]' || /^127(\.\d{1,3}){3}$/.test(name);
}

export const UNKNOWN_HOST = 'This service does not answer to the host name in the request. An operator sets PUBLIC_URL, or lists the name in ALLOWED_HOSTS.';

/**
 * Refuses requests for hosts the service does not answer to (nothing to check when `publicUrl` is
 * set). `refuse` answers the refusal in the form the path's document requires (400 either way).
 */
export function checkHost(options: { publicUrl: string | undefined; allowedHosts: string[]; refuse: (ctx: Koa.Context) => void }): Koa.Middleware {
  const allowed = new Set(options.allowedHosts);
  return async (ctx, next) => {
    if (options.publicUrl === undefined) {
      // ctx.host is the X-Forwarded-Host with a trusted proxy: the value absolute URLs would use.
      const name = hostNameOf(ctx.host);
      if (!isLoopbackHost(name) && !allowed.has(name)) return options.refuse(ctx);
    }
    await next();
  };
}

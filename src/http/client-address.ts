/**
 * The client's address: the one place it is worked out. Every limit (the API rate limit, the
 * sign-in and sign-up throttles) and every request log line reads it from here.
 *
 * Without a trusted proxy it is the TCP peer. With TRUST_PROXY=N, N proxies in front of the service
 * each append the address they received the request from to X-Forwarded-For, so the right-most
 * entries are theirs and everything to the left of them was written by the client. The address
 * the outermost trusted proxy saw is the N-th entry from the right. (Koa's own `ctx.ip` takes the
 * left-most entry, which the client chooses, unless told how many to keep; app.ts tells it, but
 * nothing reads it for a decision.)
 */
import type Koa from 'koa';

/** The forwarded-for entries of all X-Forwarded-For headers, in order (several headers are one list). */
function forwardedFor(ctx: Koa.Context): string[] {
  const raw = ctx.req.headers['x-forwarded-for'];
  const joined = Array.isArray(raw) ? raw.join(',') : (raw ?? '');
  return joined
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
}

/** `::ffff:1.2.3.4` (an IPv4 peer on a dual-stack socket) is 1.2.3.4. */
function plain(address: string): string {
  return address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
}

/** Works out the client's address of a request, trusting `hops` proxies. */
export function computeClientAddress(ctx: Koa.Context, hops: number): string {
  const peer = plain(ctx.req.socket.remoteAddress ?? '');
  if (hops <= 0) return peer;
  const entries = forwardedFor(ctx);
  if (entries.length === 0) return peer;
  // Fewer entries than hops: the request skipped a proxy; the left-most is the best there is.
  return plain(entries[Math.max(0, entries.length - hops)]).slice(0, 100);
}

/** The client's address of this request (see the module comment), as the request context recorded it. */
export function clientAddress(ctx: Koa.Context): string {
  return ctx.state.clientAddress ?? computeClientAddress(ctx, 0);
}

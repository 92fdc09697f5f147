/**
 * The documents and their Redoc pages name the instance that serves them (docs/decisions.md,
 * "Documents name their own address"). The committed documents keep the placeholder
 * `https://daybook.example.org` (servers, code samples, the quick start, example links); on the
 * way out it becomes PUBLIC_URL, or, without it (development), the request's checked origin
 * (host-check.ts refused any other host before this runs). The replaced texts are kept per origin,
 * so that a 2.5 MB page is rewritten once, not on every request.
 */
import type Koa from 'koa';
import { HttpError } from './errors';
import { publicBaseUrl } from './urls';

/** The origin the committed documents name in place of the instance's. */
export const PLACEHOLDER_ORIGIN = 'https://daybook.example.org';

/** A request's origin that is safe to write into JSON strings and inline scripts as it is. */
const PLAIN_ORIGIN = /^https?:\/\/[a-z0-9.\-[\]:]+$/i;

/**
 * The base URL served documents name: PUBLIC_URL (its path kept, without a final slash), else the
 * request's origin. The origin goes into JSON strings and inline scripts, so a Host header the host
 * check let through with anything but a host name, an address and a port in it is refused.
 */
export function ownAddress(ctx: Koa.Context): string {
  const configured = ctx.state.publicUrl;
  if (configured !== undefined) {
    const url = new URL(configured); // checked when the configuration was read (config.ts)
    return url.origin + url.pathname.replace(/\/+$/, '');
  }
  const origin = publicBaseUrl(ctx);
  if (!PLAIN_ORIGIN.test(origin)) throw new HttpError(400, "The host name of this request cannot name the documents' server.");
  return origin;
}

/** `text` with every mention of the placeholder origin naming `address` instead. */
export function withOwnAddress(text: string, address: string): string {
  return text.split(PLACEHOLDER_ORIGIN).join(address);
}

/**
 * A small cache of texts made once per key (an origin and a document), forgetting the least
 * recently used past `limit`: in development each loopback port is an origin, and nothing a client
 * sends may grow memory without bound.
 */
export class RecentTexts {
  private readonly texts = new Map<string, string>();

  constructor(private readonly limit: number) {}

  get(key: string, make: () => string): string {
    let text = this.texts.get(key);
    if (text === undefined) text = make();
    this.texts.delete(key);
    this.texts.set(key, text);
    if (this.texts.size > this.limit) this.texts.delete(this.texts.keys().next().value!);
    return text;
  }
}

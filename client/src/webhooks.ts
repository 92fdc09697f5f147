/**
 * Verifying a Daybook webhook on the receiving side, as the v2 document's Webhooks tag describes
 * (the Standard Webhooks convention): the `webhook-signature` header holds one or more
 * `v1,<base64 HMAC-SHA256>` of `<webhook-id>.<webhook-timestamp>.<raw body>`, keyed with the
 * base64-decoded part of the endpoint's secret after `whsec_`. Pass the body exactly as received
 * (the raw text, before any JSON parsing).
 */
import crypto from 'node:crypto';
import type { webhooks } from './generated/v2';

type BodyOf<W extends keyof webhooks> = webhooks[W] extends { post: { requestBody: { content: { 'application/json': infer B } } } } ? B : never;

/** Every event Daybook sends, discriminated by `type`. */
export type WebhookEvent = { [W in keyof webhooks]: BodyOf<W> }[keyof webhooks];

export type WebhookVerification = { ok: true; id: string; event: WebhookEvent } | { ok: false; reason: string };

export interface VerifyOptions {
  /** How old (or how far in the future) a timestamp may be, in seconds (default 300: refuses replays). */
  toleranceSeconds?: number;
  /** The clock (default: now). */
  now?: Date;
}

type HeaderBag = Headers | Record<string, string | string[] | undefined>;

function header(headers: HeaderBag, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const bag = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(bag).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : bag[key];
  return Array.isArray(value) ? value[0] : value;
}

/** Checks a received webhook's signature and age; answers the parsed event when it is genuine. */
export function verifyWebhook(secret: string, headers: HeaderBag, body: string | Buffer, options: VerifyOptions = {}): WebhookVerification {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures) return { ok: false, reason: 'missing webhook-id, webhook-timestamp or webhook-signature' };
  if (!/^\d+$/.test(timestamp)) return { ok: false, reason: 'webhook-timestamp is not a number of seconds' };
  const nowSeconds = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (Math.abs(nowSeconds - Number(timestamp)) > (options.toleranceSeconds ?? 300)) return { ok: false, reason: 'webhook-timestamp is too old or too new' };
  const text = typeof body === 'string' ? body : body.toString('utf8');
  const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
  const expected = crypto.createHmac('sha256', key).update(`${id}.${timestamp}.${text}`).digest();
  const matches = signatures.split(' ').some((candidate) => {
    const [version, value] = candidate.split(',', 2);
    if (version !== 'v1' || !value) return false;
    const given = Buffer.from(value, 'base64');
    return given.length === expected.length && crypto.timingSafeEqual(given, expected);
  });
  if (!matches) return { ok: false, reason: 'no signature matches the secret' };
  try {
    return { ok: true, id, event: JSON.parse(text) as WebhookEvent };
  } catch {
    return { ok: false, reason: 'the body is not JSON' };
  }
}

/**
 * Which endpoint URLs Daybook may call (docs/webhooks.md, "Safety"). A URL is HTTPS, or plain HTTP
 * to a loopback host as for redirect URIs; it has no credentials or fragment. Its host must not
 * resolve to a private, link-local, loopback or otherwise special address: checked when the
 * endpoint is saved, and again at every delivery on the very address connected to (a name that
 * resolved to a public address when saved may resolve to an internal one later). Loopback and
 * private addresses are allowed only with WEBHOOK_ALLOW_PRIVATE_URLS=1 (an operator's explicit
 * choice, never implied by NODE_ENV: docs/security.md, "Webhook URLs"); link-local, reserved and
 * the other special addresses never are.
 */
import dns from 'node:dns/promises';
import net from 'node:net';

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Addresses never called: link-local (cloud metadata services), reserved, multicast, documentation. */
const FORBIDDEN = new net.BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['169.254.0.0', 16],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  FORBIDDEN.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  ['::', 128],
  ['64:ff9b::', 96],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  FORBIDDEN.addSubnet(network, prefix, 'ipv6');
}

/** Loopback, private (RFC 1918, unique local) and shared (carrier-grade NAT) addresses: called only with the setting. */
const PRIVATE = new net.BlockList();
PRIVATE.addSubnet('127.0.0.0', 8, 'ipv4');
PRIVATE.addSubnet('10.0.0.0', 8, 'ipv4');
PRIVATE.addSubnet('100.64.0.0', 10, 'ipv4');
PRIVATE.addSubnet('172.16.0.0', 12, 'ipv4');
PRIVATE.addSubnet('192.168.0.0', 16, 'ipv4');
PRIVATE.addAddress('::1', 'ipv6');
PRIVATE.addSubnet('fc00::', 7, 'ipv6');

/** An IPv4 address written as IPv6 (::ffff:a.b.c.d) is judged as the IPv4 address. */
function unmapped(address: string): { address: string; family: 'ipv4' | 'ipv6' } {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return { address: mapped[1], family: 'ipv4' };
  return { address, family: net.isIPv4(address) ? 'ipv4' : 'ipv6' };
}

/** Why Daybook will not call this address, or undefined when it may. */
export function addressProblem(address: string, allowPrivate: boolean): string | undefined {
  const { address: plain, family } = unmapped(address);
  if (FORBIDDEN.check(plain, family)) return `${address} is a link-local or reserved address.`;
  if (PRIVATE.check(plain, family) && !allowPrivate) return `${address} is a loopback or private address (allowed only with WEBHOOK_ALLOW_PRIVATE_URLS=1).`;
  return undefined;
}

/** The checks that need no name lookup: scheme, form, and a literal address's class. */
export function urlProblem(url: string, allowPrivate: boolean): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `${url} is not an absolute URL.`;
  }
  if (url.length > 2000) return 'The URL is longer than 2000 characters.';
  if (parsed.username || parsed.password) return 'The URL must not contain a user name or password.';
  if (parsed.hash) return 'The URL must not contain a fragment (#…).';
  if (parsed.protocol === 'http:' && !LOOPBACK_HOSTS.has(parsed.hostname)) {
    return `${url} must use https (plain http is allowed only for localhost, 127.0.0.1 and [::1]).`;
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return `${url} must use https.`;
  const literal = parsed.hostname.replace(/^\[|\]$/g, '');
  if (net.isIP(literal)) return addressProblem(literal, allowPrivate);
  if (!allowPrivate && (parsed.hostname === 'localhost' || parsed.hostname.endsWith('.localhost')))
    return `${parsed.hostname} is a loopback host (allowed only with WEBHOOK_ALLOW_PRIVATE_URLS=1).`;
  return undefined;
}

/** Resolves a host name to every address it has (a literal address is itself). */
export async function resolveHost(hostname: string): Promise<Array<{ address: string; family: number }>> {
  const literal = hostname.replace(/^\[|\]$/g, '');
  if (net.isIP(literal)) return [{ address: literal, family: net.isIP(literal) }];
  return dns.lookup(literal, { all: true, verbatim: true });
}

/** The whole check of a URL being saved: its form, and every address its host resolves to now. */
export async function endpointUrlProblem(url: string, allowPrivate: boolean): Promise<string | undefined> {
  const problem = urlProblem(url, allowPrivate);
  if (problem) return problem;
  const { hostname } = new URL(url);
  let addresses: Array<{ address: string }>;
  try {
    addresses = await resolveHost(hostname);
  } catch {
    return `The host ${hostname} could not be resolved.`;
  }
  for (const { address } of addresses) {
    const refused = addressProblem(address, allowPrivate);
    if (refused) return `The host ${hostname} resolves to ${refused.replace(/\.$/, '')}: Daybook does not call internal addresses.`;
  }
  return undefined;
}

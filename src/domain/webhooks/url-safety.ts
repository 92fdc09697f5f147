/**
 * Which endpoint URLs Daybook may call (docs/webhooks.md, "Safety"). A URL is HTTPS, or plain HTTP
 * to a loopback host as for redirect URIs; it has no credentials or fragment. Its host must not
 * resolve to a private, link-local, loopback or otherwise special address: checked when the
 * endpoint is saved, and again at every delivery on the very address connected to (a name that
 * resolved to a public address when saved may resolve to an internal one later). Loopback is
 * allowed outside production, for development and tests.
 */
import dns from 'node:dns/promises';
import net from 'node:net';

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Addresses never called: private, link-local, shared, reserved, multicast, documentation. */
const FORBIDDEN = new net.BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
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
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  FORBIDDEN.addSubnet(network, prefix, 'ipv6');
}

const LOOPBACK = new net.BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** An IPv4 address written as IPv6 (::ffff:a.b.c.d) is judged as the IPv4 address. */
function unmapped(address: string): { address: string; family: 'ipv4' | 'ipv6' } {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return { address: mapped[1], family: 'ipv4' };
  return { address, family: net.isIPv4(address) ? 'ipv4' : 'ipv6' };
}

/** Why Daybook will not call this address, or undefined when it may. */
export function addressProblem(address: string, allowLoopback: boolean): string | undefined {
  const { address: plain, family } = unmapped(address);
  if (LOOPBACK.check(plain, family)) return allowLoopback ? undefined : `${address} is a loopback address.`;
  if (FORBIDDEN.check(plain, family)) return `${address} is a private, link-local or reserved address.`;
  return undefined;
}

/** The checks that need no name lookup: scheme, form, and a literal address's class. */
export function urlProblem(url: string, allowLoopback: boolean): string | undefined {
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
  if (net.isIP(literal)) return addressProblem(literal, allowLoopback);
  if (!allowLoopback && (parsed.hostname === 'localhost' || parsed.hostname.endsWith('.localhost'))) return `${parsed.hostname} is a loopback host.`;
  return undefined;
}

/** Resolves a host name to every address it has (a literal address is itself). */
export async function resolveHost(hostname: string): Promise<Array<{ address: string; family: number }>> {
  const literal = hostname.replace(/^\[|\]$/g, '');
  if (net.isIP(literal)) return [{ address: literal, family: net.isIP(literal) }];
  return dns.lookup(literal, { all: true, verbatim: true });
}

/** The whole check of a URL being saved: its form, and every address its host resolves to now. */
export async function endpointUrlProblem(url: string, allowLoopback: boolean): Promise<string | undefined> {
  const problem = urlProblem(url, allowLoopback);
  if (problem) return problem;
  const { hostname } = new URL(url);
  let addresses: Array<{ address: string }>;
  try {
    addresses = await resolveHost(hostname);
  } catch {
    return `The host ${hostname} could not be resolved.`;
  }
  for (const { address } of addresses) {
    const refused = addressProblem(address, allowLoopback);
    if (refused) return `The host ${hostname} resolves to ${refused.replace(/\.$/, '')}: Daybook does not call internal addresses.`;
  }
  return undefined;
}

/**
 * Known addresses (docs/security.md, "Throttles and lock-out"): the networks from which an account
 * has proved its password (a sign-in or the sign-up) in the last KNOWN_ADDRESS_LIFETIME_SECONDS.
 * The account-wide delay does not hold back an attempt from one of them, so whoever floods an
 * account with wrong passwords from elsewhere cannot keep its owner out of a new browser at home,
 * or her script on its usual server, both of which have no device cookie. Such an address is still
 * held to its own limits (five failures per account in 15 minutes, twenty across accounts), and it
 * stops being known, for the account-wide delay, once it has made five failures of its own for the
 * account in the delay's hour: someone sharing the owner's network guesses no faster than anyone.
 *
 * A network is the address itself for IPv4, and its /64 prefix for IPv6 (a household's or a
 * server's network; the device's own part of an IPv6 address changes every day with privacy
 * addresses, RFC 8981).
 */
import net from 'node:net';
import type { Knex } from 'knex';
import { knexRaw, sql } from '../../db/sql';

/** How long a network stays known after the account last proved its password from it. */
export const KNOWN_ADDRESS_LIFETIME_SECONDS = 90 * 24 * 60 * 60;

/** The 16-bit groups of a valid IPv6 address, all eight (an embedded IPv4 tail counts as two). */
function ipv6Groups(address: string): number[] {
  const [head, tail] = address.split('%')[0].split('::');
  const groups = (part: string | undefined) => (part ? part.split(':').flatMap((group) => (group.includes('.') ? [0, 0] : [Number.parseInt(group, 16)])) : []);
  const left = groups(head);
  const right = groups(tail);
  return [...left, ...Array<number>(Math.max(0, 8 - left.length - right.length)).fill(0), ...right];
}

/** The network an address is known by: an IPv4 address itself, an IPv6 address's /64 prefix. */
export function networkOf(address: string): string {
  if (!net.isIPv6(address)) return address;
  const prefix = ipv6Groups(address).slice(0, 4);
  return `${prefix.map((group) => group.toString(16)).join(':')}::/64`;
}

/**
 * Whether `address` is a known address of the account now: the account proved its password from
 * its network within the lifetime, and it has made fewer than `ownFailuresAllowed` failures for the
 * account since `failuresSince`.
 */
export async function isKnownAddress(
  db: Knex,
  input: { account: string; address: string; now: Date; failuresSince: Date; ownFailuresAllowed: number },
): Promise<boolean> {
  const { account, address, now, failuresSince, ownFailuresAllowed } = input;
  const provedAfter = new Date(now.getTime() - KNOWN_ADDRESS_LIFETIME_SECONDS * 1000);
  const result = (await db.raw(
    ...knexRaw(sql`select exists (
        select 1 from sign_in_known_addresses
         where account_key = ${account} and network = ${networkOf(address)} and proved_at > ${provedAfter}
      ) and (
        select count(*) from throttle_events
         where kind = 'sign_in_failure' and account_key = ${account} and address = ${address} and at > ${failuresSince}
      ) < ${ownFailuresAllowed}::int as known`),
  )) as { rows: Array<{ known: boolean }> };
  return result.rows[0].known;
}

/**
 * Records that the account proved its password from `address` now (renewing its network), and
 * forgets the account's other networks that have not proved it within the lifetime (the renewed one
 * is left out of the delete: one statement may not both delete and update a row).
 */
export async function rememberKnownAddress(db: Knex, input: { account: string; address: string; now: Date }): Promise<void> {
  const { account, address, now } = input;
  const expired = new Date(now.getTime() - KNOWN_ADDRESS_LIFETIME_SECONDS * 1000);
  await db.raw(
    ...knexRaw(sql`with forgotten as (
        delete from sign_in_known_addresses
         where account_key = ${account} and proved_at <= ${expired} and network <> ${networkOf(address)}
      )
      insert into sign_in_known_addresses (account_key, network, proved_at)
      values (${account}, ${networkOf(address)}, ${now})
      on conflict (account_key, network) do update set proved_at = greatest(sign_in_known_addresses.proved_at, excluded.proved_at)`),
  );
}

/**
 * The locks that make the sign-in and sign-up throttles exact under bursts (docs/security.md,
 * "Throttles and lock-out"). A throttle counts what is recorded and then decides; two parallel
 * attempts that both counted before either recorded would both be let through. So each attempt
 * takes the transaction-level advisory locks of its keys first, then counts, decides and records
 * its attempt in the same transaction: the next attempt on the same key waits for that commit and
 * counts it. The locks last only as long as that transaction (a few milliseconds, no password
 * check inside), and every instance shares them, since they live in PostgreSQL.
 *
 * Keys are 32-bit hashes (`hashtext`) of the account key or address within a namespace of their
 * own (src/db/advisory-locks.ts): two keys that happen to share a hash merely wait for each other.
 * An attempt takes its account's lock before its address's, and nothing takes them the other way
 * round, so two attempts never wait on each other in a cycle.
 */
import type { Knex } from 'knex';
import { ADVISORY_LOCKS } from '../../db/advisory-locks';
import { inTransaction, sql } from '../../db/sql';

async function lockKey(trx: Knex.Transaction, namespace: number, key: string): Promise<void> {
  await inTransaction(trx, sql`select pg_advisory_xact_lock(${namespace}::int, hashtext(${key}::text))::text as held`);
}

/** Holds, until `trx` ends, the sign-in locks of the account and of the address (in that order). */
export async function lockSignInKeys(trx: Knex.Transaction, account: string, address: string): Promise<void> {
  await lockKey(trx, ADVISORY_LOCKS.signInAccount, account);
  await lockKey(trx, ADVISORY_LOCKS.signInAddress, address);
}

/** Holds, until `trx` ends, the sign-up lock of the address. */
export async function lockSignUpAddress(trx: Knex.Transaction, address: string): Promise<void> {
  await lockKey(trx, ADVISORY_LOCKS.signUpAddress, address);
}

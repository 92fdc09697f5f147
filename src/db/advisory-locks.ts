/**
 * Every PostgreSQL advisory lock the service takes, named in one list so that no two uses share a
 * key, and the one helper for a session-level lock held while some work runs.
 *
 * Single-key session locks (`pg_advisory_lock(bigint)`) serialise start-up work between instances;
 * two-key transaction locks (`pg_advisory_xact_lock(int, int)`) use the first key as a namespace.
 */
import type { Knex } from 'knex';

export const ADVISORY_LOCKS = {
  /** Session lock: "apply the schema migrations" (db/migrate.ts). */
  migration: 7_302_118_001,
  /** Session lock: "create the job queues" (jobs/queues.ts). */
  queueSetup: 7_302_118_002,
  /** Namespace of the per-person transaction locks of derived data (analytics/derive.ts). */
  derivedData: 730_211_802,
  /** Namespace of the per-day transaction locks of value writes (domain/tracking/writes/day-locks.ts). */
  dayLocks: 730_211_803,
  /** Namespace of the per-account transaction locks of sign-in attempts (domain/identity/throttle-locks.ts). */
  signInAccount: 730_211_804,
  /** Namespace of the per-address transaction locks of sign-in attempts (domain/identity/throttle-locks.ts). */
  signInAddress: 730_211_805,
  /** Namespace of the per-address transaction locks of sign-up attempts (domain/identity/throttle-locks.ts). */
  signUpAddress: 730_211_806,
} as const;

/**
 * Runs `work` while holding the session-level advisory lock `key`, on a pooled connection of its
 * own (so the pool needs at least two): instances starting together wait for each other, and a
 * crashed instance's lock dies with its connection.
 */
export async function withSessionLock<T>(knex: Knex, key: number, work: () => Promise<T>): Promise<T> {
  const connection: unknown = await knex.client.acquireConnection();
  try {
    await knex.raw('select pg_advisory_lock(?)', [key]).connection(connection);
    try {
      return await work();
    } finally {
      await knex.raw('select pg_advisory_unlock(?)', [key]).connection(connection);
    }
  } finally {
    await knex.client.releaseConnection(connection);
  }
}

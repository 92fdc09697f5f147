/**
 * The callers of the bench: one OAuth2 service ("Daybook bench service", owned by a `bench_owner`
 * account) connected to many of the dataset's users, each with an access token carrying every
 * version 2 scope, made through the domain functions (createUser, createClient, issueTokens).
 * Tokens are spread evenly over the users so that per-token rate limits and per-user rows are
 * shared as they would be by real traffic; the writes go to attributes the service acquired.
 */
import crypto from 'node:crypto';
import { createKnex } from '../../src/db/knex';
import { createUser, findUserByUsername } from '../../src/domain/identity/users';
import { createClient, listClientsOwnedBy } from '../../src/domain/apps-and-grants/clients';
import { issueTokens } from '../../src/domain/apps-and-grants/tokens';
import { V2_SCOPE_NAMES } from '../../src/domain/apps-and-grants/scopes';
import { hashCredential } from '../../src/domain/identity/credentials';
import { progressBar } from './progress';

export interface BenchToken {
  token: string;
  userId: number;
  /** The user's time zone (every bench user is on UTC). */
  timezone: string;
}

export interface Fixtures {
  /** `oauth_clients.id` and `client_id` of the bench service. */
  clientPk: number;
  clientId: string;
  tokens: BenchToken[];
  /** A token of the first user that was revoked after it was issued (the check phase: both servers refuse it). */
  revokedToken: string;
}

const OWNER = 'bench_owner';
export const CLIENT_NAME = 'Daybook bench service';

/** The attributes the bench service acquires for every token user and writes to (5 x 7 days = 35 items). */
export const WRITE_ATTRIBUTES = ['steps', 'water', 'coffees', 'productive_min', 'tasks_completed'] as const;

/** Creates (or finds) the bench service and issues `count` tokens spread over the dataset's users. */
export async function createFixtures(url: string, count: number, now: Date): Promise<Fixtures> {
  const db = createKnex(url, { pool: { min: 0, max: 4 } });
  try {
    const owner =
      (await findUserByUsername(db, OWNER)) ??
      (await createUser(db, { username: OWNER, password: crypto.randomBytes(18).toString('base64url') }, crypto.randomBytes(36).toString('base64url'))).user;
    const client =
      (await listClientsOwnedBy(db, owner.id)).find((c) => c.name === CLIENT_NAME) ??
      (await createClient(db, { ownerUserId: owner.id, name: CLIENT_NAME, redirectUris: ['http://127.0.0.1/callback'], scopes: [...V2_SCOPE_NAMES] })).client;
    const users: Array<{ id: number; timezone: string }> = await db('users')
      .whereLike('username', 'bench\\_%')
      .whereNot('username', OWNER)
      .orderBy('id')
      .select('id', 'timezone');
    if (users.length === 0) throw new Error('The dataset has no users.');
    const picked = Array.from({ length: Math.min(count, users.length) }, (_, i) => users[Math.floor((i * users.length) / Math.min(count, users.length))]);
    const bar = progressBar('tokens', picked.length);
    const tokens: BenchToken[] = [];
    for (const user of picked) {
      const issued = await issueTokens(db, { userId: user.id, clientPk: client.id, scopes: [...V2_SCOPE_NAMES], now });
      tokens.push({ token: issued.access_token, userId: user.id, timezone: user.timezone });
      bar.increment();
    }
    bar.stop();
    const revokedToken = (await issueTokens(db, { userId: picked[0].id, clientPk: client.id, scopes: [...V2_SCOPE_NAMES], now })).access_token;
    await db('tokens')
      .where({ access_hash: hashCredential(revokedToken) })
      .update({ revoked_at: now });
    return { clientPk: client.id, clientId: client.client_id, tokens, revokedToken };
  } finally {
    await db.destroy();
  }
}

/**
 * `--webhooks`: gives the bench service an enabled webhook endpoint, so that every write records
 * its changes in the webhook outbox (the triggers of the webhooks migration), as it does on a
 * Daybook where some app subscribes. Inserted directly: the URL is never called (the bench runs
 * no workers) and `.invalid` would not pass the address check of createEndpoint.
 */
export async function subscribeBenchService(url: string, clientPk: number): Promise<void> {
  const db = createKnex(url, { pool: { min: 0, max: 1 } });
  try {
    await db('webhook_endpoints').where({ public_id: 'ep_bench' }).delete();
    await db('webhook_endpoints').insert({
      public_id: 'ep_bench',
      client_pk: clientPk,
      url: 'https://bench.invalid/hooks',
      events: ['values.updated', 'attribute.ownership_changed'],
      secret: `whsec_${crypto.randomBytes(32).toString('base64')}`,
    });
  } finally {
    await db.destroy();
  }
}

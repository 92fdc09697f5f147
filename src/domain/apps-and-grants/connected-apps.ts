/**
 * Connected apps: the clients a person has authorised that still hold a live token for them
 * (not revoked, not replaced, not expired). Disconnecting one revokes its tokens at once.
 */
import type { Knex } from 'knex';
import { discardPendingCodes } from './grants';
import { liveToken, revokeClientTokensOfUser } from './tokens';
import { knexRaw, raw } from '../../db/sql';
import { ALL_SCOPE_NAMES } from './scopes';
import { recordGrantRevoked } from '../webhooks/record';

export interface ConnectedApp {
  clientPk: number;
  clientId: string;
  name: string;
  website: string;
  /** The union of the scopes of its live tokens, as granted (v1 names kept). */
  scopes: string[];
  connectedAt: Date;
  /** When one of its tokens was last used on the API, or null when never. */
  lastUsedAt: Date | null;
}

/** The person's connected apps, most recently used first. */
export async function listConnectedApps(db: Knex, userId: number, now: Date): Promise<ConnectedApp[]> {
  const rows = await db('tokens as t')
    .join('oauth_clients as c', 'c.id', 't.client_pk')
    .where('t.user_id', userId)
    .whereRaw(...knexRaw(liveToken(raw('t'), now)))
    .select('c.id', 'c.client_id', 'c.name', 'c.website', 't.scopes', 't.created_at', 't.last_used_at');
  const apps = new Map<number, ConnectedApp>();
  for (const row of rows) {
    const app = apps.get(row.id) ?? {
      clientPk: row.id,
      clientId: row.client_id,
      name: row.name,
      website: row.website,
      scopes: [] as string[],
      connectedAt: new Date(row.created_at),
      lastUsedAt: null,
    };
    for (const scope of row.scopes as string[]) if (!app.scopes.includes(scope)) app.scopes.push(scope);
    if (new Date(row.created_at) < app.connectedAt) app.connectedAt = new Date(row.created_at);
    if (row.last_used_at && (!app.lastUsedAt || new Date(row.last_used_at) > app.lastUsedAt)) app.lastUsedAt = new Date(row.last_used_at);
    apps.set(row.id, app);
  }
  const order = (scope: string) => ALL_SCOPE_NAMES.indexOf(scope);
  return [...apps.values()]
    .map((app) => ({ ...app, scopes: app.scopes.sort((a, b) => order(a) - order(b)) }))
    .sort((a, b) => (b.lastUsedAt?.getTime() ?? 0) - (a.lastUsedAt?.getTime() ?? 0) || b.connectedAt.getTime() - a.connectedAt.getTime());
}

/**
 * Disconnects every app of the person at once (their password changed and they chose to), the way
 * `disconnectApp` does one: in the caller's transaction, every token revoked, every code not yet
 * exchanged discarded, `grant.revoked` recorded for each app that was connected. Codes go first and
 * the token rows are locked before the update, so an exchange or a refresh running now finishes
 * first and the pair it made is revoked too (as in revocation.ts). Answers the apps' names.
 */
export async function disconnectEveryApp(trx: Knex.Transaction, userId: number, now: Date): Promise<string[]> {
  await trx('authorisation_codes').where({ user_id: userId }).whereNull('used_at').delete();
  await trx('tokens').where({ user_id: userId }).whereNull('revoked_at').forUpdate().select('id');
  const apps = await listConnectedApps(trx, userId, now);
  await trx('tokens').where({ user_id: userId }).whereNull('revoked_at').update({ revoked_at: now });
  for (const app of apps) await recordGrantRevoked(trx, userId, app.clientPk);
  return apps.map((app) => app.name);
}

/**
 * Disconnects an app from the person: every token it holds for them stops working at once. As in
 * `disconnectEveryApp`, codes go first and the token rows are locked before the update: a refresh
 * or exchange running now finishes first, and the update (a new statement, so it sees the pair that
 * refresh made) revokes that pair too.
 */
export async function disconnectApp(db: Knex, userId: number, clientId: string, now: Date): Promise<boolean> {
  const client = await db('oauth_clients').where({ client_id: clientId }).first('id');
  if (!client) return false;
  return db.transaction(async (trx) => {
    await discardPendingCodes(trx, userId, client.id);
    await trx('tokens').where({ user_id: userId, client_pk: client.id }).whereNull('revoked_at').forUpdate().select('id');
    const revoked = await revokeClientTokensOfUser(trx, userId, client.id, now);
    if (revoked > 0) await recordGrantRevoked(trx, userId, client.id);
    return revoked > 0;
  });
}

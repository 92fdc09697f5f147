/**
 * An app revoking one of its own tokens (RFC 7009). Access and refresh tokens are issued in pairs
 * of one grant, so revoking either ends the grant: every token of it stops working at once, on
 * every instance (the update makes new row versions, which the recheck of a remembered credential
 * notices: recent-credentials.ts). A token of another client changes nothing.
 */
import type { Knex } from 'knex';
import { knexRaw, raw } from '../../db/sql';
import { hashCredential } from '../identity/credentials';
import { recordGrantRevoked } from '../webhooks/record';
import { liveToken, revokeGrant } from './tokens';

/**
 * What became of a revocation: `revoked` (the grant had live tokens and has none now),
 * `not_live` (the grant's tokens were already revoked), `unknown` (no such token) or
 * `other_client` (the token is another client's and was left alone). The endpoint answers 200 to
 * all four (RFC 7009 section 2.2).
 */
export type RevocationOutcome = 'revoked' | 'not_live' | 'unknown' | 'other_client';

interface GrantOfToken {
  user_id: number;
  client_pk: number;
  grant_id: string;
}

/**
 * Revokes the grant that `token` (an access or a refresh token, whichever it is; RFC 7009's
 * `token_type_hint` is not needed to find it) belongs to, when it is a token of client `clientPk`.
 * When that leaves the client with no live grant of the person, the person has lost the app as a
 * connected app, as when they disconnect it, and `grant.revoked` is recorded for its webhooks.
 */
export async function revokeTokenOfClient(db: Knex, token: string, clientPk: number, now: Date): Promise<RevocationOutcome> {
  const hash = hashCredential(token);
  return db.transaction(async (trx) => {
    const row: GrantOfToken | undefined = await trx('tokens')
      .where({ access_hash: hash })
      .orWhere({ refresh_hash: hash })
      .first('user_id', 'client_pk', 'grant_id');
    if (!row) return 'unknown';
    if (Number(row.client_pk) !== clientPk) return 'other_client';
    // Lock the grant's rows first: a refresh of the grant running now (which locks its row,
    // grants.ts) finishes before the update below, whose own snapshot then sees the pair the
    // refresh inserted, so that pair is revoked too.
    await trx('tokens').where({ grant_id: row.grant_id }).forUpdate().select('id');
    return (await endGrant(trx, { userId: row.user_id, clientPk, grantId: row.grant_id }, now)) ? 'revoked' : 'not_live';
  });
}

/**
 * Revokes every token of a grant (an app's revocation, a replayed refresh token or code); when it
 * had live tokens and that leaves the client with no live grant of the person, the app is no longer
 * connected, and `grant.revoked` is recorded for its webhooks whoever ended the grant
 * (docs/webhooks.md). Answers whether the grant had live tokens.
 */
export async function endGrant(trx: Knex.Transaction, grant: { userId: number; clientPk: number; grantId: string }, now: Date): Promise<boolean> {
  const revoked = await revokeGrant(trx, grant.grantId, now);
  if (revoked === 0) return false;
  if (!(await holdsLiveToken(trx, grant.userId, grant.clientPk, now))) await recordGrantRevoked(trx, grant.userId, grant.clientPk);
  return true;
}

/** Is the client still connected to the person (a live token of another grant)? */
async function holdsLiveToken(trx: Knex.Transaction, userId: number, clientPk: number, now: Date): Promise<boolean> {
  const live = await trx('tokens as t')
    .where({ 't.user_id': userId, 't.client_pk': clientPk })
    .whereRaw(...knexRaw(liveToken(raw('t'), now)))
    .first('t.id');
  return live !== undefined;
}

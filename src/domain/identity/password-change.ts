/**
 * A new password ends every credential that someone who knew the old one could hold
 * (docs/security.md, "A password change ends credentials"): the person's other sessions, their
 * simple token (a new one is issued; the old one answers 401), and, when they choose, every app's
 * grant. All in one transaction; each change makes new row versions (the person's row, the token
 * rows), so a credential remembered by any instance (recent-credentials.ts) fails its recheck at
 * its next request: the change is effective at once everywhere, with nothing to notify.
 */
import type { Knex } from 'knex';
import { disconnectEveryApp } from '../apps-and-grants/connected-apps';
import { hashPassword } from './credentials';
import { resetSimpleToken, validatePassword } from './users';

export interface PasswordChangeInput {
  userId: number;
  password: string;
  /** The session making the change, which stays (none: every session ends, as for the admin CLI). */
  keepSessionHash?: string;
  /** Revoke the grants of every connected app too (the change-password form's box, on by default). */
  disconnectApps: boolean;
  secretKey: string;
  now: Date;
}

/** What a password change ended, for the page (or the CLI) to say. */
export interface PasswordChange {
  sessionsEnded: number;
  /** The simple token was replaced (always: its old value stops working). */
  simpleTokenReplaced: true;
  /** Names of the apps disconnected (empty when none were connected or the person kept them). */
  appsDisconnected: string[];
}

export async function changePassword(db: Knex, input: PasswordChangeInput): Promise<PasswordChange> {
  validatePassword(input.password);
  // scrypt before the transaction: no locks held while it runs.
  const passwordHash = await hashPassword(input.password);
  return db.transaction(async (trx) => {
    await trx('users').where({ id: input.userId }).update({ password_hash: passwordHash });
    const sessionsEnded: number = await trx('sessions')
      .where({ user_id: input.userId })
      .modify((query) => {
        if (input.keepSessionHash !== undefined) query.whereNot({ id_hash: input.keepSessionHash });
      })
      .delete();
    await resetSimpleToken(trx, input.userId, input.secretKey);
    const appsDisconnected = input.disconnectApps ? await disconnectEveryApp(trx, input.userId, input.now) : [];
    return { sessionsEnded, simpleTokenReplaced: true, appsDisconnected };
  });
}

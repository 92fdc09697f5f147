/**
 * Grants: what a person's consent produces and how it is redeemed. An authorisation code (single
 * use, 10 minutes) becomes the first access + refresh token pair of a grant; each refresh replaces
 * the pair with a new one of the same grant. Reusing a code or replaying a replaced refresh token
 * revokes the whole grant (RFC 6749 section 4.1.2, RFC 9700 section 4.14.2), except a refresh
 * retried by its client within the leeway (refresh-retry.ts), which gets the same new pair again.
 *
 * The protocol checks (client binding, redirect URI, PKCE, scope narrowing) are the OAuth grant
 * modules' business: they pass them in as `check`, run inside the same transaction as the row lock.
 */
import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { hashCredential, newSecret } from '../identity/credentials';
import { issueTokens, type TokenResponse } from './tokens';
import { endGrant } from './revocation';
import { isPastLimit } from './quota';
import { formatScopes } from './scopes';
import { openSuccessor, sealSuccessor, withinLeeway } from './refresh-retry';
import { countGrantRefresh, type Budget } from './token-budgets';

/** Codes are exchanged within 10 minutes of being issued. */
export const CODE_LIFETIME_MS = 10 * 60 * 1000;

export interface StoredCode {
  user_id: number;
  code_hash: string;
  client_pk: number;
  redirect_uri: string;
  scopes: string[];
  code_challenge: string | null;
  code_challenge_method: string | null;
  grant_id: string;
  expires_at: Date;
  used_at: Date | null;
}

export interface StoredToken {
  id: number;
  user_id: number;
  client_pk: number;
  grant_id: string;
  scopes: string[];
  refresh_expires_at: Date | null;
  access_expires_at: Date;
  revoked_at: Date | null;
  replaced_at: Date | null;
  /** The pair that replaced this one, sealed under this pair's refresh token (refresh-retry.ts); only within the leeway. */
  successor_sealed: Buffer | null;
}

/** Issues a code for the person's consent and returns it (stored only as a hash). */
export async function issueAuthorisationCode(
  db: Knex,
  input: { userId: number; clientPk: number; redirectUri: string; scopes: string[]; codeChallenge?: string; now: Date },
): Promise<string> {
  const code = newSecret();
  await db('authorisation_codes').insert({
    user_id: input.userId,
    code_hash: hashCredential(code),
    client_pk: input.clientPk,
    redirect_uri: input.redirectUri,
    scopes: input.scopes,
    code_challenge: input.codeChallenge ?? null,
    code_challenge_method: input.codeChallenge ? 'S256' : null,
    grant_id: crypto.randomUUID(),
    expires_at: new Date(input.now.getTime() + CODE_LIFETIME_MS),
    created_at: input.now,
  });
  return code;
}

export type CodeProblem =
  | 'unknown'
  | 'reused'
  | 'expired'
  | 'wrong_client'
  | 'wrong_redirect_uri'
  | 'redirect_uri_unregistered'
  | 'scope_no_longer_allowed'
  | 'verifier_missing'
  | 'verifier_mismatch'
  | 'verifier_unexpected';

/**
 * The one failure that leaves a code usable: a `redirect_uri` that is not the authorisation
 * request's. It is the client's slip (a trailing slash, another registered URI), it is checked
 * before the PKCE verifier so it tells an attacker nothing, and the corrected retry should work, as
 * at most servers (docs/security.md, "Codes"). Every other failure burns the code: a verifier
 * guessed wrong must not get another try.
 */
const KEEPS_CODE: ReadonlySet<CodeProblem> = new Set(['wrong_redirect_uri']);

/**
 * Redeems a code for the client `clientPk`: single use (a second use by its client revokes what
 * the first produced), unexpired, and accepted by `check`; any failure after the code is found
 * burns it, except the ones in KEEPS_CODE. A code presented by another client changes nothing (RFC 9700 section 4.14.2: only the
 * rightful client's replay may revoke; otherwise a client that learnt a used code could revoke
 * another app's grant). Returns the grant's first token pair.
 */
export async function redeemAuthorisationCode(
  db: Knex,
  code: string,
  now: Date,
  clientPk: number,
  check: (row: StoredCode) => CodeProblem | undefined,
): Promise<{ tokens: TokenResponse } | { problem: CodeProblem }> {
  return db.transaction(async (trx) => {
    const row: StoredCode | undefined = await trx('authorisation_codes')
      .where({ code_hash: hashCredential(code) })
      .forUpdate()
      .first();
    if (!row) return { problem: 'unknown' as const };
    if (row.client_pk !== clientPk) return { problem: 'wrong_client' as const };
    if (row.used_at) {
      await endGrant(trx, { userId: row.user_id, clientPk: row.client_pk, grantId: row.grant_id }, now);
      return { problem: 'reused' as const };
    }
    const problem: CodeProblem | undefined = new Date(row.expires_at).getTime() <= now.getTime() ? 'expired' : check(row);
    if (problem && KEEPS_CODE.has(problem)) return { problem };
    await trx('authorisation_codes').where({ code_hash: row.code_hash }).update({ used_at: now });
    if (problem) return { problem };
    const tokens = await issueTokens(trx, { userId: row.user_id, clientPk: row.client_pk, scopes: row.scopes, grantId: row.grant_id, now });
    return { tokens };
  });
}

export type RefreshProblem = 'unknown' | 'revoked' | 'replayed' | 'expired' | 'wrong_client' | 'scope_no_longer_allowed' | { beyondGrant: string[] };

/** What a refresh may answer: a pair, a problem, or the grant's refresh budget spent until `until` (epoch ms). */
export type RefreshOutcome = { tokens: TokenResponse } | { problem: RefreshProblem } | { limited: { until: number } };

type RefreshCheck = (row: StoredToken, allowedScopes: string[]) => { scopes: string[] } | { problem: RefreshProblem };

/**
 * The answer to a retry within the leeway (refresh-retry.ts): the pair that replaced `row`'s, the
 * same tokens, when that pair is still the grant's live one and the retry decides the same scopes
 * (a retry repeats its request). Anything else is a replay.
 */
async function retriedAnswer(trx: Knex.Transaction, row: StoredToken, refreshToken: string, scopes: string[], now: Date): Promise<TokenResponse | undefined> {
  if (!row.replaced_at || !row.successor_sealed || !withinLeeway(row.replaced_at, now)) return undefined;
  const pair = openSuccessor(refreshToken, row.successor_sealed);
  if (!pair) return undefined;
  const successor: StoredToken | undefined = await trx('tokens')
    .where({ refresh_hash: hashCredential(pair.refresh_token), grant_id: row.grant_id })
    .forUpdate()
    .first();
  if (!successor || successor.revoked_at || successor.replaced_at) return undefined;
  if (formatScopes(successor.scopes) !== formatScopes(scopes)) return undefined;
  const secondsLeft = Math.max(0, Math.floor((new Date(successor.access_expires_at).getTime() - now.getTime()) / 1000));
  return { ...pair, token_type: 'Bearer', scope: formatScopes(successor.scopes), expires_in: secondsLeft };
}

/**
 * Exchanges a refresh token of the client `clientPk` for a new pair of the same grant; the old pair
 * stops working at once. Rows are locked, so concurrent refreshes with one token run one after the
 * other: the first replaces the pair, and the others, within the leeway, are answered the same new
 * pair (retriedAnswer). Any other replay of a replaced token by its client, or one after the
 * leeway, revokes the whole grant (RFC 9700 section 4.14.2), as does another client presenting a
 * replaced token; another client presenting a live one changes nothing. Every refresh of a grant that is not revoked counts against the grant's budget; past it,
 * `limited` (a replay still revokes first). `check` decides the scopes of the new pair (or
 * refuses), given the scopes the presenting client may ask for now: its row is share-locked first,
 * so an owner's edit that narrows them (`updateClient`, which locks the row for update and then
 * revokes tokens) happens wholly before or wholly after this refresh.
 */
export async function rotateRefreshToken(
  db: Knex,
  refreshToken: string,
  now: Date,
  clientPk: number,
  check: RefreshCheck,
  grantBudget: Budget,
): Promise<RefreshOutcome> {
  return db.transaction(async (trx): Promise<RefreshOutcome> => {
    const client: { allowed_scopes: string[] } | undefined = await trx('oauth_clients').where({ id: clientPk }).forShare().first('allowed_scopes');
    if (!client) return { problem: 'unknown' };
    const row: StoredToken | undefined = await trx('tokens')
      .where({ refresh_hash: hashCredential(refreshToken) })
      .forUpdate()
      .first();
    if (!row) return { problem: 'unknown' };
    // The client binding first. A live token presented by another client is refused and left
    // alone; one already replaced has left its client (a leak), so the grant ends as on any replay,
    // within the leeway too. Either way the answer reads as `unknown` (docs/security.md, "The
    // refresh leeway").
    if (row.client_pk !== clientPk) {
      if (row.replaced_at && !row.revoked_at) await endGrant(trx, { userId: row.user_id, clientPk: row.client_pk, grantId: row.grant_id }, now);
      return { problem: 'wrong_client' };
    }
    if (row.revoked_at) return { problem: 'revoked' };
    const replay = async (): Promise<RefreshOutcome> => {
      await endGrant(trx, { userId: row.user_id, clientPk: row.client_pk, grantId: row.grant_id }, now);
      return { problem: 'replayed' };
    };
    if (row.replaced_at && !withinLeeway(row.replaced_at, now)) return replay();
    const counted = await countGrantRefresh(trx, row.grant_id, grantBudget, now.getTime());
    if (isPastLimit(counted.points, grantBudget.limit)) return { limited: { until: counted.expire } };
    const decided = check(row, client.allowed_scopes);
    if (row.replaced_at) {
      const again = 'scopes' in decided ? await retriedAnswer(trx, row, refreshToken, decided.scopes, now) : undefined;
      return again ? { tokens: again } : replay();
    }
    const expiry = new Date(row.refresh_expires_at ?? row.access_expires_at);
    if (expiry.getTime() <= now.getTime()) return { problem: 'expired' };
    if ('problem' in decided) return decided;
    const tokens = await issueTokens(trx, { userId: row.user_id, clientPk: row.client_pk, scopes: decided.scopes, grantId: row.grant_id, now });
    // Only the pair just replaced can be retried: the grant's older seals are of no use any more.
    await trx('tokens').where({ grant_id: row.grant_id }).whereNotNull('successor_sealed').update({ successor_sealed: null });
    await trx('tokens')
      .where({ user_id: row.user_id, id: row.id })
      .update({ replaced_at: now, successor_sealed: sealSuccessor(refreshToken, tokens) });
    return { tokens };
  });
}

/** Forgets the codes a client holds for a person that were never exchanged (the person disconnected it). */
export async function discardPendingCodes(db: Knex, userId: number, clientPk: number): Promise<void> {
  await db('authorisation_codes').where({ user_id: userId, client_pk: clientPk }).whereNull('used_at').delete();
}

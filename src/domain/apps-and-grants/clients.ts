/** OAuth2 clients. Each client is also a *service*: its client_id is the service name, its name the label. */
import type { Knex } from 'knex';
import { invalidInput, notFoundError } from '../errors';
import { hashCredential, newSecret } from '../identity/credentials';
import { ALL_SCOPE_NAMES, V2_SCOPE_NAMES, scopesBeyond } from './scopes';
import { issueTokens, revokeGrant, type TokenResponse } from './tokens';

export interface OAuthClient {
  id: number;
  client_id: string;
  name: string;
  description: string;
  website: string;
  owner_user_id: number | null;
  secret_hash: string | null;
  confidential: boolean;
  redirect_uris: string[];
  allowed_scopes: string[];
  builtin: boolean;
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * A registered redirect URI must be an absolute HTTPS URL without a fragment; plain HTTP is
 * allowed only for loopback hosts (any port), for apps under development (RFC 8252).
 */
export function redirectUriProblem(uri: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(uri);
  } catch {
    return `${uri} is not an absolute URL.`;
  }
  if (parsed.hash) return `${uri} must not contain a fragment (#…).`;
  if (parsed.protocol === 'https:') return undefined;
  if (parsed.protocol === 'http:' && LOOPBACK_HOSTS.has(parsed.hostname)) return undefined;
  return `${uri} must use https (plain http is allowed only for localhost, 127.0.0.1 and [::1]).`;
}

/**
 * A loopback redirect URI (`http://127.0.0.1…`, `http://[::1]…`, `http://localhost…`) without its
 * port, else undefined. Written on the string, not on a parsed URL: everything but the port must
 * still match character for character.
 */
function loopbackWithoutPort(uri: string): string | undefined {
  const match = /^(http:\/\/(?:127\.0\.0\.1|\[::1\]|localhost))(?::(\d{1,5}))?([/?].*)?$/s.exec(uri);
  if (!match) return undefined;
  if (match[2] !== undefined && (Number(match[2]) < 1 || Number(match[2]) > 65535)) return undefined;
  return match[1] + (match[3] ?? '');
}

/**
 * Is `uri` one of the registered redirect URIs? Exactly, as RFC 6749 section 3.1.2 and RFC 9700
 * section 2.1 ask, except that a loopback one matches on any port (RFC 8252 section 7.3: a native app
 * listens on whatever port the system gives it); scheme, host, path and query stay exact
 * (docs/decisions.md, "Loopback redirect URIs"). `localhost` counts as loopback, as registration
 * accepts it (RFC 8252 section 8.3 prefers the literal addresses).
 */
export function isRegisteredRedirectUri(registered: readonly string[], uri: string): boolean {
  if (registered.includes(uri)) return true;
  const portless = loopbackWithoutPort(uri);
  return portless !== undefined && registered.some((candidate) => loopbackWithoutPort(candidate) === portless);
}

function websiteUrlProblem(website: string): string | undefined {
  try {
    const parsed = new URL(website);
    if ((parsed.protocol === 'https:' || parsed.protocol === 'http:') && website.length <= 1000) return undefined;
  } catch {
    // falls through
  }
  return `The website ${website} must be a web address starting with https:// (or http://).`;
}

/** What a person chooses for an app, at registration and when editing it (the client type is fixed at registration). */
export interface ClientSettingsInput {
  name: string;
  redirectUris: string[];
  description?: string;
  website?: string;
  /** Defaults to every version 2 scope (registration through the domain without a choice). */
  scopes?: string[];
}

/** Settings that passed every rule, normalised as they are stored. */
export interface ClientSettings {
  name: string;
  description: string;
  website: string;
  redirectUris: string[];
  scopes: string[];
}

/**
 * The rules for an app's settings, the same for registering and for editing: a name of 1 to 100
 * characters, 1 to 20 redirect URIs each passing `redirectUriProblem`, a description of at most
 * 1000 characters, an optional web address, and at least one known scope. Throws a 400 naming the
 * first problem; returns the settings as they are stored.
 */
export function checkClientSettings(input: ClientSettingsInput): ClientSettings {
  const name = input.name.trim();
  if (name.length < 1 || name.length > 100) throw invalidInput('An app name is 1 to 100 characters.');
  if (input.redirectUris.length === 0) throw invalidInput('An app needs at least one redirect URI.');
  for (const uri of input.redirectUris) {
    const problem = redirectUriProblem(uri);
    if (problem) throw invalidInput(problem);
  }
  if (input.redirectUris.length > 20) throw invalidInput('An app has at most 20 redirect URIs.');
  const description = input.description ?? '';
  if (description.length > 1000) throw invalidInput('A description is at most 1000 characters.');
  const website = input.website ?? '';
  const websiteProblem = website ? websiteUrlProblem(website) : undefined;
  if (websiteProblem) throw invalidInput(websiteProblem);
  const scopes = [...new Set(input.scopes ?? V2_SCOPE_NAMES)];
  if (scopes.length === 0) throw invalidInput('Choose at least one scope the app may ask for.');
  const unknown = scopes.filter((s) => !ALL_SCOPE_NAMES.includes(s));
  if (unknown.length > 0) throw invalidInput(`Unknown scopes: ${unknown.join(', ')}.`);
  return { name, description, website, redirectUris: input.redirectUris, scopes };
}

/**
 * Registers a person's app together with a token for the person's own account with the app's
 * scopes (to try the API at once), in one transaction; both secrets are returned once.
 */
export async function registerClientWithOwnerToken(
  db: Knex,
  input: ClientSettingsInput & { ownerUserId: number; confidential?: boolean },
  now: Date,
): Promise<{ client: OAuthClient; clientSecret: string | undefined; ownerToken: TokenResponse }> {
  return db.transaction(async (trx) => {
    const { client, clientSecret } = await createClient(trx, input);
    const ownerToken = await issueTokens(trx, { userId: input.ownerUserId, clientPk: client.id, scopes: client.allowed_scopes, now });
    return { client, clientSecret, ownerToken };
  });
}

/** Registers a client owned by a person; the secret (confidential clients only) is returned once. */
export async function createClient(
  db: Knex,
  input: ClientSettingsInput & { ownerUserId: number; confidential?: boolean },
): Promise<{ client: OAuthClient; clientSecret: string | undefined }> {
  const settings = checkClientSettings(input);
  const confidential = input.confidential ?? true;
  const clientSecret = confidential ? newSecret() : undefined;
  const [client] = await db('oauth_clients')
    .insert({
      client_id: newSecret(16),
      name: settings.name,
      description: settings.description,
      website: settings.website,
      owner_user_id: input.ownerUserId,
      secret_hash: clientSecret ? hashCredential(clientSecret) : null,
      confidential,
      redirect_uris: settings.redirectUris,
      allowed_scopes: settings.scopes,
    })
    .returning('*');
  return { client, clientSecret };
}

/**
 * Changes a person's app: name, description, website, redirect URIs and the scopes it may ask
 * for, under the same rules as registration (`checkClientSettings`). The client type and the
 * secret never change here.
 *
 * Narrowing the scopes revokes every grant of the app whose live token carries a scope the app may
 * no longer ask for: the people consented to a set the app is no longer registered for, so those
 * tokens must not keep it (they authorise again for what the app may still ask). Tokens within the
 * new set keep working. Pending codes need nothing here: the token endpoint checks a code's
 * redirect URI and scopes against the app's registration at the time of the exchange.
 */
export async function updateClient(
  db: Knex,
  client: OAuthClient,
  input: ClientSettingsInput,
  now: Date,
): Promise<{ client: OAuthClient; revokedGrants: number }> {
  const settings = checkClientSettings(input);
  return db.transaction(async (trx) => {
    // Locked and read again: two edits at once must not each narrow from a stale set.
    const current: OAuthClient | undefined = await trx('oauth_clients').where({ id: client.id, builtin: false }).forUpdate().first();
    if (!current) throw notFoundError('This app no longer exists.');
    const [updated] = await trx('oauth_clients')
      .where({ id: current.id })
      .update({
        name: settings.name,
        description: settings.description,
        website: settings.website,
        redirect_uris: settings.redirectUris,
        allowed_scopes: settings.scopes,
      })
      .returning('*');
    const narrowed = scopesBeyond(current.allowed_scopes, settings.scopes).length > 0;
    const revokedGrants = narrowed ? await revokeGrantsBeyondScopes(trx, current.id, settings.scopes, now) : 0;
    return { client: updated, revokedGrants };
  });
}

/**
 * Revokes (with `revokeGrant`) each grant of a client whose live token carries a scope outside
 * `allowedScopes` (compared expanded, so version 1's `read` is covered by every read scope).
 * Returns how many grants were revoked.
 */
async function revokeGrantsBeyondScopes(db: Knex, clientPk: number, allowedScopes: readonly string[], now: Date): Promise<number> {
  const live: Array<{ grant_id: string; scopes: string[] }> = await db('tokens')
    .where({ client_pk: clientPk })
    .whereNull('revoked_at')
    .whereNull('replaced_at')
    .select('grant_id', 'scopes');
  const grants = new Set(live.filter((token) => scopesBeyond(token.scopes, allowedScopes).length > 0).map((token) => token.grant_id));
  for (const grantId of grants) await revokeGrant(db, grantId, now);
  return grants.size;
}

export async function findClientByClientId(db: Knex, clientId: string): Promise<OAuthClient | undefined> {
  // No stored id holds U+0000 (PostgreSQL text cannot), and sending one makes the query fail.
  if (clientId.includes('\u0000')) return undefined;
  return db('oauth_clients').where({ client_id: clientId }).first();
}

/** The apps a person registered, newest first. */
export async function listClientsOwnedBy(db: Knex, ownerUserId: number): Promise<OAuthClient[]> {
  return db('oauth_clients').where({ owner_user_id: ownerUserId, builtin: false }).orderBy('id', 'desc');
}

/** One of the person's own apps by client id, or undefined (someone else's apps are invisible). */
export async function findClientOwnedBy(db: Knex, ownerUserId: number, clientId: string): Promise<OAuthClient | undefined> {
  return db('oauth_clients').where({ owner_user_id: ownerUserId, client_id: clientId, builtin: false }).first();
}

/**
 * Gives a confidential app a new secret, returned once; the old one stops working at once.
 * Tokens already issued stay valid (they are the people's, not the secret's).
 */
export async function rotateClientSecret(db: Knex, client: OAuthClient): Promise<string> {
  if (!client.confidential) throw invalidInput('A public app has no client secret to rotate.');
  const secret = newSecret();
  await db('oauth_clients')
    .where({ id: client.id })
    .update({ secret_hash: hashCredential(secret) });
  return secret;
}

/**
 * Deletes an app: its codes, tokens and service rows go with it (foreign keys cascade), so every
 * token it held stops working at once; attributes it owned are left owned by nobody.
 */
export async function deleteClient(db: Knex, client: OAuthClient): Promise<void> {
  await db('oauth_clients').where({ id: client.id, builtin: false }).delete();
}

/** OAuth2 clients. Each client is also a *service*: its client_id is the service name, its name the label. */
import type { Knex } from 'knex';
import { HttpError } from '../http/errors';
import { hashCredential, newSecret } from './credentials';
import { ALL_SCOPE_NAMES } from './scopes';

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

function websiteUrlProblem(website: string): string | undefined {
  try {
    const parsed = new URL(website);
    if ((parsed.protocol === 'https:' || parsed.protocol === 'http:') && website.length <= 1000) return undefined;
  } catch {
    // falls through
  }
  return `The website ${website} must be a web address starting with https:// (or http://).`;
}

/** Registers a client owned by a person; the secret (confidential clients only) is returned once. */
export async function createClient(
  db: Knex,
  input: {
    ownerUserId: number;
    name: string;
    redirectUris: string[];
    confidential?: boolean;
    description?: string;
    website?: string;
    scopes?: string[];
  },
): Promise<{ client: OAuthClient; clientSecret: string | undefined }> {
  const name = input.name.trim();
  if (name.length < 1 || name.length > 100) throw new HttpError(400, 'An app name is 1 to 100 characters.');
  if (input.redirectUris.length === 0) throw new HttpError(400, 'An app needs at least one redirect URI.');
  for (const uri of input.redirectUris) {
    const problem = redirectUriProblem(uri);
    if (problem) throw new HttpError(400, problem);
  }
  if (input.redirectUris.length > 20) throw new HttpError(400, 'An app has at most 20 redirect URIs.');
  if ((input.description ?? '').length > 1000) throw new HttpError(400, 'A description is at most 1000 characters.');
  const websiteProblem = input.website ? websiteUrlProblem(input.website) : undefined;
  if (websiteProblem) throw new HttpError(400, websiteProblem);
  const scopes = input.scopes ?? ALL_SCOPE_NAMES.filter((s) => s !== 'read' && s !== 'read+write');
  if (scopes.length === 0) throw new HttpError(400, 'Choose at least one scope the app may ask for.');
  const unknown = scopes.filter((s) => !ALL_SCOPE_NAMES.includes(s));
  if (unknown.length > 0) throw new HttpError(400, `Unknown scopes: ${unknown.join(', ')}.`);
  const confidential = input.confidential ?? true;
  const clientSecret = confidential ? newSecret() : undefined;
  const [client] = await db('oauth_clients')
    .insert({
      client_id: newSecret(16),
      name,
      description: input.description ?? '',
      website: input.website ?? '',
      owner_user_id: input.ownerUserId,
      secret_hash: clientSecret ? hashCredential(clientSecret) : null,
      confidential,
      redirect_uris: input.redirectUris,
      allowed_scopes: scopes,
    })
    .returning('*');
  return { client, clientSecret };
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
  if (!client.confidential) throw new HttpError(400, 'A public app has no client secret to rotate.');
  const secret = newSecret();
  await db('oauth_clients').where({ id: client.id }).update({ secret_hash: hashCredential(secret) });
  return secret;
}

/**
 * Deletes an app: its codes, tokens and service rows go with it (foreign keys cascade), so every
 * token it held stops working at once; attributes it owned are left owned by nobody.
 */
export async function deleteClient(db: Knex, client: OAuthClient): Promise<void> {
  await db('oauth_clients').where({ id: client.id, builtin: false }).delete();
}

/** People, apps and credentials for tests, made through the domain functions the service uses. */
import type { TestApp } from './app';
import { createUser, type User } from '../../src/domain/identity/users';
import { createClient, type OAuthClient } from '../../src/domain/apps-and-grants/clients';
import { issueTokens, type TokenResponse } from '../../src/domain/apps-and-grants/tokens';
import { createSession } from '../../src/domain/identity/sessions';

let counter = 0;

export async function makeUser(
  app: TestApp,
  options: { username?: string; timezone?: string } = {},
): Promise<{ user: User; simpleToken: string; password: string }> {
  counter += 1;
  const password = 'correct horse battery staple';
  const { user, simpleToken } = await createUser(
    app.db,
    { username: options.username ?? `person${counter}_${process.pid}`, password, timezone: options.timezone },
    app.deps.secretKey,
  );
  return { user, simpleToken, password };
}

export async function makeClient(app: TestApp, owner: User, name = 'Step Counter'): Promise<{ client: OAuthClient; secret: string | undefined }> {
  const { client, clientSecret } = await createClient(app.db, { ownerUserId: owner.id, name, redirectUris: ['https://client.example.org/callback'] });
  return { client, secret: clientSecret };
}

export async function makeToken(app: TestApp, user: User, client: OAuthClient, scopes: string[], now = app.deps.now()): Promise<TokenResponse> {
  return issueTokens(app.db, { userId: user.id, clientPk: client.id, scopes, now });
}

export async function makeSession(app: TestApp, user: User): Promise<string> {
  return createSession(app.db, user.id, app.deps.now());
}

/**
 * Forgets every failed sign-in and sign-up attempt (the throttles count per account and per
 * address, and all test requests come from one address), for tests that make many on purpose.
 */
export async function resetSignInThrottle(app: Pick<TestApp, 'db'>): Promise<void> {
  await app.db('throttle_events').delete();
}

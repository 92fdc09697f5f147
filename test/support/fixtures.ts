/** People, apps and credentials for tests, made through the domain functions the service uses. */
import type { TestApp } from './app';
import { createUserWithHash, type User } from '../../src/domain/identity/users';
import { hashPassword } from '../../src/domain/identity/credentials';
import { createClient, type OAuthClient } from '../../src/domain/apps-and-grants/clients';
import { issueTokens, type TokenResponse } from '../../src/domain/apps-and-grants/tokens';
import { createSession } from '../../src/domain/identity/sessions';

let counter = 0;

const PASSWORD = 'correct horse battery staple';
/**
 * The one scrypt hash of PASSWORD every test person gets (made once per test worker, by the
 * service's own hashPassword): signing in checks it as any hash, and a person costs no scrypt of
 * their own (about 0.1 s of CPU each, over a thousand people in the suite).
 */
let passwordHash: Promise<string> | undefined;

/** A person with PASSWORD, made through the service's own account creation. */
export async function makeUser(
  app: TestApp,
  options: { username?: string; timezone?: string } = {},
): Promise<{ user: User; simpleToken: string; password: string }> {
  counter += 1;
  passwordHash ??= hashPassword(PASSWORD);
  const { user, simpleToken } = await createUserWithHash(
    app.db,
    { username: options.username ?? `person${counter}_${process.pid}`, passwordHash: await passwordHash, timezone: options.timezone },
    app.deps.secretKey,
  );
  return { user, simpleToken, password: PASSWORD };
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

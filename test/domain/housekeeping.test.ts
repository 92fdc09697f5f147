/**
 * Housekeeping (src/domain/housekeeping.ts) against a real Postgres and the running app: it deletes
 * expired sessions, ended rate-limit windows, grants dead for a month and old codes, and nothing a
 * person or an app can still use or that still protects them: a live session and a live token work
 * as before, the rate-limit count carries on, and the replay of a replaced refresh token or of a
 * used code still revokes its grant. The hourly job runs it.
 */
import { startTestApp, type TestApp } from '../support/app';
import { makeClient, makeSession, makeToken, makeUser } from '../support/fixtures';
import { REDIRECT_URI, tokenRequest } from '../support/web';
import { CODE_RETENTION_MS, GRANT_RETENTION_MS, sweepExpired } from '../../src/domain/housekeeping';
import { createSession } from '../../src/domain/identity/sessions';
import { hashCredential } from '../../src/domain/identity/credentials';
import { issueTokens, revokeGrant } from '../../src/domain/apps-and-grants/tokens';
import { issueAuthorisationCode } from '../../src/domain/apps-and-grants/grants';
import { QUEUES, SCHEDULES, startJobs } from '../../src/jobs/queues';
import { REFRESH_LEEWAY_MS } from '../../src/domain/apps-and-grants/refresh-retry';
import type { User } from '../../src/domain/identity/users';
import type { OAuthClient } from '../../src/domain/apps-and-grants/clients';

const DAY = 24 * 60 * 60 * 1000;
const ago = (ms: number) => new Date(Date.now() - ms);

let app: TestApp;
let person: User;
let client: OAuthClient;
let secret: string;

beforeAll(async () => {
  app = await startTestApp();
  ({ user: person } = await makeUser(app));
  ({ client, secret } = (await makeClient(app, person)) as { client: OAuthClient; secret: string });
});
afterEach(() => {
  app.setNow(undefined);
});
afterAll(async () => {
  await app.close();
});

const credentials = () => ({ client_id: client.client_id, client_secret: secret });
/** The grant a refresh token belongs to. */
async function grantOf(refreshToken: string): Promise<string> {
  return (
    await app
      .db('tokens')
      .where({ refresh_hash: hashCredential(refreshToken) })
      .first('grant_id')
  ).grant_id;
}

/** A grant issued `issuedAgo` ago, revoked `revokedAgo` ago when given; its id. */
async function oldGrant(issuedAgo: number, revokedAgo?: number): Promise<string> {
  const tokens = await issueTokens(app.db, { userId: person.id, clientPk: client.id, scopes: ['mood_read'], now: ago(issuedAgo) });
  const grantId = await grantOf(tokens.refresh_token);
  if (revokedAgo !== undefined) await revokeGrant(app.db, grantId, ago(revokedAgo));
  return grantId;
}

const grantRows = async (grantId: string) => (await app.db('tokens').where({ grant_id: grantId })).length;

test('deletes what has expired and keeps what can still be used or still protects a grant', async () => {
  // Sessions: one live, one expired yesterday.
  const liveSession = await makeSession(app, person);
  const expiredSession = await createSession(app.db, person.id, ago(15 * DAY));

  // A live grant whose first pair was replaced by a refresh (the old refresh token must keep its
  // power to revoke the grant on replay).
  const first = await makeToken(app, person, client, ['mood_read'], ago(10 * DAY));
  const refreshed = await tokenRequest(app, { grant_type: 'refresh_token', refresh_token: first.refresh_token, ...credentials() });
  expect(refreshed.status).toBe(200);
  const liveGrant = await grantOf(refreshed.body.refresh_token);

  // Dead grants: revoked 31 days ago (goes), revoked 29 days ago (stays), expired 35 days ago (goes).
  const revokedLongAgo = await oldGrant(100 * DAY, GRANT_RETENTION_MS + DAY);
  const revokedRecently = await oldGrant(100 * DAY, GRANT_RETENTION_MS - DAY);
  const expiredLongAgo = await oldGrant(400 * DAY);

  // Codes: one exchanged, its grant alive, expired two days ago by now (stays: its replay must
  // still revoke); one never exchanged, expired two days ago (goes); one of the grant revoked long
  // ago (goes with it); one expired within the day (stays).
  const usedCode = await issueAuthorisationCode(app.db, {
    userId: person.id,
    clientPk: client.id,
    redirectUri: REDIRECT_URI,
    scopes: ['mood_read'],
    now: new Date(),
  });
  const exchanged = await tokenRequest(app, { grant_type: 'authorization_code', code: usedCode, redirect_uri: REDIRECT_URI, ...credentials() });
  expect(exchanged.status).toBe(200);
  const codeGrant = await grantOf(exchanged.body.refresh_token);
  await app
    .db('authorisation_codes')
    .where({ grant_id: codeGrant })
    .update({ expires_at: ago(2 * DAY) });
  await issueAuthorisationCode(app.db, { userId: person.id, clientPk: client.id, redirectUri: REDIRECT_URI, scopes: ['mood_read'], now: ago(2 * DAY) });
  await issueAuthorisationCode(app.db, { userId: person.id, clientPk: client.id, redirectUri: REDIRECT_URI, scopes: ['mood_read'], now: ago(100 * DAY) });
  await app
    .db('authorisation_codes')
    .where('created_at', '<', ago(50 * DAY))
    .update({ grant_id: revokedLongAgo });
  await issueAuthorisationCode(app.db, {
    userId: person.id,
    clientPk: client.id,
    redirectUri: REDIRECT_URI,
    scopes: ['mood_read'],
    now: ago(CODE_RETENTION_MS / 2),
  });

  // Rate-limit windows: the live token's (it has made a request) and an address's that ended.
  const before = await app.get('/api/2/accounts/profile/', { bearer: refreshed.body.access_token });
  const remaining = Number(before.headers.get('x-ratelimit-remaining'));
  await app.db('rate_limits').insert({ key: 'api:ip:203.0.113.9', points: 12, expire: Date.now() - 1000 });
  // Sign-in failures: one past the longest throttle window, one still inside it.
  await app.db('throttle_events').insert([
    { kind: 'sign_in_failure', account_key: 'old', address: '203.0.113.9', at: new Date(Date.now() - 61 * 60 * 1000) },
    { kind: 'sign_in_failure', account_key: 'recent', address: '203.0.113.9', at: new Date(Date.now() - 5 * 60 * 1000) },
  ]);
  const codesBefore = (await app.db('authorisation_codes')).length;
  const limitsBefore = (await app.db('rate_limits')).length;

  expect(await sweepExpired(app.db, new Date())).toEqual({
    sessions: 1,
    rateLimits: 1,
    throttleEvents: 1,
    tokens: 2,
    codes: 2,
    idempotencyKeys: 0,
    webhookDeliveries: 0,
  });
  expect((await app.db('throttle_events').select('account_key')).map((r: { account_key: string }) => r.account_key)).toEqual(['recent']);

  expect([await grantRows(revokedLongAgo), await grantRows(revokedRecently), await grantRows(expiredLongAgo), await grantRows(liveGrant)]).toEqual([
    0, 1, 0, 2,
  ]);
  expect((await app.db('authorisation_codes')).length).toBe(codesBefore - 2);
  expect((await app.db('rate_limits')).length).toBe(limitsBefore - 1);
  expect(await app.db('rate_limits').where({ key: 'api:ip:203.0.113.9' })).toEqual([]);

  // Nothing a person or an app holds stopped working; the rate-limit count went on where it was.
  expect((await app.get('/settings/profile', { session: liveSession, unvalidated: true })).status).toBe(200);
  expect((await app.get('/settings/profile', { session: expiredSession, unvalidated: true })).status).toBe(303);
  const after = await app.get('/api/2/accounts/profile/', { bearer: refreshed.body.access_token });
  expect(after.status).toBe(200);
  expect(Number(after.headers.get('x-ratelimit-remaining'))).toBe(remaining - 1);

  // A second run finds nothing more.
  expect(await sweepExpired(app.db, new Date())).toEqual({
    sessions: 0,
    rateLimits: 0,
    throttleEvents: 0,
    tokens: 0,
    codes: 0,
    idempotencyKeys: 0,
    webhookDeliveries: 0,
  });

  // The kept replaced refresh token and the kept used code still revoke their grants when replayed
  // (the refresh token after the refresh leeway, when it is a replay rather than a retry).
  app.setNow(new Date(Date.now() + REFRESH_LEEWAY_MS + 1000));
  const replay = await tokenRequest(app, { grant_type: 'refresh_token', refresh_token: first.refresh_token, ...credentials() });
  expect([replay.status, replay.body.error]).toEqual([400, 'invalid_grant']);
  expect((await app.get('/api/2/accounts/profile/', { bearer: refreshed.body.access_token })).status).toBe(401);
  const codeReplay = await tokenRequest(app, { grant_type: 'authorization_code', code: usedCode, redirect_uri: REDIRECT_URI, ...credentials() });
  expect([codeReplay.status, codeReplay.body.error]).toEqual([400, 'invalid_grant']);
  expect((await app.get('/api/2/accounts/profile/', { bearer: exchanged.body.access_token })).status).toBe(401);
});

test('the job queue schedules it hourly, and a run of the job does the sweep', async () => {
  const jobs = await startJobs({
    connectionString: app.deps.config.databaseUrl!,
    db: app.db,
    logger: app.deps.logger,
    now: () => new Date(),
    pollingIntervalSeconds: 0.5,
  });
  try {
    const schedules = await jobs.boss.getSchedules();
    expect(schedules.find((s) => s.name === QUEUES.housekeeping)?.cron).toBe(SCHEDULES.housekeeping);
    const expired = await createSession(app.db, person.id, ago(15 * DAY));
    expect(await jobs.boss.send(QUEUES.housekeeping, {})).not.toBeNull();
    const deadline = Date.now() + 20_000;
    while ((await app.db('sessions').where({ user_id: person.id }).where('expires_at', '<', new Date())).length > 0) {
      if (Date.now() > deadline) throw new Error('the housekeeping job did not run');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect((await app.get('/settings/profile', { session: expired, unvalidated: true })).status).toBe(303);
  } finally {
    await jobs.stop(2000);
  }
});

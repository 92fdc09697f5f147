/**
 * Several instances (issue "Robustness", part 6): two processes of the compiled service, each with
 * its job workers, on one PostgreSQL. The rate limit is one count for both (parallel requests
 * spread over the two), a session or token made on one works on the other (and its revocation
 * too, by the person or by the app), the OAuth flow can hop between them, and the scheduled work runs once: one derive per
 * person, one cron job per minute. (test/http/rate-limit.test.ts shares a count between two app
 * instances in one process; here they are separate processes, as in production.)
 * `npm run soak` (SOAK=1) also watches the per-minute cron across two minute boundaries.
 */
import { localDate } from '../../src/domain/time';
import { loadDemoData } from '../../src/demo/demo-data';
import { startService, type RunningService } from '../support/process';
import { PAGE, REDIRECT_URI, anonymousForm, csrfOf, setCookie, tokenRequest, type AuthorizeParams } from '../support/web';
import type { TestApp } from '../support/app';
import { SERVICE_SECRET_KEY, call, freshDatabase, makePerson, remoteApp, until, type FreshDatabase, type Person } from './support/service';

const SOAK = Boolean(process.env.SOAK);
const LIMIT = 40;
jest.setTimeout(SOAK ? 400_000 : 120_000);

let database: FreshDatabase;
let person: Person;
const services: RunningService[] = [];
let a: TestApp;
let b: TestApp;

beforeAll(async () => {
  database = await freshDatabase();
  person = await makePerson(database.db, ['mood_read', 'sleep_read']);
  // Data, so that the start-up sweeps of both instances find a weekly derive due for this person.
  await loadDemoData(database.db, person.user.id, {
    seed: 9,
    days: 90,
    endDate: localDate(new Date(), 'UTC'),
    attributes: ['steps', 'sleep', 'mood'],
    rhythms: false,
  });
  const env = { DATABASE_URL: database.url, SECRET_KEY: SERVICE_SECRET_KEY, WORKERS: '1', RATE_LIMIT_PER_HOUR: String(LIMIT) };
  services.push(...(await Promise.all([startService(env), startService(env)])));
  [a, b] = services.map((service) => remoteApp(`http://127.0.0.1:${service.port}`) as TestApp);
}, 120_000);

afterAll(async () => {
  for (const service of services) {
    if (service.child.exitCode === null && service.child.signalCode === null) service.child.kill('SIGTERM');
    await service.exited;
  }
  await database?.drop();
});

test('the rate limit is one count over both processes: parallel requests on one token spread over them get exactly the limit', async () => {
  const answers = await Promise.all(Array.from({ length: 70 }, (_, i) => (i % 2 === 0 ? a : b).get('/api/2/accounts/profile/', { bearer: person.bearer })));
  const ok = answers.filter((r) => r.status === 200);
  expect(ok).toHaveLength(LIMIT);
  expect(answers.filter((r) => r.status === 429)).toHaveLength(70 - LIMIT);
  expect(ok.map((r) => Number(r.headers.get('x-ratelimit-remaining'))).sort((x, y) => x - y)).toEqual(Array.from({ length: LIMIT }, (_, i) => i));
});

test('a session made by logging in on one process works on the other, and logging out on that one ends it on both', async () => {
  const { cookies, csrf } = await anonymousForm(a, '/login');
  // The login form came from A; B accepts its anti-forgery token.
  const login = await b.post('/login', { ...PAGE, cookies, form: { username: person.user.username, password: person.password, csrf_token: csrf } });
  expect(login.status).toBe(303);
  const session = setCookie(login, 'daybook_session')!;
  const onA = await a.get('/settings/profile', { ...PAGE, session });
  expect(onA.status).toBe(200);
  expect(onA.text).toContain(`Signed in as <strong>${person.user.username}</strong>`);
  expect((await b.get('/api/2/accounts/profile/', { session })).body.username).toBe(person.user.username);
  const logout = await b.post('/logout', { ...PAGE, session, form: { csrf_token: csrfOf(onA.text) } });
  expect(logout.status).toBe(303);
  expect((await a.get('/settings/profile', { ...PAGE, session })).status).toBe(303);
});

test('the OAuth flow hops between the processes: consent on one, code exchanged on the other, token used and refreshed across them', async () => {
  const other = await makePerson(database.db, ['mood_read']);
  const params: AuthorizeParams = { client_id: other.client.client_id, redirect_uri: REDIRECT_URI, scope: 'mood_read', state: 'hop' };
  // The consent page from A, the decision posted to B.
  const page = await a.get(`/oauth2/authorize?${new URLSearchParams({ response_type: 'code', ...(params as Record<string, string>) })}`, {
    session: other.session,
  });
  expect(page.status).toBe(200);
  const decision = await b.post('/oauth2/authorize', {
    session: other.session,
    form: { response_type: 'code', ...(params as Record<string, string>), csrf_token: csrfOf(page.text), decision: 'allow' },
  });
  expect(decision.status).toBe(303);
  const code = new URL(decision.headers.get('location')!).searchParams.get('code')!;
  expect(code).toBeTruthy();
  const credentials = { client_id: other.client.client_id, client_secret: other.clientSecret };
  const exchanged = await tokenRequest(a, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, ...credentials });
  expect(exchanged.status).toBe(200);
  expect((await b.get('/api/2/accounts/profile/', { bearer: exchanged.body.access_token })).body.username).toBe(other.user.username);
  const refreshed = await tokenRequest(b, { grant_type: 'refresh_token', refresh_token: exchanged.body.refresh_token, ...credentials });
  expect(refreshed.status).toBe(200);
  expect((await a.get('/api/2/accounts/profile/', { bearer: exchanged.body.access_token })).status).toBe(401);
  expect((await a.get('/api/2/accounts/profile/', { bearer: refreshed.body.access_token })).status).toBe(200);
  // The code was spent on A: replayed on B it is refused, and revokes what it gave, on both.
  expect((await tokenRequest(b, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, ...credentials })).body.error).toBe('invalid_grant');
  expect((await a.get('/api/2/accounts/profile/', { bearer: refreshed.body.access_token })).status).toBe(401);
  // A simple token fetched from one works on the other.
  const simple = await a.post('/api/1/auth/simple-token/', { form: { username: other.user.username, password: other.password } });
  expect((await b.get('/api/2/accounts/profile/', { token: simple.body.token })).status).toBe(200);
});

test('an app revoking its token on one process stops it at once on the other, which had it remembered (RFC 7009)', async () => {
  const revoker = await makePerson(database.db, ['mood_read']);
  // Used on A until A serves it from its remembered credentials (the first use records "last used").
  for (let i = 0; i < 3; i += 1) expect((await a.get('/api/2/accounts/profile/', { bearer: revoker.bearer })).status).toBe(200);
  const revoked = await b.post('/oauth2/revoke', {
    form: { token: revoker.refreshToken, token_type_hint: 'refresh_token', client_id: revoker.client.client_id, client_secret: revoker.clientSecret },
  });
  expect(revoked.status).toBe(200);
  expect((await a.get('/api/2/accounts/profile/', { bearer: revoker.bearer })).status).toBe(401);
  const credentials = { client_id: revoker.client.client_id, client_secret: revoker.clientSecret };
  expect((await tokenRequest(a, { grant_type: 'refresh_token', refresh_token: revoker.refreshToken, ...credentials })).body.error).toBe('invalid_grant');
});

interface JobRow {
  name: string;
  singleton_key: string | null;
  state: string;
}

const JOBS = `(select name, singleton_key, singleton_on, state from pgboss.job
               union all
               select name, singleton_key, singleton_on, state from pgboss.archive) as jobs`;

async function jobs(): Promise<JobRow[]> {
  return (await database.db.raw(`select name, singleton_key, state from ${JOBS} where name in ('derive-user', 'value-changes-sweep', 'derive-sweep')`)).rows;
}

/**
 * The per-minute cron, counted in one statement. pg-boss (10.x) turns each cron tick into a
 * `__pgboss__send-it` job keyed by the schedule's name and the minute (a unique index makes it
 * one per minute, whichever process's clock saw the tick), and a worker on any process turns that
 * into the scheduled job. Once means: one tick per minute, and each tick made at most one job.
 */
async function cronCounts(): Promise<{ ticks: number; minutes: number; delivered: number; sweeps: number }> {
  const [row] = (
    await database.db.raw(
      `select count(*) filter (where name = '__pgboss__send-it' and singleton_key = 'value-changes-sweep') as ticks,
              count(distinct singleton_on) filter (where name = '__pgboss__send-it' and singleton_key = 'value-changes-sweep') as minutes,
              count(*) filter (where name = '__pgboss__send-it' and singleton_key = 'value-changes-sweep' and state = 'completed') as delivered,
              count(*) filter (where name = 'value-changes-sweep') as sweeps
         from ${JOBS}`,
    )
  ).rows;
  return row;
}

test("scheduled work runs once: both processes' start-up sweeps lead to one derive for the person, and each minute's cron job is made once", async () => {
  const key = `user:${person.user.id}`;
  await until(async () => (await jobs()).some((j) => j.name === 'derive-user' && j.singleton_key === key && j.state === 'completed'), 60_000, 'the derive');
  // pg-boss's clocks look at the schedules every 30 s: wait for the first minute's cron job.
  await until(async () => (await cronCounts()).sweeps > 0, 90_000, "the first minute's cron job");
  // No fixed wait: a second derive, had there been one, would come from a sweep. Both processes'
  // start-up sweeps were queued before the test began; wait until every sweep job so far has run
  // and nothing they queued for the person is waiting or running. (The soak also lets two more
  // cron minutes pass.)
  const pending = (j: JobRow) => ['created', 'retry', 'active'].includes(j.state);
  await until(
    async () => !(await jobs()).some((j) => (j.name === 'derive-sweep' || (j.name === 'derive-user' && j.singleton_key === key)) && pending(j)),
    60_000,
    'the sweeps and what they queued',
  );
  if (SOAK) {
    const minutes = Number((await cronCounts()).minutes);
    await until(async () => Number((await cronCounts()).minutes) >= minutes + 2, 200_000, 'two more cron minutes');
  }
  const rows = await jobs();
  expect(rows.filter((j) => j.name === 'derive-user' && j.singleton_key === key).map((j) => j.state)).toEqual(['completed']);
  const computed = services.flatMap((s) => s.logs).filter((line) => line.msg === 'derived data computed' && line.userId === person.user.id);
  expect(computed).toHaveLength(1);
  expect(await database.db('derived_weeks').where({ user_id: person.user.id })).toHaveLength(1);
  // The per-minute cron: one tick per minute, and each tick made one job, however many processes watch the clock.
  const cron = await cronCounts();
  expect(cron.ticks).toBeGreaterThanOrEqual(SOAK ? 2 : 1);
  expect(cron.ticks).toBe(cron.minutes);
  expect(cron.sweeps).toBeGreaterThanOrEqual(cron.delivered);
  expect(cron.sweeps).toBeLessThanOrEqual(cron.ticks);
  await call(a.baseUrl, 'GET', '/readyz', { unvalidated: true });
});

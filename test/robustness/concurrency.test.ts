/**
 * Concurrency (issue "Robustness", part 4), at a larger scale than the feature tests' races
 * (writes/increment, writes/ownership, oauth/refresh-token, http/rate-limit): under parallel load
 * increments sum exactly, simultaneous acquires end with one owner, simultaneous refreshes of one
 * refresh token give exactly one success, simultaneous sign-ups with one name make one account,
 * and the rate limit counts exactly (400 parallel requests on one token, limit 300: 300 successes).
 * `npm run soak` (SOAK=1) multiplies the counts by five.
 */
import { startTestApp, type TestApp } from '../support/app';
import { makeClient, makeToken, makeUser } from '../support/fixtures';
import { PAGE, anonymousForm, registerApp, setCookie, tokenRequest } from '../support/web';
import { issueTokens } from '../../src/domain/apps-and-grants/tokens';

const SCALE = process.env.SOAK ? 5 : 1;
jest.setTimeout(120_000 * SCALE);

let app: TestApp;
beforeAll(async () => {
  // Many sign-ups from one address on purpose: the sign-up throttle has its own tests (test/security/).
  app = await startTestApp({ SIGN_UPS_PER_HOUR: '100000' });
});
afterAll(async () => {
  await app.close();
});

/** Runs `tasks` with at most `width` in flight at once. */
async function inParallel<T>(tasks: Array<() => Promise<T>>, width: number): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < tasks.length) {
        const index = next++;
        results[index] = await tasks[index]();
      }
    }),
  );
  return results;
}

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

test('increments under parallel load sum exactly, each seeing a distinct total; updates of other days in between change nothing of it', async () => {
  const { user, simpleToken } = await makeUser(app, { timezone: 'UTC' });
  const { client } = await makeClient(app, user, 'Counter');
  const bearer = (await makeToken(app, user, client, ['activity_read', 'activity_write', 'food_read', 'food_write'])).access_token;
  const acquired = await app.post('/api/2/attributes/acquire/', { bearer, json: [{ template: 'steps' }, { template: 'coffees' }, { template: 'caffeine' }] });
  expect(acquired.status).toBe(200);

  // 300 single increments of 1 on one day, from 30 connections at once, with batches of mixed
  // increments (integers, and floats exact in binary) on other days, and updates, interleaved.
  const ones = 300 * SCALE;
  const tasks: Array<() => Promise<{ kind: string; body: any; status: number }>> = [];
  const expected = new Map<string, number>();
  const add = (key: string, delta: number) => expected.set(key, (expected.get(key) ?? 0) + delta);
  for (let i = 0; i < ones; i++) {
    tasks.push(() =>
      app
        .post('/api/2/attributes/increment/', { bearer, json: [{ name: 'steps', date: '2026-11-01', value: 1 }] })
        .then((r) => ({ kind: 'one', body: r.body, status: r.status })),
    );
    if (i % 5 === 0) {
      const batch = Array.from({ length: 10 }, (_, j) => {
        const name = j % 2 === 0 ? 'coffees' : 'caffeine';
        const date = `2026-11-0${2 + (j % 3)}`;
        const value = name === 'coffees' ? 1 + ((i + j) % 3) : 0.25 * (1 + ((i * j) % 7));
        add(`${name}:${date}`, value);
        return { name, date, value };
      });
      tasks.push(() => app.post('/api/2/attributes/increment/', { bearer, json: batch }).then((r) => ({ kind: 'batch', body: r.body, status: r.status })));
    }
    if (i % 50 === 0) {
      tasks.push(() =>
        app
          .post('/api/2/attributes/update/', { bearer, json: [{ name: 'steps', date: '2026-10-31', value: i }] })
          .then((r) => ({ kind: 'update', body: r.body, status: r.status })),
      );
    }
  }
  const answers = await inParallel(tasks, 30);
  expect(answers.filter((a) => a.status !== 200)).toEqual([]);

  const currents = answers
    .filter((a) => a.kind === 'one')
    .map((a) => a.body.success[0].current as number)
    .sort((a, b) => a - b);
  expect(currents).toEqual(Array.from({ length: ones }, (_, i) => i + 1));
  const stored = async (name: string, date: string) => {
    const res = await app.get(`/api/2/attributes/values/?attribute=${name}&date_max=${date}&limit=1`, { token: simpleToken });
    return res.body.results[0]?.date === date ? (res.body.results[0].value as number) : null;
  };
  expect(await stored('steps', '2026-11-01')).toBe(ones);
  for (const [key, total] of expected) {
    const [name, date] = key.split(':');
    expect([key, await stored(name, date)]).toEqual([key, total]);
  }
  process.stdout.write(
    `concurrency: ${tasks.length} write requests (${ones} single increments, ${sum([...expected.values()].map(() => 1))} keys of batches), 30 in flight\n`,
  );
});

test('simultaneous acquires by many services end with exactly one owner, and only that one can write', async () => {
  const { user } = await makeUser(app);
  const services = await Promise.all(Array.from({ length: 12 }, (_, i) => makeClient(app, user, `Service ${i}`)));
  const tokens = await Promise.all(services.map(({ client }) => makeToken(app, user, client, ['sleep_read', 'sleep_write']).then((t) => t.access_token)));
  for (let round = 0; round < 5 * SCALE; round++) {
    // A template the person lacks (created once), then an existing attribute (taken over): all at once.
    const item = round === 0 ? { template: 'sleep' } : { name: 'sleep' };
    const answers = await Promise.all(tokens.map((bearer) => app.post('/api/2/attributes/acquire/', { bearer, json: [item] })));
    expect(answers.map((a) => a.status)).toEqual(tokens.map(() => 200));
    const rows = await app.db('attributes').where({ user_id: user.id, name: 'sleep' });
    expect(rows).toHaveLength(1);
    const owner = services.findIndex(({ client }) => client.id === rows[0].owner_client_pk);
    expect(owner).toBeGreaterThanOrEqual(0);
    const writes = await Promise.all(
      tokens.map((bearer) => app.post('/api/2/attributes/update/', { bearer, json: [{ name: 'sleep', date: '2026-11-01', value: 400 + round }] })),
    );
    expect(writes.map((w) => w.status)).toEqual(tokens.map((_, i) => (i === owner ? 200 : 202)));
  }
  expect(await app.db('attribute_services').where({ user_id: user.id }).count('* as n').first()).toEqual({ n: 12 });
});

test('simultaneous refreshes of one refresh token: one new pair, answered to every caller (the refresh leeway)', async () => {
  const { user } = await makeUser(app);
  const { client, secret } = await registerApp(app, user, { name: 'Refresher' });
  for (let round = 0; round < 3 * SCALE; round++) {
    const { refresh_token } = await issueTokens(app.db, { userId: user.id, clientPk: client.id, scopes: ['mood_read'], now: new Date() });
    const form = { grant_type: 'refresh_token', refresh_token, client_id: client.client_id, client_secret: secret! };
    const answers = await Promise.all(Array.from({ length: 20 }, () => tokenRequest(app, form)));
    expect(answers.map((a) => a.status)).toEqual(Array.from({ length: 20 }, () => 200));
    expect(new Set(answers.map((a) => a.body.refresh_token)).size).toBe(1);
    expect(new Set(answers.map((a) => a.body.access_token)).size).toBe(1);
  }
});

test('simultaneous sign-ups with one user name (in any letter case) make exactly one account', async () => {
  for (let round = 0; round < 2 * SCALE; round++) {
    const name = `race_${round}_${process.pid}`;
    const forms = await Promise.all(Array.from({ length: 12 }, () => anonymousForm(app, '/signup')));
    const answers = await Promise.all(
      forms.map(({ cookies, csrf }, i) => {
        const username = i % 2 === 0 ? name : name.toUpperCase();
        return app.post('/signup', {
          ...PAGE,
          cookies,
          form: { username, password: 'a long enough password', password2: 'a long enough password', csrf_token: csrf },
        });
      }),
    );
    const made = answers.filter((a) => a.status === 303);
    expect(made).toHaveLength(1);
    expect(setCookie(made[0], 'daybook_session')).toBeDefined();
    expect(answers.filter((a) => a.status !== 303).map((a) => a.status)).toEqual(Array.from({ length: 11 }, () => 400));
    expect(answers.filter((a) => a.status === 400).every((a) => a.text.includes('is taken'))).toBe(true);
    expect(await app.db('users').whereRaw('lower(username) = ?', [name]).count('* as n').first()).toEqual({ n: 1 });
  }
});

test('the rate limit counts exactly: 400 parallel requests on one token with a limit of 300 give exactly 300 successes', async () => {
  const limited = await startTestApp({ RATE_LIMIT_PER_HOUR: '300' });
  try {
    for (let round = 0; round < SCALE; round++) {
      // A person and app of its own each round: the count belongs to the person's connection, not the token.
      const { user } = await makeUser(limited);
      const { client } = await makeClient(limited, user);
      const bearer = (await makeToken(limited, user, client, ['mood_read'])).access_token;
      const answers = await Promise.all(Array.from({ length: 400 }, () => limited.get('/api/2/accounts/profile/', { bearer })));
      const ok = answers.filter((a) => a.status === 200);
      expect(ok).toHaveLength(300);
      expect(answers.filter((a) => a.status === 429)).toHaveLength(100);
      // Each success saw its own count: the remaining numbers are 299 down to 0, once each.
      expect(ok.map((a) => Number(a.headers.get('x-ratelimit-remaining'))).sort((a, b) => a - b)).toEqual(Array.from({ length: 300 }, (_, i) => i));
    }
  } finally {
    await limited.close();
  }
});

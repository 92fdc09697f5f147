/**
 * Bad input to the pages for people (the forms the API fuzz suite does not reach): every form a
 * logged-in person can post, plus log in and sign up, gets fast-check forms built from its real
 * fields and the values a person might type, mutated: fields missing, repeated, unknown, empty,
 * huge, unicode, control characters, NUL, and wrong or missing anti-forgery tokens. Every answer
 * is a page with a documented status (never a 500), and a refused form changes nothing in any
 * table (digest before and after; the sign-in throttle's counters and the "last seen" minute are
 * left out by design). Page views with odd addresses and query strings change nothing at all. Fixed seed and FUZZ_RUNS (default 20) runs per form in `npm test`;
 * `npm run fuzz` runs more from a random seed.
 */
import fc from 'fast-check';
import { startTestApp, type TestApp } from '../support/app';
import { makeSession, makeToken, makeUser, resetSignInThrottle } from '../support/fixtures';
import { PAGE, anonymousForm, registerApp } from '../support/web';
import { changedTables, digest } from './support/db-state';
import type { User } from '../../src/domain/identity/users';
import type { OAuthClient } from '../../src/domain/apps-and-grants/clients';

const RUNS = Number(process.env.FUZZ_RUNS ?? 20);
const SEED = process.env.FUZZ_SEED === 'random' ? Date.now() % 2 ** 31 : Number(process.env.FUZZ_SEED ?? 20261122);
jest.setTimeout(Math.max(120_000, RUNS * 3_000));

/** What a page may answer: the page, a redirect, or a page naming the problem. */
const STATUSES = [200, 303, 400, 403, 404, 413, 415, 429];

let app: TestApp;
let person: User;
let session: string;
let own: OAuthClient;
let theirs: OAuthClient;

beforeAll(async () => {
  app = await startTestApp();
  ({ user: person } = await makeUser(app, { timezone: 'UTC' }));
  const { user: other } = await makeUser(app);
  session = await makeSession(app, person);
  ({ client: own } = (await registerApp(app, person, { name: 'Own app' })) as { client: OAuthClient });
  ({ client: theirs } = (await registerApp(app, other, { name: 'Their app' })) as { client: OAuthClient });
  const bearer = (await makeToken(app, person, own, ['mood_read', 'mood_write', 'activity_read', 'activity_write'])).access_token;
  expect((await app.post('/api/2/attributes/acquire/', { bearer, json: [{ template: 'steps' }, { template: 'mood' }] })).status).toBe(200);
});
afterAll(async () => {
  await app?.close();
});

/** Values a person might type into any field, and the ways they go wrong. */
const typed = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      '',
      'UTC',
      'Europe/Berlin',
      '2026-11-01',
      '2026-02-30',
      'mood',
      'steps',
      'custom',
      'activity',
      '0',
      '1',
      '7',
      '-1',
      '1e308',
      'yes',
      '12:30',
      'template',
      'https://client.example.org/callback',
      'http://evil.example/',
      'mood_read',
      'read+write',
      'confidential',
      'public',
      '__deactivate__',
      'daybook',
      'Cups of tea',
    ),
  },
  { weight: 3, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom('a\u0000b', '\u0000', '\u202e\u200b', '<script>x</script>', "'; drop table users; --", '\r\n\t', '%00', '../../etc/passwd'),
  },
  { weight: 1, arbitrary: fc.integer({ min: 1_000, max: 300_000 }).map((n) => 'x'.repeat(n)) },
);

interface FormSpec {
  path: () => fc.Arbitrary<string>;
  fields: string[];
  /** Logged-out forms carry the anti-forgery cookie instead of a session. */
  anonymous?: boolean;
}

const named =
  (...names: string[]) =>
  () =>
    fc.constantFrom(...names);

/** Every form of the pages but the ones that end the fuzzing session itself (log out, delete an app or the account with the right password). */
const FORMS: Record<string, FormSpec> = {
  login: { path: named('/login'), fields: ['username', 'password', 'next'], anonymous: true },
  signup: { path: named('/signup'), fields: ['username', 'password', 'password2', 'timezone', 'next'], anonymous: true },
  profile: {
    path: named('/settings/profile'),
    fields: ['first_name', 'last_name', 'avatar', 'timezone', 'bio', 'url', 'private', 'imperial_distance', 'imperial_weight'],
  },
  'create app': { path: named('/settings/apps'), fields: ['name', 'description', 'website', 'redirect_uris', 'client_type', 'scopes'] },
  'edit app': {
    path: () => fc.constantFrom(own.client_id, theirs.client_id, 'nope', '%00').map((id) => `/settings/apps/${id}`),
    fields: ['name', 'description', 'website', 'redirect_uris', 'scopes'],
  },
  'rotate secret': { path: () => fc.constantFrom(own.client_id, theirs.client_id, 'nope').map((id) => `/settings/apps/${id}/secret`), fields: [] },
  'delete an app of someone else': { path: () => fc.constantFrom(theirs.client_id, 'nope', '%ZZ').map((id) => `/settings/apps/${id}/delete`), fields: [] },
  'attribute owner': {
    path: () => fc.constantFrom('steps', 'mood', 'nope', 'a%00b').map((name) => `/settings/attributes/${name}`),
    fields: ['owner', 'private'],
  },
  'revoke app': { path: () => fc.constantFrom(theirs.client_id, 'nope').map((id) => `/settings/connected-apps/${id}/revoke`), fields: [] },
  'reset simple token': { path: named('/settings/simple-token/reset'), fields: [] },
  'enter a value': { path: named('/data/values'), fields: ['name', 'date', 'value'] },
  'track by hand': { path: named('/data/track'), fields: ['kind', 'template', 'label', 'group', 'value_type'] },
  'end a session': { path: named('/settings/account/sessions/end'), fields: ['session'] },
  'end other sessions': { path: named('/settings/account/sessions/end-others'), fields: [] },
  'delete the account (wrong password)': { path: named('/settings/account/delete'), fields: ['password', 'confirm'] },
};

/** One form: its path, its fields (some missing, some repeated, some unknown) and what happens to the anti-forgery token. */
function formArb(spec: FormSpec) {
  const field = fc.tuple(
    fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...(spec.fields.length ? spec.fields : ['x'])) }, { weight: 1, arbitrary: fc.string({ maxLength: 12 }) }),
    typed,
  );
  return fc.record({
    path: spec.path(),
    fields: fc.array(field, { maxLength: 12 }),
    csrf: fc.constantFrom('valid', 'valid', 'valid', 'missing', 'garbage', 'repeated'),
  });
}

async function post(spec: FormSpec, input: { path: string; fields: Array<[string, string]>; csrf: string }) {
  const { cookies, csrf } = spec.anonymous
    ? await anonymousForm(app, input.path)
    : { cookies: undefined, csrf: /name="csrf_token" value="([^"]+)"/.exec((await app.get('/settings/account', { ...PAGE, session })).text)![1] };
  const token = { valid: [csrf], missing: [], garbage: ['garbage'], repeated: [csrf, 'garbage'] }[input.csrf as 'valid'] ?? [];
  // The person's real password never appears among the values, so deleting the account always fails.
  const form: Array<[string, string]> = [...token.map((t): [string, string] => ['csrf_token', t]), ...input.fields.filter(([name]) => name !== 'csrf_token')];
  return app.post(input.path, { ...PAGE, ...(spec.anonymous ? { cookies } : { session }), form });
}

const tried = new Map<string, Map<number, number>>();

describe.each(Object.entries(FORMS))('%s', (name, spec) => {
  test(`${RUNS} forms: a page with a documented status, never a 500, and a refused form changes nothing`, async () => {
    const statuses = new Map<number, number>();
    tried.set(name, statuses);
    await fc.assert(
      fc.asyncProperty(formArb(spec), async (input) => {
        await resetSignInThrottle(app);
        const before = await digest(app.db);
        const res = await post(spec, input);
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        const context = `${input.path} csrf=${input.csrf} ${JSON.stringify(input.fields.map(([k, v]) => [k, v.length > 60 ? `${v.slice(0, 60)}… (${v.length})` : v]))} -> ${res.status} ${res.text.slice(0, 300)}`;
        expect({ status: STATUSES.includes(res.status), context }).toEqual({ status: true, context });
        expect({ page: res.status === 303 || /^text\/html/.test(res.headers.get('content-type') ?? ''), context }).toEqual({ page: true, context });
        if (res.status >= 400) expect({ changed: changedTables(before, await digest(app.db)), context }).toEqual({ changed: [], context });
        // The fuzzing session is still there (no form here may end it).
        expect((await app.get('/settings/profile', { ...PAGE, session })).status).toBe(200);
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
    // Progress for the long `npm run fuzz` (it sets FUZZ_RUNS); `npm test` prints only the summary.
    if (process.env.FUZZ_RUNS) process.stdout.write(`pages fuzz: ${name}: ${RUNS} forms passed\n`);
  });
});

test(`${RUNS * 5} page views with odd addresses and query strings: a page or a redirect, never a 500, nothing changed`, async () => {
  const statuses = new Map<number, number>();
  tried.set('page views (GET)', statuses);
  const paths = [
    '/',
    '/data',
    '/data/track',
    '/data/patterns',
    '/settings/profile',
    '/settings/apps',
    `/settings/apps/${own.client_id}`,
    `/settings/apps/${theirs.client_id}`,
    '/settings/attributes',
    '/settings/connected-apps',
    '/settings/simple-token',
    '/settings/account',
    '/login',
    '/signup',
  ];
  const segment = fc.oneof(
    fc.constantFrom(...paths),
    fc.tuple(fc.constantFrom(...paths), fc.constantFrom('%00', '%ZZ', '%E0%A4%A', '..', 'x'.repeat(3000))).map(([p, extra]) => `${p}/${extra}`),
  );
  const query = fc.array(
    fc.tuple(
      fc.constantFrom('date', 'saved', 'tracked', 'ended', 'strong', 'confident', 'next', 'x'),
      typed.filter((v) => v.length < 4000),
    ),
    { maxLength: 4 },
  );
  await fc.assert(
    fc.asyncProperty(segment, query, async (path, params) => {
      const before = await digest(app.db);
      const search = params.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&');
      const res = await app.get(`${path}${search ? `?${search}` : ''}`, { ...PAGE, session });
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      const context = `${path}?${search.slice(0, 200)} -> ${res.status} ${res.text.slice(0, 200)}`;
      expect({ ok: [200, 301, 303, 400, 404, 414, 431].includes(res.status), context }).toEqual({ ok: true, context });
      expect({ changed: changedTables(before, await digest(app.db)), context }).toEqual({ changed: [], context });
    }),
    { numRuns: RUNS * 5, seed: SEED, endOnFailure: true },
  );
});

afterAll(() => {
  const lines = [...tried].map(
    ([name, statuses]) =>
      `${name.padEnd(38)} ${[...statuses]
        .sort(([a], [b]) => a - b)
        .map(([s, n]) => `${s}:${n}`)
        .join(' ')}`,
  );
  process.stdout.write(`\npages fuzz: seed ${SEED}, ${RUNS} forms each, ${tried.size} forms\n${lines.join('\n')}\n`);
});

/**
 * Isolation (issue "Robustness", part 2): a matrix over every read endpoint of v2 and v1, every
 * group, and the credentials that must see less than everything: the owner's app with each single
 * read scope (the 16 groups and manual_read), another app of the same person, another person, a
 * revoked token, a simple token and a session. A person has one attribute in every group (and a
 * manual one), with values, averages, correlations and insights; another person has the same.
 * Each answer is compared with what the rules allow (docs/decisions.md, "Visibility"): the names it carries,
 * and its counts. Every name of the person's data found anywhere in an answer must be allowed.
 */
import { startTestApp, type TestApp } from '../support/app';
import { makeClient, makeSession, makeToken, makeUser } from '../support/fixtures';
import { addAttribute, addValues, type SeededAttribute } from '../support/seed';
import { GROUP_NAMES } from '../../src/db/catalogue-groups';
import { TEMPLATES } from '../../src/db/catalogue-templates';
import { READ_SCOPES } from '../../src/domain/apps-and-grants/scopes';
import { revokeGrant } from '../../src/domain/apps-and-grants/tokens';
import { simpleTokenOf, type User } from '../../src/domain/identity/users';
import type { OAuthClient } from '../../src/domain/apps-and-grants/clients';

jest.setTimeout(120_000);

let app: TestApp;
const NOW = new Date('2026-11-22T12:00:00Z');
const DAYS = ['2026-11-20', '2026-11-21', '2026-11-22'];
const WEEK = '2026-11-16';

/** One of the person's attributes, and what the rules need to know about it. */
interface Attr extends SeededAttribute {
  group: string;
  manual: boolean;
  /** Which of the person's apps owns it. */
  ownerApp: 'first' | 'second';
}

interface Owner {
  user: User;
  first: OAuthClient;
  second: OAuthClient;
  attributes: Attr[];
  /** Stored correlation pairs (names). */
  pairs: Array<[string, string]>;
}

/** Who is asking, and what the rules let them see of the person's data. */
interface Principal {
  label: string;
  auth: { bearer?: string; token?: string; session?: string };
  /** Attribute names readable; empty for someone else (nothing of the person's). */
  readable: Set<string>;
  /** Attribute names in the owned list. */
  owned: Set<string>;
  /** Answered 401 everywhere. */
  revoked?: boolean;
  /** Another person: v1 paths with the person's name are refused; their own data is not the person's. */
  stranger?: boolean;
}

let person: Owner;
let stranger: Owner;
const principals: Principal[] = [];

const NAME = /\b(?:iso|str)_[a-z]+_attr\b/g;

async function seedPerson(prefix: 'iso' | 'str'): Promise<Owner> {
  const { user } = await makeUser(app, { timezone: 'UTC' });
  const { client: first } = await makeClient(app, user, `${prefix} first app`);
  const { client: second } = await makeClient(app, user, `${prefix} second app`);
  const attributes: Attr[] = [];
  const groups = [
    ...GROUP_NAMES.map((group) => ({ group, manual: false, name: `${prefix}_${group}_attr` })),
    { group: 'health', manual: true, name: `${prefix}_manual_attr` },
  ];
  for (const [index, { group, manual, name }] of groups.entries()) {
    const ownerApp = index % 2 === 0 ? 'first' : 'second';
    const seeded = await addAttribute(app, user.id, {
      name,
      template: null,
      label: `Label of ${name}`,
      group,
      value_type: 0,
      priority: 2,
      manual,
      owner: (ownerApp === 'first' ? first : second).id,
    });
    await addValues(app, user.id, seeded, Object.fromEntries(DAYS.map((day, i) => [day, index * 10 + i])));
    attributes.push({ ...seeded, group, manual, ownerApp });
  }
  await app.db('averages').insert(
    attributes.map((a) => ({
      user_id: user.id,
      attribute_id: a.id,
      date: WEEK,
      overall: 1,
      monday: 1,
      tuesday: 1,
      wednesday: 1,
      thursday: 1,
      friday: 1,
      saturday: 1,
      sunday: 1,
    })),
  );
  // A chain of pairs across groups (each attribute with the next), so that either-side visibility shows.
  const pairs: Array<[Attr, Attr]> = attributes.slice(1).map((a, i) => [attributes[i], a]);
  await app.db('correlations').insert(
    pairs.map(([a, b]) => ({
      user_id: user.id,
      date: WEEK,
      attribute_id: a.id,
      attribute2_id: b.id,
      offset: 0,
      period: 60,
      value: 0.5,
      p: 0.01,
      q: 0.01,
      percentage: 50,
      stars: 4,
      strength_description: 'Quite often go together',
      stars_description: 'Almost certainly related',
      second_person: `Your ${a.name} goes with your ${b.name}.`,
      second_person_elements: [`Your ${a.name}`, 'goes with', `your ${b.name}.`],
    })),
  );
  await app.db('derived_weeks').insert({
    user_id: user.id,
    date: WEEK,
    attributes: attributes.length,
    tests: pairs.length,
    published: pairs.length,
    averages: attributes.length,
    duration_ms: 1,
    computed_at: NOW,
  });
  await app.db('insights').insert(
    attributes.map((a) => ({
      user_id: user.id,
      type_name: 'record_high',
      period: 30,
      priority: 2,
      attribute_id: a.id,
      target_date: DAYS[2],
      created: NOW,
      html: `<p>A record for ${a.name}.</p>`,
      text: `A record for ${a.name}.`,
      value: '1',
      value2: null,
      dedupe_key: `iso:${a.id}`,
    })),
  );
  return { user, first, second, attributes, pairs: pairs.map(([a, b]) => [a.name, b.name]) };
}

function readableWith(scopes: string[], attributes: Attr[]): Set<string> {
  const groups = new Set(scopes.filter((s) => s.endsWith('_read')).map((s) => s.replace(/_read$/, '')));
  return new Set(attributes.filter((a) => groups.has(a.group) || (a.manual && scopes.includes('manual_read'))).map((a) => a.name));
}

beforeAll(async () => {
  app = await startTestApp();
  app.setNow(NOW);
  person = await seedPerson('iso');
  stranger = await seedPerson('str');
  const names = person.attributes;
  const ownedBy = (which: 'first' | 'second', readable: Set<string>) =>
    new Set(names.filter((a) => a.ownerApp === which && readable.has(a.name)).map((a) => a.name));
  for (const scope of READ_SCOPES) {
    const readable = readableWith([scope], names);
    principals.push({
      label: `the person's app with ${scope} only`,
      auth: { bearer: (await makeToken(app, person.user, person.first, [scope])).access_token },
      readable,
      owned: ownedBy('first', readable),
    });
  }
  const all = new Set(names.map((a) => a.name));
  principals.push({
    label: "the person's other app (every read scope)",
    auth: { bearer: (await makeToken(app, person.user, person.second, [...READ_SCOPES])).access_token },
    readable: all,
    owned: ownedBy('second', all),
  });
  principals.push({
    label: "the person's simple token",
    auth: { token: await simpleTokenOf(app.db, person.user, app.deps.secretKey) },
    readable: all,
    owned: new Set(),
  });
  principals.push({ label: "the person's session", auth: { session: await makeSession(app, person.user) }, readable: all, owned: new Set() });
  const revoked = await makeToken(app, person.user, person.first, [...READ_SCOPES]);
  const row = await app.db('tokens').where({ user_id: person.user.id }).orderBy('id', 'desc').first();
  await revokeGrant(app.db, row.grant_id, NOW);
  principals.push({ label: 'a revoked token', auth: { bearer: revoked.access_token }, readable: new Set(), owned: new Set(), revoked: true });
  principals.push({
    label: 'another person (every read scope)',
    auth: { bearer: (await makeToken(app, stranger.user, stranger.first, [...READ_SCOPES])).access_token },
    readable: new Set(),
    owned: new Set(),
    stranger: true,
  });
}, 60_000);

afterAll(async () => {
  app.setNow(undefined);
  await app.close();
});

/** Every name of either person's data the answer mentions. */
function namesIn(body: unknown): Set<string> {
  return new Set(JSON.stringify(body).match(NAME) ?? []);
}

/** The other person's names are theirs: what a stranger sees of their own data is not checked here, only that it is never the person's. */
function personNames(names: Set<string>): Set<string> {
  return new Set([...names].filter((n) => n.startsWith('iso_')));
}

const sorted = (set: Iterable<string>) => [...set].sort();
const paged = '?limit=100&include_inactive=true&include_low_priority=true';

interface Case {
  path: string;
  /** The person's names the answer may carry; undefined: the answer must be 200 and carry none. */
  expect: (p: Principal) => { status: number; names?: Set<string>; count?: number; mentions?: Set<string> };
}

/** Correlations a principal sees: at least one side readable (the spec's combo rule, for the list too). */
function visiblePairs(p: Principal): Array<[string, string]> {
  return person.pairs.filter(([a, b]) => p.readable.has(a) || p.readable.has(b));
}

function cases(): Case[] {
  const username = person.user.username;
  const list: Case[] = [
    { path: '/api/2/attributes/templates/?limit=100&include_low_priority=true', expect: () => ({ status: 200, names: new Set(), count: TEMPLATES.length }) },
    { path: `/api/2/attributes/${paged}`, expect: (p) => ({ status: 200, names: p.readable, count: p.readable.size }) },
    {
      path: '/api/2/attributes/with-values/?limit=100&days=31&date_max=2026-11-22',
      expect: (p) => ({ status: 200, names: p.readable, count: p.readable.size }),
    },
    { path: `/api/2/attributes/owned/${paged}`, expect: (p) => ({ status: 200, names: p.owned, count: p.owned.size }) },
    {
      path: '/api/2/correlations/?limit=100',
      expect: (p) => {
        const pairs = visiblePairs(p);
        return { status: 200, names: new Set(pairs.flat()), count: pairs.length };
      },
    },
    { path: '/api/2/averages/?limit=100', expect: (p) => ({ status: 200, names: p.readable, count: p.readable.size }) },
    { path: '/api/2/insights/?limit=100', expect: (p) => ({ status: 200, names: p.readable, count: p.readable.size }) },
    { path: '/api/2/accounts/profile/', expect: () => ({ status: 200, names: new Set() }) },
    { path: '/api/1/users/$self/profile/', expect: () => ({ status: 200, names: new Set() }) },
    { path: '/api/1/users/$self/today/', expect: (p) => ({ status: 200, names: p.readable }) },
    { path: '/api/1/users/$self/attributes/', expect: (p) => ({ status: 200, names: p.readable, count: p.readable.size }) },
    { path: '/api/1/users/$self/insights/?limit=100', expect: (p) => ({ status: 200, names: p.readable, count: p.readable.size }) },
    { path: '/api/1/users/$self/averages/', expect: (p) => ({ status: 200, names: p.readable, count: p.readable.size }) },
    // The person's name in the path: the same as $self for the person, refused for anyone else.
    { path: `/api/1/users/${username}/today/`, expect: (p) => (p.stranger ? { status: 200, names: new Set() } : { status: 200, names: p.readable }) },
    {
      path: `/api/1/users/${username}/attributes/`,
      expect: (p) => (p.stranger ? { status: 403 } : { status: 200, names: p.readable, count: p.readable.size }),
    },
    { path: `/api/1/users/${username}/insights/`, expect: (p) => (p.stranger ? { status: 403 } : { status: 200, names: p.readable, count: p.readable.size }) },
    { path: `/api/1/users/${username}/averages/`, expect: (p) => (p.stranger ? { status: 403 } : { status: 200, names: p.readable, count: p.readable.size }) },
  ];
  for (const attribute of person.attributes) {
    const one = (p: Principal, count: number) =>
      p.readable.has(attribute.name) ? { status: 200, names: new Set([attribute.name]), count } : { status: 200, names: new Set<string>(), count: 0 };
    list.push(
      { path: `/api/2/attributes/values/?attribute=${attribute.name}`, expect: (p) => ({ ...one(p, DAYS.length), names: new Set() }) },
      { path: `/api/2/averages/?attributes=${attribute.name}&include_historical=true`, expect: (p) => one(p, 1) },
      // The attribute filter keeps exactly the visible correlations that name the attribute, on either side.
      {
        path: `/api/2/correlations/?attribute=${attribute.name}`,
        expect: (p) => {
          const pairs = visiblePairs(p).filter((pair) => pair.includes(attribute.name));
          return { status: 200, names: new Set(pairs.flat()), count: pairs.length };
        },
      },
      { path: `/api/1/users/$self/attributes/${attribute.name}/`, expect: (p) => ({ ...one(p, DAYS.length), names: new Set() }) },
      { path: `/api/1/users/$self/insights/attribute/${attribute.name}/`, expect: (p) => one(p, 1) },
      { path: `/api/1/users/$self/averages/attribute/${attribute.name}/`, expect: (p) => one(p, 1) },
    );
  }
  for (const [a, b] of [...person.pairs, ['iso_activity_attr', 'iso_weather_attr'] as [string, string]]) {
    const stored = person.pairs.some(([x, y]) => x === a && y === b);
    list.push({
      path: `/api/2/correlations/combo/?attribute=${b}&attribute2=${a}`,
      expect: (p) => (stored && (p.readable.has(a) || p.readable.has(b)) ? { status: 200, names: new Set([a, b]) } : { status: 404, names: new Set() }),
    });
  }
  return list;
}

/** Paths about the person in particular (their attribute names or user name), as opposed to "my data" lists. */
function aboutThePerson(path: string): boolean {
  return /iso_[a-z]+_attr/.test(path) || path.includes(`/${person.user.username}/`);
}

/** For another person, an unfiltered list is their own data: as full as the person's own view of theirs. */
function mirrorOf(principal: Principal): Principal {
  return {
    ...principal,
    readable: new Set(person.attributes.map((a) => a.name)),
    owned: new Set(person.attributes.filter((a) => a.ownerApp === 'first').map((a) => a.name)),
  };
}

test('every read endpoint shows each credential exactly what the rules allow, counts included, and nothing of anyone else', async () => {
  const problems: string[] = [];
  let checked = 0;
  const all = principals.flatMap((principal) => cases().map((c) => ({ principal, ...c })));
  // Eight at a time: the answers do not depend on each other.
  for (let start = 0; start < all.length; start += 8) {
    const batch = all.slice(start, start + 8);
    const answers = await Promise.all(batch.map(({ principal, path }) => app.get(path, principal.auth)));
    for (const [index, { principal, path, expect: expected }] of batch.entries()) {
      const res = answers[index];
      checked += 1;
      const ownList = principal.stranger && !aboutThePerson(path);
      const want = principal.revoked ? { status: 401, names: new Set<string>() } : expected(ownList ? mirrorOf(principal) : principal);
      const where = `${principal.label}: GET ${path}`;
      if (res.status !== want.status) {
        problems.push(`${where} -> ${res.status}, expected ${want.status}`);
        continue;
      }
      const seen = personNames(namesIn(res.body));
      // Nothing of the person's beyond what is allowed; another person sees nothing of theirs at all.
      // (An error may name what the request itself named.)
      const allowed = ownList ? new Set<string>() : new Set([...(want.names ?? []), ...(res.status >= 400 ? (path.match(NAME) ?? []) : [])]);
      const leaked = sorted([...seen].filter((name) => !allowed.has(name)));
      if (leaked.length > 0) problems.push(`${where}: shows ${leaked.join(', ')}`);
      if (!ownList && want.names) {
        const missing = sorted([...want.names].filter((name) => !seen.has(name)));
        if (missing.length > 0) problems.push(`${where}: misses ${missing.join(', ')}`);
      }
      const body = res.body as { count?: number } | unknown[];
      const count = Array.isArray(body) ? body.length : (body as { count?: number }).count;
      if (want.count !== undefined && count !== want.count) problems.push(`${where}: count ${count}, expected ${want.count}`);
    }
  }
  expect(problems).toEqual([]);
  process.stdout.write(`isolation: ${checked} answers checked (${principals.length} credentials x ${cases().length} requests)\n`);
});
